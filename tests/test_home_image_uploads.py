"""Image uploads: frames count toward the pixel limit, and sizes are judged as readers see them."""

import io

from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

import pytest
from PIL import Image

from home.models import SiteImage

from .admin_forms import article_form_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, django_user_model):
    user = django_user_model.objects.create_superuser("uploader", "u@example.com", "Upload-Pass-12345")
    client.force_login(user)
    return client


def gif_bytes(width: int, height: int, frames: int) -> bytes:
    images = [Image.new("P", (width, height), index) for index in range(frames)]
    buffer = io.BytesIO()
    images[0].save(buffer, "GIF", save_all=True, append_images=images[1:])
    return buffer.getvalue()


def jpeg_bytes(width: int, height: int, orientation: int | None = None) -> bytes:
    exif = Image.Exif()
    if orientation:
        exif[0x0112] = orientation
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "teal").save(buffer, "JPEG", exif=exif.tobytes())
    return buffer.getvalue()


def upload_image(client, name: str, content: bytes):
    """POST the admin's "Add an image" form; return (response, errors on the file field)."""
    response = client.post(
        reverse("wagtailimages:add"),
        {"title": name, "file": SimpleUploadedFile(name, content), "description": "test image"},
    )
    errors = response.context["form"].errors.get("file", []) if response.status_code == 200 else []
    return response, " ".join(errors)


def test_an_animation_counts_every_frame_toward_the_pixel_limit(admin_client, settings):
    assert settings.WAGTAILIMAGES_MAX_IMAGE_PIXELS == 120_000_000
    before = SiteImage.objects.count()
    response, errors = upload_image(admin_client, "anim.gif", gif_bytes(1300, 700, 140))  # 127.4 MP
    assert response.status_code == 200
    assert "This file has too many pixels (127400000): 140 frames" in errors
    assert SiteImage.objects.count() == before


def test_a_short_animation_under_the_limit_is_accepted(admin_client):
    response, errors = upload_image(admin_client, "short.gif", gif_bytes(1300, 700, 3))
    assert response.status_code == 302, errors


def test_a_landscape_photo_stored_turned_by_exif_is_judged_as_shown(admin_client, demo):
    # Stored 700 x 1300 with orientation 6 ("rotate 90 CW"): readers see 1300 x 700.
    response, errors = upload_image(admin_client, "turned.jpg", jpeg_bytes(700, 1300, orientation=6))
    assert response.status_code == 302, errors
    image = SiteImage.objects.get(title="turned.jpg")

    # It is wide enough for an article card too.
    article = demo.articles[3]
    data = article_form_data(article.slug, image=image.pk)
    response = admin_client.post(reverse("wagtailadmin_pages:edit", args=(article.pk,)), data)
    assert response.status_code == 302, response.content.decode()[:2000]


def test_a_portrait_photo_is_still_too_small(admin_client):
    response, errors = upload_image(admin_client, "portrait.jpg", jpeg_bytes(700, 1300))
    assert response.status_code == 200
    assert "This image is 700x1300 pixels" in errors


# The focal point (home/image_uploads/focal_point.py): hidden fields the chooser fills in. An
# unreadable value or a point outside the image is one error naming the focal point.


def png_bytes(width: int = 1300, height: int = 700) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "teal").save(buffer, "PNG")
    return buffer.getvalue()


def add_with_focal_point(client, content: bytes = b"", name: str = "focal.png", **focal_point):
    """POST "Add an image" with the focal point fields (centre x, y; area width, height)."""
    data = {"title": name, "file": SimpleUploadedFile(name, content or png_bytes()), "description": "A test image."}
    data.update({f"focal_point_{key}": value for key, value in focal_point.items()})
    return client.post(reverse("wagtailimages:add"), data)


def banner(response) -> str:
    """The admin's message banner (where Wagtail lists a form's own errors)."""
    return response.content.decode().split('<div class="messages"', 1)[1].split("</ul>\n", 1)[0]


GOOD_FOCAL_POINT = {"x": "650", "y": "350", "width": "100", "height": "100"}
UNREADABLE = [
    ("x", "abc"),
    ("x", "12px"),
    ("x", "1e3"),
    ("x", "0x10"),
    ("x", "1.5"),
    ("x", "\x00"),
    ("y", "-1"),
    ("y", "-0.5"),
    ("height", "NaN"),
    ("height", "<script>"),
]


@pytest.mark.parametrize(("field", "value"), UNREADABLE, ids=[f"{f}={v!a}" for f, v in UNREADABLE])
def test_an_unreadable_focal_point_is_an_error_the_page_shows(admin_client, field, value):
    before = SiteImage.objects.count()
    response = add_with_focal_point(admin_client, **{**GOOD_FOCAL_POINT, field: value})
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert list(errors) == ["__all__"]  # no error left on a hidden field, where nothing shows it
    assert errors["__all__"][0].startswith(f"The focal point could not be read (focal point {field} “")
    shown = banner(response)
    assert "The image could not be created due to errors." in shown
    assert "The focal point could not be read" in shown and "<script>" not in shown
    assert SiteImage.objects.count() == before


@pytest.mark.parametrize("field", ["x", "y", "width", "height"])
def test_a_value_past_the_integer_range_is_a_focal_point_error(admin_client, field):
    """Unreadable where the database has an integer range (PostgreSQL), else outside the image."""
    response = add_with_focal_point(admin_client, **{**GOOD_FOCAL_POINT, field: "9" * 12})
    errors = response.context["form"].errors
    assert list(errors) == ["__all__"] and errors["__all__"][0].startswith("The focal point ")
    assert not SiteImage.objects.filter(title="focal.png").exists()


def test_every_unreadable_focal_point_value_is_named_once(admin_client):
    response = add_with_focal_point(admin_client, x="a", y="b", width="-1", height="10")
    (error,) = response.context["form"].errors["__all__"]
    assert "(focal point x “a”, focal point y “b”, focal point width “-1”)" in error


OUTSIDE = [
    (5000, 5000, 20, 20),  # the tester's: far outside a 1300x700 image
    (1300, 350, 100, 100),  # on the right edge, its area past it
    (650, 0, 100, 100),  # on the top edge, its area above it
    (650, 350, 1400, 100),  # an area wider than the image
    (650, 700, 10, 10),
    (1302, 10, 0, 0),  # a point just right of the image
]
INSIDE = [
    (650, 350, 100, 100),
    (1299, 699, 1, 1),
    (650, 350, 1300, 700),  # the whole image
    (0, 0, 0, 0),  # the top-left corner
    (2, 2, 5, 5),  # the chooser's rounding: centre 2 of a 5-pixel area from 0
    (1298, 698, 5, 5),
]


@pytest.mark.parametrize("focal_point", OUTSIDE, ids=str)
def test_a_focal_point_outside_the_image_is_refused(admin_client, focal_point):
    x, y, width, height = focal_point
    response = add_with_focal_point(admin_client, x=x, y=y, width=width, height=height)
    assert response.status_code == 200
    (error,) = response.context["form"].errors["__all__"]
    assert error == (
        f"The focal point (centre {x}, {y}; area {width}x{height} pixels) is not inside this 1300x700 image. "
        "Set the focal point again on the image, or remove it."
    )
    assert error in banner(response)
    assert not SiteImage.objects.filter(title="focal.png").exists()


INCOMPLETE = [
    {"x": "10"},
    {"x": "650", "y": "350"},
    {"x": "650", "y": "350", "width": "100"},
    {"width": "100", "height": "100"},
    {"y": "0", "height": "0"},
]


@pytest.mark.parametrize("focal_point", INCOMPLETE, ids=str)
def test_an_incomplete_focal_point_is_refused(admin_client, focal_point):
    """Wagtail ignores a focal point without all four values: stored, it looked set and did nothing."""
    response = add_with_focal_point(admin_client, **focal_point)
    assert response.status_code == 200
    (error,) = response.context["form"].errors["__all__"]
    assert error.startswith("The focal point is incomplete (it needs its centre and its area).")
    assert error in banner(response)
    assert not SiteImage.objects.filter(title="focal.png").exists()


@pytest.mark.parametrize("focal_point", INSIDE, ids=str)
def test_a_focal_point_inside_the_image_is_saved(admin_client, focal_point):
    x, y, width, height = focal_point
    response = add_with_focal_point(admin_client, x=x, y=y, width=width, height=height)
    assert response.status_code == 302, response.context["form"].errors
    image = SiteImage.objects.get(title="focal.png")
    assert (image.focal_point_x, image.focal_point_y, image.focal_point_width, image.focal_point_height) == focal_point


def test_a_turned_photo_is_judged_the_way_up_it_is_stored(admin_client):
    """Stored 700x1300 with orientation 6, kept upright (1300x700): x=1000 is inside."""
    turned = jpeg_bytes(700, 1300, orientation=6)
    response = add_with_focal_point(admin_client, turned, "turned.jpg", x=1000, y=350, width=100, height=100)
    assert response.status_code == 302, response.context["form"].errors
    response = add_with_focal_point(admin_client, turned, "turned-2.jpg", x=350, y=1000, width=100, height=100)
    assert "is not inside this 1300x700 image" in response.context["form"].errors["__all__"][0]


def edit_image(client, image, **changes):
    """POST the image's edit form with its current values and ``changes``."""
    url = reverse("wagtailimages:edit", args=(image.pk,))
    form = client.get(url).context["form"]
    values = {name: form[name].value() for name in form.fields if name not in ("file", "tags")}
    values = {name: value for name, value in values.items() if value is not None}
    return client.post(url, {**values, "tags": "", **changes})


def test_replacing_the_file_with_a_smaller_one_checks_the_kept_focal_point(admin_client):
    assert (
        add_with_focal_point(admin_client, png_bytes(2400, 1350), x=2000, y=1000, width=200, height=200).status_code
        == 302
    )
    image = SiteImage.objects.get(title="focal.png")
    smaller = SimpleUploadedFile("smaller.png", png_bytes(1300, 700))
    response = edit_image(admin_client, image, file=smaller)
    assert response.status_code == 200
    assert "is not inside this 1300x700 image" in response.context["form"].errors["__all__"][0]
    # Moved inside (or removed), the new file is saved.
    smaller = SimpleUploadedFile("smaller.png", png_bytes(1300, 700))
    response = edit_image(admin_client, image, file=smaller, focal_point_x="650", focal_point_y="350")
    assert response.status_code == 302
    assert SiteImage.objects.get(pk=image.pk).width == 1300


def test_an_image_saved_with_a_point_outside_can_still_be_retitled(admin_client):
    """The check judges a changed focal point or file; one stored before it does not block other edits."""
    assert add_with_focal_point(admin_client, x=650, y=350, width=100, height=100).status_code == 302
    SiteImage.objects.filter(title="focal.png").update(focal_point_x=5000, focal_point_y=5000)
    image = SiteImage.objects.get(title="focal.png")
    response = edit_image(admin_client, image, title="Renamed")
    assert response.status_code == 302
    assert SiteImage.objects.get(pk=image.pk).title == "Renamed"
