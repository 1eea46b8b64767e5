"""What an upload is turned into before it is stored: pixels as readers see them, in 8 bits.

Policy (docs/images.md): the stored original is what renditions are made from and, for
animations and for very large images whose renditions are not made yet, what readers are served
(``home.templatetags.image_tags``). Two kinds of upload are stored converted:

- a photo whose EXIF orientation (EXIF 2.3, tag 0x0112) is not "top-left" is stored turned, so
  that the width and height Wagtail records (the admin's, the API's and ``{% picture %}``'s
  ``width``/``height`` attributes) are the displayed ones, and the focal point an editor sets is
  on the picture they see. Wagtail records the size in the file and turns only its renditions.
- 16-bit grey PNG (Pillow's modes ``I;16``, ``I;16B``, ``I``) is stored as 8-bit grey: Pillow
  clips rather than scales those values when Willow converts them to RGB for WebP and AVIF (a
  mid-grey 0x8000 became white in every format), and a JPEG rendition of them fails.

- a CMYK JPEG is stored as sRGB: through its embedded ICC profile with LittleCMS
  (``PIL.ImageCms``, as Willow does for its WebP and AVIF output), or, without a profile,
  with Pillow's plain conversion (what browsers do for an untagged CMYK JPEG). Willow keeps
  CMYK, and its profile, in JPEG renditions, which are then not sRGB.

Everything else is stored byte for byte as uploaded. A converted file is re-encoded in its own
format (JPEG at quality 95, once) and carries its ICC profile but no EXIF block: the camera and
location data go with it. Our own code, at upload in the form, because Wagtail has no hook
between the upload and the stored file, and converting once is cheaper than converting in every
rendition (a custom filter operation would have to be named in every spec).
"""

import io

from PIL import ExifTags, Image, ImageCms, ImageOps

# Pillow's modes for 16- and 32-bit integer grey (what a 16-bit grey PNG opens as).
WIDE_GREY_MODES = {"I;16", "I;16B", "I;16L", "I;16N", "I"}
# Orientation 1 is "top-left", the file's own; 0 and missing mean the same to readers.
UPRIGHT = {None, 0, 1}
JPEG_QUALITY = 95


def eight_bit_grey(image: Image.Image) -> Image.Image:
    """``image`` (a 16-bit grey mode) as mode ``L``, 0-65535 scaled to 0-255 (not clipped)."""
    return image.convert("I").point(lambda value: value * (255 / 65535)).convert("L")


def cmyk_to_srgb(image: Image.Image, icc_profile: bytes | None) -> Image.Image:
    """``image`` (mode ``CMYK``) as ``RGB`` in sRGB, through ``icc_profile`` (ICC bytes) if given,
    with the perceptual intent. Raises ``ImageCms.PyCMSError`` for a profile LittleCMS refuses."""
    if not icc_profile:
        return image.convert("RGB")
    source = ImageCms.ImageCmsProfile(io.BytesIO(icc_profile))
    return ImageCms.profileToProfile(image, source, ImageCms.createProfile("sRGB"), outputMode="RGB")


def normalised_upload(file) -> bytes | None:
    """The bytes to store instead of ``file`` (an open image file; left at position 0), in the
    same format, or None when it is stored as uploaded: animations (kept as they are), upright
    8-bit images, and files Pillow cannot read (the upload checks report those)."""
    try:
        file.seek(0)
        with Image.open(file) as image:
            if getattr(image, "n_frames", 1) > 1:
                return None
            orientation = image.getexif().get(ExifTags.Base.Orientation)
            wide = image.mode in WIDE_GREY_MODES
            cmyk = image.mode == "CMYK"
            if orientation in UPRIGHT and not wide and not cmyk:
                return None
            image_format = image.format
            icc_profile = image.info.get("icc_profile")
            image.load()
            converted = ImageOps.exif_transpose(image) if orientation not in UPRIGHT else image.copy()
    except Exception:  # noqa: BLE001 - unreadable: CheckedImageField reports it
        return None
    finally:
        file.seek(0)
    if wide:
        converted = eight_bit_grey(converted)
    if cmyk:
        try:
            converted = cmyk_to_srgb(converted, icc_profile)
        except ImageCms.PyCMSError:
            converted = converted.convert("RGB")  # a broken profile: as if there were none
        icc_profile = None  # sRGB, which is what browsers assume without a profile
    options = {"icc_profile": icc_profile} if icc_profile else {}
    if image_format == "JPEG":
        # 4:4:4 chroma: a re-encoded original keeps its colour detail.
        options.update(quality=JPEG_QUALITY, subsampling=0)
    buffer = io.BytesIO()
    converted.save(buffer, image_format, **options)  # no exif=: camera and location data are dropped
    return buffer.getvalue()
