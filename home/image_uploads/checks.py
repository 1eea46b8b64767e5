"""Image upload checks beyond Wagtail's own (``WAGTAILIMAGES_IMAGE_FORM_BASE``).

Wagtail's ``WagtailImageField`` already refuses, by content not by name: files that are not
images, a format that does not match the extension (a PSD renamed ``.jpg``), extensions outside
``WAGTAILIMAGES_EXTENSIONS`` (so SVG), files over ``WAGTAILIMAGES_MAX_UPLOAD_SIZE`` bytes and
images over ``WAGTAILIMAGES_MAX_IMAGE_PIXELS`` pixels (width x height x frames). Three gaps
remain in Wagtail 8.0: its pixel count decodes the whole image first (so a 40-89 megapixel file
is decoded before being refused), it counts one frame for an animated GIF (Willow's frame
count), and a truncated or corrupt file either raises an uncaught
``OSError`` (a 500 in the admin) or passes and fails later, when a rendition is made for a
reader. ``CheckedImageField`` counts pixels and frames from the headers first, turns decoding
errors into a form error, and decodes every frame once at upload.

Two budgets (docs/images.md): one frame may have at most ``IMAGE_MAX_FRAME_PIXELS`` pixels (a
still photo or one frame of an animation), and all frames together at most
``WAGTAILIMAGES_MAX_IMAGE_PIXELS`` (what Wagtail calls the pixel limit), so an ordinary
animation (1200x630, 100 frames: 75.6 megapixels) is accepted and a decompression bomb (a header
claiming more pixels than that, in one frame or many) is refused before it is decoded. Accepted
uploads are then stored as readers see them (``normalise.normalised_upload``) and carry their
frame count for the templates (``frame_count``).
"""

import io
import warnings

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile

from wagtail.images.fields import WagtailImageField
from wagtail.images.forms import BaseImageForm

import willow
from PIL import Image

from .normalise import normalised_upload

DAMAGED_IMAGE_MESSAGE = (
    "This image file is damaged or incomplete, so it cannot be shown. "
    "Export or download it again, then upload the new file."
)
# What Pillow raises for data it cannot decode.
DECODE_ERRORS = (OSError, SyntaxError, ValueError, EOFError, IndexError)


def header_pixel_count(file) -> tuple[int, int] | None:
    """``(pixels of one frame, frames)`` from the image headers (no pixels decoded); None if
    Pillow cannot read it.

    Frames count because each is decoded at upload and for renditions. Wagtail 8.0 multiplies by
    Willow's frame count, which is always 1 for a GIF, so an animation of many large frames
    passed. Raises ValidationError(code="file_too_many_pixels") for sizes past Pillow's
    decompression-bomb limit. ``file`` is left at position 0.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            file.seek(0)
            with Image.open(file) as image:
                width, height = image.size
                frames = getattr(image, "n_frames", 1)  # GIF/WebP/APNG: reads frame headers only
    except (Image.DecompressionBombWarning, Image.DecompressionBombError) as error:
        raise ValidationError(
            "This file has too many pixels: its header claims more than Pillow will decode safely. "
            "Scale the image down before uploading.",
            code="file_too_many_pixels",
        ) from error
    except Exception:  # noqa: BLE001 - not an image Pillow knows; WagtailImageField says so
        return None
    finally:
        file.seek(0)
    return width * height, frames


def pixel_budget_error(frame_pixels: int, frames: int, max_total: int | None) -> ValidationError | None:
    """The form error for an image whose frames have ``frame_pixels`` pixels each, or None.

    One frame may have ``settings.IMAGE_MAX_FRAME_PIXELS`` pixels, all frames together
    ``max_total`` (``WAGTAILIMAGES_MAX_IMAGE_PIXELS``; None: no limit)."""
    max_frame = getattr(settings, "IMAGE_MAX_FRAME_PIXELS", None)
    if max_frame and frame_pixels > max_frame:
        return ValidationError(
            f"This image has {frame_pixels:,} pixels, more than the {max_frame:,} an image may have. "
            "Scale it down before uploading.",
            code="file_too_many_pixels",
        )
    if max_total and frame_pixels * frames > max_total:
        return ValidationError(
            f"This file has too many pixels ({frame_pixels * frames}): {frames} frames of "
            f"{frame_pixels:,} pixels, more than the {max_total:,} an animation may have in all. "
            "Use fewer frames or a smaller size.",
            code="file_too_many_pixels",
        )
    return None


def verify_image_decodes(file) -> None:
    """Decode every frame of ``file`` (a file object at any position; left at position 0).

    Raises ValidationError(code="damaged_image") if Pillow finds the data truncated or corrupt
    (bad chunk checksums included), or larger than Pillow's decompression-bomb limit.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            file.seek(0)
            with Image.open(file) as image:
                image.verify()  # structure and checksums (PNG CRCs), without decoding pixels
            file.seek(0)
            with Image.open(file) as image:
                for frame in range(getattr(image, "n_frames", 1)):
                    image.seek(frame)
                    image.load()
    except (*DECODE_ERRORS, Image.DecompressionBombError, Warning) as error:
        raise ValidationError(DAMAGED_IMAGE_MESSAGE, code="damaged_image") from error
    finally:
        file.seek(0)


class CheckedImageField(WagtailImageField):
    """WagtailImageField that counts pixels before decoding and refuses damaged files."""

    def to_python(self, data):
        frames = 1
        if data is not None and hasattr(data, "read"):
            counted = header_pixel_count(data)
            if counted is not None:
                frame_pixels, frames = counted
                error = pixel_budget_error(frame_pixels, frames, self.max_image_pixels)
                if error:
                    raise error
        try:
            file = super().to_python(data)
        except DECODE_ERRORS as error:
            raise ValidationError(DAMAGED_IMAGE_MESSAGE, code="damaged_image") from error
        if file is None or not hasattr(file, "read"):
            return file
        verify_image_decodes(file)
        converted = normalised_upload(file)
        if converted is not None:
            # Stored turned upright / in 8 bits (home/image_uploads/normalise.py); ``image`` and
            # ``content_type`` as WagtailImageField sets them, for the form's own checks.
            file = SimpleUploadedFile(file.name, converted, content_type=file.content_type)
            file.image = willow.Image.open(io.BytesIO(converted))
            file.content_type = file.image.mime_type
        file.frame_count = frames
        return file


class ImageUploadForm(BaseImageForm):
    """Wagtail's image form with ``CheckedImageField`` for the file (add, edit and multiple upload)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "file" in self.fields:
            old = self.fields["file"]
            self.fields["file"] = CheckedImageField(required=old.required, label=old.label, widget=old.widget)
