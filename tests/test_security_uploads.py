"""Uploads through the admin: size, pixel and content checks on images; safe document downloads."""

import io
import os
import zlib

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse

from wagtail.documents import get_document_model

import pytest
from PIL import Image

from home.image_uploads.checks import DAMAGED_IMAGE_MESSAGE
from home.models import SiteImage

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, django_user_model):
    user = django_user_model.objects.create_superuser("uploader", "u@example.com", "Upload-Pass-12345")
    client.force_login(user)
    return client


def png_bytes(width=1200, height=630, mode="RGB", color="teal") -> bytes:
    buffer = io.BytesIO()
    Image.new(mode, (width, height), color).save(buffer, "PNG")
    return buffer.getvalue()


def noise_png(width: int, height: int) -> bytes:
    """An incompressible PNG (random pixels): its file size is about width x height x 3 bytes."""
    buffer = io.BytesIO()
    Image.frombytes("RGB", (width, height), os.urandom(width * height * 3)).save(buffer, "PNG", compress_level=0)
    return buffer.getvalue()


def png_header_only(width: int, height: int) -> bytes:
    """A PNG that claims ``width`` x ``height`` pixels: a decompression bomb's header."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")

    ihdr = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 0, 0, 0, 0])
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 1024)) + chunk(b"IEND", b"")
    )


def upload_image(client, name: str, content: bytes):
    """POST the admin's "Add an image" form; return (response, errors on the file field)."""
    response = client.post(
        reverse("wagtailimages:add"),
        {"title": name, "file": SimpleUploadedFile(name, content), "description": "test image"},
    )
    errors = response.context["form"].errors.get("file", []) if response.status_code == 200 else []
    return response, " ".join(errors)


def test_a_valid_png_is_accepted(admin_client):
    before = SiteImage.objects.count()
    response, errors = upload_image(admin_client, "ok.png", png_bytes())
    assert response.status_code == 302, errors
    assert SiteImage.objects.count() == before + 1


def test_file_size_is_limited_by_the_setting(admin_client):
    assert settings.WAGTAILIMAGES_MAX_UPLOAD_SIZE == 10 * 1024 * 1024
    content = noise_png(1900, 1900)
    assert len(content) > settings.WAGTAILIMAGES_MAX_UPLOAD_SIZE
    response, errors = upload_image(admin_client, "big.png", content)
    assert response.status_code == 200
    assert "This file is too big" in errors and "10.0" in errors


def test_pixel_count_is_limited_by_the_setting(admin_client):
    # One frame may have IMAGE_MAX_FRAME_PIXELS; all frames of an animation together
    # WAGTAILIMAGES_MAX_IMAGE_PIXELS (home/image_uploads/checks.py, docs/images.md).
    assert settings.IMAGE_MAX_FRAME_PIXELS == 40_000_000
    # 7000 x 6000 = 42 million pixels of one colour: a small file, a large decoded image.
    content = png_bytes(7000, 6000, mode="L", color=0)
    assert len(content) < 1024 * 1024
    response, errors = upload_image(admin_client, "wide.png", content)
    assert response.status_code == 200
    assert "This image has 42,000,000 pixels, more than the 40,000,000" in errors


def test_a_decompression_bomb_header_is_refused_without_decoding(admin_client):
    response, errors = upload_image(admin_client, "bomb.png", png_header_only(50_000, 50_000))
    assert response.status_code == 200
    assert "too many pixels" in errors


def test_type_is_checked_by_content_not_by_name(admin_client):
    response, errors = upload_image(admin_client, "photo.jpg", png_bytes())
    assert response.status_code == 200
    assert "Not a valid .jpeg image" in errors and "(png)" in errors
    response, errors = upload_image(admin_client, "notes.png", b"just some text, not an image\n" * 20)
    assert response.status_code == 200
    assert "Upload a valid image" in errors


def test_a_script_disguised_as_a_gif_is_refused(admin_client):
    content = b"GIF89a" + b"/*" + b"\x00" * 7 + b"*/=alert(1);<script>alert(1)</script>"
    response, errors = upload_image(admin_client, "trick.gif", content)
    assert response.status_code == 200
    assert errors  # Wagtail or the decode check refuses it


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: data[: len(data) * 2 // 3], id="truncated"),
        pytest.param(lambda data: data[:-40] + bytes(b ^ 0xFF for b in data[-40:-20]) + data[-20:], id="corrupt-data"),
    ],
)
def test_damaged_images_are_refused_with_a_form_error(admin_client, damage):
    before = SiteImage.objects.count()
    content = damage(noise_png(120, 90))
    response, errors = upload_image(admin_client, "damaged.png", content)
    assert response.status_code == 200
    assert DAMAGED_IMAGE_MESSAGE in errors
    assert SiteImage.objects.count() == before


def test_wagtail_alone_fails_with_a_server_error_on_a_truncated_png(admin_client):
    """Why home.image_uploads.checks exists: Wagtail 8.0's field lets Pillow's OSError escape (a 500)."""
    content = noise_png(120, 90)
    with override_settings(WAGTAILIMAGES_IMAGE_FORM_BASE=""), pytest.raises(OSError, match="truncated"):
        upload_image(admin_client, "cut.png", content[: len(content) * 2 // 3])


def test_the_multiple_uploader_accepts_a_valid_image(admin_client):
    response = admin_client.post(
        reverse("wagtailimages:add_multiple"), {"files[]": SimpleUploadedFile("ok.png", png_bytes())}
    )
    assert response.status_code == 200
    assert response.json()["success"] is True, response.json()


def test_damaged_images_are_refused_by_the_multiple_uploader(admin_client):
    content = noise_png(120, 90)[:1500]
    response = admin_client.post(
        reverse("wagtailimages:add_multiple"),
        {"files[]": SimpleUploadedFile("cut.png", content)},
    )
    assert response.status_code == 200
    assert response.json()["success"] is False
    assert DAMAGED_IMAGE_MESSAGE in response.json()["error_message"]


def test_svg_is_not_accepted(admin_client):
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>'
    response, errors = upload_image(admin_client, "logo.svg", svg)
    assert response.status_code == 200
    assert "Not a supported image format" in errors or "Upload a valid image" in errors
    assert "svg" not in [ext.lower() for ext in settings.WAGTAILIMAGES_EXTENSIONS]


def make_document(name: str, content: bytes):
    Document = get_document_model()
    document = Document(title=name)
    document.file.save(name, ContentFile(content), save=False)
    document.save()
    return document


@pytest.mark.parametrize("name", ["report.pdf", "notes.txt", "figures.csv"])
def test_documents_download_as_attachments_with_safe_headers(client, name):
    document = make_document(name, b"%PDF-1.4 <html><script>alert(1)</script></html>")
    response = client.get(document.url)
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment;")
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Content-Security-Policy"] == "default-src 'none'"
    response.close()


def test_html_documents_cannot_be_uploaded(admin_client):
    response = admin_client.post(
        reverse("wagtaildocs:add"),
        {"title": "page", "file": SimpleUploadedFile("page.html", b"<script>alert(1)</script>")},
    )
    assert response.status_code == 200
    assert "file" in response.context["form"].errors
