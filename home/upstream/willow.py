"""Willow: AVIF renditions with a chosen encoder speed, and renditions without the source's EXIF
(docs/upstream.md, "Willow: AVIF encoder speed" and "Willow: EXIF copied into renditions").

Willow (Wagtail's image library) saves AVIF with Pillow's default libavif speed, 6, and offers
no setting for it. On the site's 1200x675 card illustrations speed 6 took about six times the
CPU of speed 8 (0.66 s against 0.11 s a rendition, measured with Pillow 13 on this project's
2-core machine) for files about a third larger; every article image gets four AVIF sizes on
publish (``blog.renditions``), and ``make setup`` publishes the 98 demo articles.

``install()`` installs, for Pillow images, a ``save_as_avif`` operation that is Willow's own
(``willow.plugins.pillow.PillowImage.save_as_avif``, including its CMYK handling) plus the
``speed`` from ``settings.WAGTAILIMAGES_AVIF_SPEED`` (0 slowest and smallest, 10 fastest).
Our own code because neither Wagtail, Willow nor Pillow has a setting for it.
"""

from django.conf import settings

from willow.image import AvifImageFile
from willow.plugins.pillow import PillowImage
from willow.registry import registry

DEFAULT_SPEED = 8

# Willow's own operation, kept before ``install`` replaces it (tests/test_home_upstream.py checks
# that it still has no speed parameter).
WILLOW_SAVE_AS_AVIF = PillowImage.save_as_avif


def save_as_avif(image: PillowImage, f, quality: int = 80, lossless: bool = False, apply_optimizers: bool = True):
    """Write ``image`` to the file object ``f`` as AVIF; ``quality`` 0-100 (Wagtail passes
    ``WAGTAILIMAGES_AVIF_QUALITY``), ``lossless`` keeps every pixel. Returns an AvifImageFile."""
    kwargs = {"quality": quality}
    if lossless:
        # As Willow: quality 100 means lossless to libavif, and 4:4:4 keeps full colour detail.
        kwargs = {"quality": 100, "subsampling": "4:4:4"}
    kwargs["speed"] = getattr(settings, "WAGTAILIMAGES_AVIF_SPEED", DEFAULT_SPEED)

    pillow_image = image.image
    icc_profile = image.get_icc_profile()
    if icc_profile is not None:
        if pillow_image.mode == "CMYK":
            # AVIF is RGB: convert to sRGB rather than keep a CMYK profile (as Willow does).
            converted = image.transform_colorspace_to_srgb()
            pillow_image = converted.image
            kwargs["icc_profile"] = converted.get_icc_profile()
        else:
            kwargs["icc_profile"] = icc_profile

    pillow_image.save(f, "AVIF", **kwargs)
    if not lossless and apply_optimizers:
        image.optimize(f, "heic")  # Willow's optimizer name for AVIF and HEIC
    return AvifImageFile(f)


# Willow's own operation, kept before ``install`` replaces it (tests/test_home_upstream.py checks
# that it still returns the source's EXIF block).
WILLOW_GET_EXIF_DATA = PillowImage.get_exif_data


def no_exif_data(image: PillowImage) -> None:
    """No EXIF block for renditions: Willow's ``save_as_jpeg`` and ``save_as_png`` write whatever
    ``get_exif_data`` returns, which is the source's whole block (camera, serial number, GPS
    position). Renditions are turned upright first (``auto_orient``), so the orientation tag, the
    one EXIF field a browser uses, is not needed either. Willow has no setting for this."""
    return None


def install():
    """Replace Willow's ``save_as_avif`` for Pillow images (called from ``home.upstream.install``): in its
    registry, for images converted to PillowImage, and on the class itself, because an image that
    already is a PillowImage finds the method by plain attribute lookup."""
    registry.register_operation(PillowImage, "save_as_avif", save_as_avif)
    PillowImage.save_as_avif = save_as_avif
    registry.register_operation(PillowImage, "get_exif_data", no_exif_data)
    PillowImage.get_exif_data = no_exif_data
