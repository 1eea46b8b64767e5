"""Every colour mode Pillow opens gives sRGB renditions of the source's colour in every format the
site serves (home/image_uploads/normalise.py, docs/images.md "Colour")."""

import io

import pytest
from PIL import Image, ImageCms, ImageStat

from home.models import SiteImage

from .image_fixtures import SIZE, admin_upload, cmyk_icc_profile, encode, png_16_bit

pytestmark = pytest.mark.django_db

# AVIF, WebP and PNG are what {% picture %} offers; JPEG is Wagtail's default for JPEG originals.
FORMATS = ["avif", "webp", "png", "jpeg"]
# Lossy AVIF (quality 60) and WebP (80) move a flat colour by a few levels at most.
TOLERANCE = 6
CMYK_INK = (0, 128, 255, 30)  # an orange


def over_white(rgb, alpha: float = 1.0) -> tuple[float, ...]:
    """The sRGB colour of ``rgb`` (0-255) at ``alpha`` (0-1) on a white page."""
    return tuple(c * alpha + 255 * (1 - alpha) for c in rgb)


def half_transparent_palette(image_format: str) -> bytes:
    """Palette image: left half opaque red-orange, right half the transparent palette entry."""
    image = Image.new("P", SIZE, 1)
    image.putpalette([200, 50, 20, 0, 0, 255])
    image.paste(0, (0, 0, SIZE[0] // 2, SIZE[1]))
    return encode(image, image_format, transparency=1)


def half_black_bilevel() -> bytes:
    image = Image.new("1", SIZE, 1)
    image.paste(0, (0, 0, SIZE[0] // 2, SIZE[1]))
    return encode(image, "PNG")


def cmyk_with_profile_expected() -> tuple[float, ...]:
    """What LittleCMS makes of ``CMYK_INK`` through the test profile (Willow's perceptual intent)."""
    profile = ImageCms.ImageCmsProfile(io.BytesIO(cmyk_icc_profile()))
    srgb = ImageCms.profileToProfile(
        Image.new("CMYK", (4, 4), CMYK_INK), profile, ImageCms.createProfile("sRGB"), outputMode="RGB"
    )
    return tuple(ImageStat.Stat(srgb).mean)


# (case, file name, file bytes, the sRGB colour readers should see on white)
CASES = [
    (
        "rgb-8-bit-jpeg",
        "rgb.jpg",
        lambda: encode(Image.new("RGB", SIZE, (30, 120, 200)), "JPEG", quality=95),
        (30, 120, 200),
    ),
    ("rgb-16-bit-png", "rgb16.png", lambda: png_16_bit(SIZE, 2, (0x2000, 0x8000, 0xC000)), (32, 128, 192)),
    (
        "rgba-16-bit-png",
        "rgba16.png",
        lambda: png_16_bit(SIZE, 6, (0x2000, 0x8000, 0xC000, 0x8000)),
        over_white((32, 128, 192), 0.5),
    ),
    ("grey-16-bit-png", "grey16.png", lambda: png_16_bit(SIZE, 0, (0x8000,)), (128, 128, 128)),
    ("i16-pillow-png", "i16.png", lambda: encode(Image.new("I;16", SIZE, 0x4000), "PNG"), (64, 64, 64)),
    (
        "grey-alpha-16-bit-png",
        "greyalpha16.png",
        lambda: png_16_bit(SIZE, 4, (0x4000, 0x8000)),
        over_white((64, 64, 64), 0.5),
    ),
    ("grey-l-png", "grey.png", lambda: encode(Image.new("L", SIZE, 100), "PNG"), (100, 100, 100)),
    (
        "grey-alpha-la-png",
        "la.png",
        lambda: encode(Image.new("LA", SIZE, (100, 128)), "PNG"),
        over_white((100, 100, 100), 128 / 255),
    ),
    (
        "rgba-png",
        "rgba.png",
        lambda: encode(Image.new("RGBA", SIZE, (10, 200, 30, 128)), "PNG"),
        over_white((10, 200, 30), 128 / 255),
    ),
    (
        "rgba-webp",
        "rgba.webp",
        lambda: encode(Image.new("RGBA", SIZE, (10, 200, 30, 128)), "WEBP", lossless=True),
        over_white((10, 200, 30), 128 / 255),
    ),
    ("palette-transparency-png", "p.png", lambda: half_transparent_palette("PNG"), over_white((200, 50, 20), 0.5)),
    ("palette-transparency-gif", "p.gif", lambda: half_transparent_palette("GIF"), over_white((200, 50, 20), 0.5)),
    ("bilevel-png", "bilevel.png", half_black_bilevel, (127.5, 127.5, 127.5)),
    (
        "cmyk-jpeg-no-profile",
        "cmyk.jpg",
        lambda: encode(Image.new("CMYK", SIZE, CMYK_INK), "JPEG", quality=95),
        (225, 112, 0),  # Pillow's plain conversion, as browsers show an untagged CMYK JPEG
    ),
    (
        "cmyk-jpeg-with-profile",
        "cmykicc.jpg",
        lambda: encode(Image.new("CMYK", SIZE, CMYK_INK), "JPEG", quality=95, icc_profile=cmyk_icc_profile()),
        cmyk_with_profile_expected,
    ),
]


@pytest.fixture
def admin_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("colours", "c@example.com", "Colour-Pass-12345"))
    return client


def seen_on_white(data: bytes) -> tuple[float, ...]:
    with Image.open(io.BytesIO(data)) as image:
        rgba = image.convert("RGBA")
    page = Image.new("RGBA", rgba.size, "white")
    return tuple(ImageStat.Stat(Image.alpha_composite(page, rgba).convert("RGB")).mean)


def test_the_profile_case_differs_from_the_plain_conversion():
    """Otherwise the profile case would pass without the profile being used."""
    assert max(abs(a - b) for a, b in zip(cmyk_with_profile_expected(), (225, 112, 0), strict=True)) > 20


@pytest.mark.parametrize(("name", "expected"), [(case[1], case[3]) for case in CASES], ids=[case[0] for case in CASES])
@pytest.mark.parametrize("image_format", FORMATS)
def test_renditions_show_the_source_colour_in_srgb(admin_client, name, expected, image_format):
    content = next(case[2] for case in CASES if case[1] == name)()
    response, errors = admin_upload(admin_client, name, content)
    assert response.status_code == 302, errors
    image = SiteImage.objects.get(title=name)
    expected = expected() if callable(expected) else expected

    rendition = image.get_rendition(f"width-120|format-{image_format}")
    with rendition.file.open() as file:
        data = file.read()
    with Image.open(io.BytesIO(data)) as made:
        assert made.format == {"jpeg": "JPEG", "png": "PNG", "webp": "WEBP", "avif": "AVIF"}[image_format]
        assert made.mode in {"RGB", "RGBA", "L", "LA", "P"}, made.mode  # no CMYK, no 16-bit
        assert made.info.get("icc_profile") in (None, b""), "sRGB renditions carry no other profile"
    seen = seen_on_white(data)
    assert all(abs(a - b) <= TOLERANCE for a, b in zip(seen, expected, strict=True)), (seen, expected)
