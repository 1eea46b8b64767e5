"""The multiple image uploader flags each image without alt text until it has one (issue 16)."""

import io

from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

import pytest
from PIL import Image

from home.image_uploads.forms import MISSING_ALT_FLAG
from home.models import SiteImage

pytestmark = pytest.mark.django_db


def png(width=1400, height=900):
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (40, 90, 160)).save(buffer, "PNG")
    return buffer.getvalue()


def upload(client, name="rack.png"):
    response = client.post(reverse("wagtailimages:add_multiple"), {"files[]": SimpleUploadedFile(name, png())})
    assert response.status_code == 200
    data = response.json()
    assert data["success"] is True, data
    return data


def test_each_uploaded_image_without_alt_text_is_flagged(admin_client):
    first, second = upload(admin_client, "one.png"), upload(admin_client, "two.png")
    for data in (first, second):
        assert MISSING_ALT_FLAG in data["form"]
        assert "missing-alt" in data["form"]
    assert not SiteImage.objects.filter(title__in=["one", "two"]).exists()  # not an image until described


@pytest.mark.parametrize("description", ["", "   ", "\t\n"])
def test_the_flag_stays_until_the_image_has_alt_text(admin_client, description):
    data = upload(admin_client)
    upload_id = data["uploaded_file_id"]
    url = reverse("wagtailimages:create_multiple_from_uploaded_image", args=(upload_id,))
    prefix = f"uploaded-image-{upload_id}"
    refused = admin_client.post(url, {f"{prefix}-title": "Rack", f"{prefix}-description": description})
    assert refused.json()["success"] is False
    assert MISSING_ALT_FLAG in refused.json()["form"]
    accepted = admin_client.post(url, {f"{prefix}-title": "Rack", f"{prefix}-description": "A GPU rack."})
    assert accepted.json()["success"] is True, accepted.json()
    image = SiteImage.objects.get(pk=accepted.json()["image_id"])
    assert image.description == "A GPU rack."
    edit_page = admin_client.get(reverse("wagtailimages:edit", args=(image.pk,))).content.decode()
    assert MISSING_ALT_FLAG not in edit_page and "missing-alt" not in edit_page


def test_a_saved_image_without_alt_text_is_flagged_in_its_edit_form(admin_client):
    from .factories import SiteImageFactory

    image = SiteImageFactory(description="")
    html = admin_client.get(reverse("wagtailimages:edit", args=(image.pk,))).content.decode()
    assert MISSING_ALT_FLAG in html


def test_the_upload_list_hides_plain_success_for_flagged_images():
    from django.contrib.staticfiles import finders

    with open(finders.find("css/admin/editor.css")) as file:
        css = file.read()
    assert ".upload-list > li:has(.missing-alt) .status-msg.success" in css
