"""EXIF orientation and metadata: stored width and height are the displayed ones, and renditions
carry no camera or location data (home/image_uploads/normalise.py, docs/images.md)."""

import io

import pytest
from PIL import ExifTags, Image

from home.models import SiteImage

from .image_fixtures import admin_upload, encode

pytestmark = pytest.mark.django_db

DISPLAYED = (1300, 700)
# How each EXIF orientation (EXIF 2.3, tag 0x0112) was stored, as the transpose that makes the
# stored pixels from the displayed ones (the inverse of what a viewer applies).
STORED_BY = {
    1: None,
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_90,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_270,
}
CAMERA = "CedanaCam X100"
GPS_LATITUDE = (51.0, 30.0, 0.0)


@pytest.fixture
def admin_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("exif", "e@example.com", "Exif-Pass-123456"))
    return client


def photo(orientation: int, image_format: str = "JPEG") -> bytes:
    """A 1300x700 picture as displayed (red top-left quarter on blue), stored as ``orientation``
    says, with a camera make and model and a GPS position in its EXIF."""
    displayed = Image.new("RGB", DISPLAYED, (20, 40, 200))
    displayed.paste((220, 20, 20), (0, 0, DISPLAYED[0] // 2, DISPLAYED[1] // 2))
    stored = displayed.transpose(STORED_BY[orientation]) if STORED_BY[orientation] is not None else displayed
    exif = Image.Exif()
    exif[ExifTags.Base.Orientation] = orientation
    exif[ExifTags.Base.Make] = "Cedana"
    exif[ExifTags.Base.Model] = CAMERA
    exif.get_ifd(ExifTags.IFD.GPSInfo).update(
        {ExifTags.GPS.GPSLatitudeRef: "N", ExifTags.GPS.GPSLatitude: GPS_LATITUDE}
    )
    options = {"quality": 95} if image_format == "JPEG" else {}
    return encode(stored, image_format, exif=exif.tobytes(), **options)


def top_left_is_red(image: Image.Image) -> bool:
    width, height = image.size
    red, green, blue = image.convert("RGB").getpixel((width // 8, height // 8))
    return red > 150 and blue < 100


@pytest.mark.parametrize("orientation", sorted(STORED_BY))
def test_the_stored_size_and_pixels_are_the_displayed_ones(admin_client, client, orientation):
    response, errors = admin_upload(admin_client, f"o{orientation}.jpg", photo(orientation))
    assert response.status_code == 302, errors
    image = SiteImage.objects.get(title=f"o{orientation}.jpg")
    assert (image.width, image.height) == DISPLAYED

    with image.file.open() as file, Image.open(file) as original:
        assert original.size == DISPLAYED
        assert original.getexif().get(ExifTags.Base.Orientation) in (None, 1)
        assert top_left_is_red(original)
    rendition = image.get_rendition("width-400|format-png")
    assert (rendition.width, rendition.height) == (400, 215)
    with rendition.file.open() as file, Image.open(file) as made:
        assert top_left_is_red(made)

    api = client.get(f"/api/v2/images/{image.pk}/")
    if api.status_code == 200:  # the API lists only images in use or in public collections
        assert (api.json()["width"], api.json()["height"]) == DISPLAYED


@pytest.mark.parametrize("orientation", [1, 6])  # stored as uploaded, and re-encoded upright
@pytest.mark.parametrize("image_format", ["avif", "webp", "png", "jpeg"])
def test_renditions_carry_no_camera_or_location_data(admin_client, orientation, image_format):
    source = photo(orientation)
    with Image.open(io.BytesIO(source)) as check:  # the fixture does carry them
        assert check.getexif()[ExifTags.Base.Model] == CAMERA
        assert check.getexif().get_ifd(ExifTags.IFD.GPSInfo)
    response, errors = admin_upload(admin_client, "camera.jpg", source)
    assert response.status_code == 302, errors
    image = SiteImage.objects.get(title="camera.jpg")

    rendition = image.get_rendition(f"width-300|format-{image_format}")
    with rendition.file.open() as file:
        data = file.read()
    assert CAMERA.encode() not in data  # neither in EXIF nor in XMP
    with Image.open(io.BytesIO(data)) as made:
        exif = made.getexif()
        assert ExifTags.Base.Make not in exif and ExifTags.Base.Model not in exif
        assert not exif.get_ifd(ExifTags.IFD.GPSInfo)
