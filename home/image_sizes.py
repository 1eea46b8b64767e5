"""Minimum image sizes for the crops the templates make, and the message for images below them."""

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
