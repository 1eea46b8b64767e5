"""Minimum image sizes for the crops the templates make, and the message for images below them."""

from PIL import ExifTags, Image

# The renditions the templates crop: article cards and heroes at 1200x675 (16:9) and the social
# sharing image at 1200x630 (the Open Graph size Facebook and LinkedIn recommend). Every library
# image must at least fill the social crop; the article form checks the larger card size.
CARD_IMAGE_MIN_SIZE = (1200, 675)
SOCIAL_IMAGE_MIN_SIZE = (1200, 630)
LIBRARY_MIN_SIZE = SOCIAL_IMAGE_MIN_SIZE


def too_small_message(width: int, height: int, minimum: tuple[int, int], use: str) -> str | None:
    """The error for an image of ``width`` x ``height`` px used for ``use``, or None if it is big enough."""
    min_width, min_height = minimum
    if width >= min_width and height >= min_height:
        return None
    return (
        f"This image is {width}x{height} pixels, too small for {use} (at least "
        f"{min_width}x{min_height} pixels). Choose or upload a larger image."
    )


# EXIF orientations 5-8 store the picture turned a quarter (EXIF 2.3, tag 0x0112 "Orientation");
# Wagtail applies the tag when it makes renditions (Willow's auto_orient, Pillow's exif_transpose),
# so readers see width and height swapped.
_QUARTER_TURN_ORIENTATIONS = {5, 6, 7, 8}


def displayed_size(file, stored_size: tuple[int, int]) -> tuple[int, int]:
    """``(width, height)`` in pixels as readers see the image: ``stored_size`` (the size in the
    file, which Wagtail records) swapped when the file's EXIF orientation turns it a quarter.

    ``file`` is an open image file (read from its start, headers only; left at position 0).
    Without readable EXIF data ``stored_size`` is returned.
    """
    try:
        file.seek(0)
        with Image.open(file) as image:
            orientation = image.getexif().get(ExifTags.Base.Orientation)
    except Exception:  # noqa: BLE001 - unreadable headers: the upload checks report those
        orientation = None
    finally:
        file.seek(0)
    width, height = stored_size
    return (height, width) if orientation in _QUARTER_TURN_ORIENTATIONS else (width, height)
