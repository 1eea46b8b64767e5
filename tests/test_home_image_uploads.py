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
