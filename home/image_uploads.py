"""Image upload checks beyond Wagtail's own (``WAGTAILIMAGES_IMAGE_FORM_BASE``).

Wagtail's ``WagtailImageField`` already refuses, by content not by name: files that are not
images, a format that does not match the extension (a PSD renamed ``.jpg``), extensions outside
``WAGTAILIMAGES_EXTENSIONS`` (so SVG), files over ``WAGTAILIMAGES_MAX_UPLOAD_SIZE`` bytes and
images over ``WAGTAILIMAGES_MAX_IMAGE_PIXELS`` pixels (width x height x frames). It reads only
the header, though, so a truncated or corrupt file passes and fails later, when a rendition is
made for a reader's page. ``ImageUploadForm`` decodes every frame once at upload instead.
"""

import warnings

from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile

from wagtail.images.forms import BaseImageForm

from PIL import Image

DAMAGED_IMAGE_MESSAGE = (
    "This image file is damaged or incomplete, so it cannot be shown. "
    "Export or download it again, then upload the new file."
)


def verify_image_decodes(file) -> None:
    """Decode every frame of ``file`` (a file object at any position; left at position 0).

    Raises ValidationError(code="damaged_image") if Pillow finds the data truncated or corrupt
    (bad chunk checksums included), or if it is larger than Pillow's decompression-bomb limit.
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
    except (OSError, SyntaxError, ValueError, EOFError, Image.DecompressionBombError, Warning) as error:
        raise ValidationError(DAMAGED_IMAGE_MESSAGE, code="damaged_image") from error
    finally:
        file.seek(0)


class ImageUploadForm(BaseImageForm):
    """Wagtail's image form plus ``verify_image_decodes`` on each newly uploaded file."""

    def clean_file(self):
        file = self.cleaned_data.get("file")
        # Only new uploads: an edit that keeps the stored file has nothing to re-check.
        if isinstance(file, UploadedFile):
            verify_image_decodes(file)
        return file
