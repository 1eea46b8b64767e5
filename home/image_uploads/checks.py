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
"""

import warnings

from django.core.exceptions import ValidationError

from wagtail.images.fields import WagtailImageField
from wagtail.images.forms import BaseImageForm

from PIL import Image

DAMAGED_IMAGE_MESSAGE = (
    "This image file is damaged or incomplete, so it cannot be shown. "
    "Export or download it again, then upload the new file."
)
# What Pillow raises for data it cannot decode.
DECODE_ERRORS = (OSError, SyntaxError, ValueError, EOFError, IndexError)


def header_pixel_count(file) -> int | None:
    """Width x height x frames from the image headers (no pixels decoded); None if Pillow cannot
    read it.

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
        raise ValidationError("This file has too many pixels.", code="file_too_many_pixels") from error
    except Exception:  # noqa: BLE001 - not an image Pillow knows; WagtailImageField says so
        return None
    finally:
        file.seek(0)
    return width * height * frames


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
        if data is not None and hasattr(data, "read") and self.max_image_pixels:
            pixels = header_pixel_count(data)
            if pixels is not None and pixels > self.max_image_pixels:
                raise ValidationError(
                    self.error_messages["file_too_many_pixels"]
                    % {"num_pixels": pixels, "max_pixels_count": self.max_image_pixels},
                    code="file_too_many_pixels",
                )
        try:
            file = super().to_python(data)
        except DECODE_ERRORS as error:
            raise ValidationError(DAMAGED_IMAGE_MESSAGE, code="damaged_image") from error
        if file is not None and hasattr(file, "read"):
            verify_image_decodes(file)
        return file


class ImageUploadForm(BaseImageForm):
    """Wagtail's image form with ``CheckedImageField`` for the file (add, edit and multiple upload)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "file" in self.fields:
            old = self.fields["file"]
            self.fields["file"] = CheckedImageField(required=old.required, label=old.label, widget=old.widget)
