"""Media on S3-compatible object storage: uploads, renditions, pages and Wagtail's image serve view.

A moto S3 server on a loopback port (8900-8999) stands in for the bucket. The storage settings
are the ones ``config.settings.base.media_storage()`` builds from the environment, as on a
production app server with ``AWS_STORAGE_BUCKET_NAME`` set. Runs on SQLite and PostgreSQL.

Wagtail's image serve view (dynamic renditions from signed URLs) is not routed in
``config/urls.py``: the site's templates make renditions with ``{% picture %}`` and ``{% image %}``
and never link to it. The tests mount it on a test-only URLconf to prove it works with remote
storage should a later feature need it.
"""

import io
import re
import socket
import urllib.error
import urllib.request
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

from django.core.cache import caches
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import include, path, re_path, reverse

from wagtail.documents import get_document_model
from wagtail.images.utils import generate_signature
from wagtail.images.views.serve import ServeView

import boto3
import pytest
from moto.server import ThreadedMotoServer
from PIL import Image

from config.settings.base import media_origins, media_storage
from home.models import SiteImage

# One pytest-xdist worker starts the module's S3 server, once.
pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("remote-storage")]

BUCKET = "cedana-test-media"
# The bucket policy docs/deployment.md tells operators to apply: readers may fetch image
# renditions; originals and documents stay private (documents go through Wagtail's serve view).
POLICY = Path(__file__).resolve().parent.parent / "docs" / "deploy" / "s3-media-policy.json"

urlpatterns = [
    re_path(r"^images/([^/]*)/(\d*)/([^/]*)/[^/]*$", ServeView.as_view(), name="wagtailimages_serve"),
    re_path(
        r"^images-redirect/([^/]*)/(\d*)/([^/]*)/[^/]*$",
        ServeView.as_view(action="redirect"),
        name="wagtailimages_serve_redirect",
    ),
    path("", include("config.urls")),
]


def loopback_port(first: int = 8900, last: int = 8999) -> int:
    """A free loopback port in this project's range for issue 9's servers."""
    for port in range(first, last + 1):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {first}-{last}")


@pytest.fixture(scope="module")
def s3():
    """A moto S3 server with one empty bucket, and the environment a production server would have."""
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=loopback_port(), verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    try:
        with pytest.MonkeyPatch.context() as env:
            for name in ("AWS_S3_CUSTOM_DOMAIN", "AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_LOCATION"):
                env.delenv(name, raising=False)
            # Keep a developer's own AWS files out of it; moto accepts any key.
            env.setenv("AWS_CONFIG_FILE", "/nonexistent")
            env.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
            env.setenv("AWS_ACCESS_KEY_ID", "testing")
            env.setenv("AWS_SECRET_ACCESS_KEY", "testing")
            env.setenv("AWS_STORAGE_BUCKET_NAME", BUCKET)
            env.setenv("AWS_S3_ENDPOINT_URL", endpoint)
            env.setenv("AWS_S3_REGION_NAME", "us-east-1")
            client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
            client.create_bucket(Bucket=BUCKET)
            client.put_bucket_policy(Bucket=BUCKET, Policy=POLICY.read_text().replace("cedana-blog-media", BUCKET))
            yield SimpleNamespace(endpoint=endpoint, client=client, storage=media_storage(), origins=media_origins())
    finally:
        server.stop()


@pytest.fixture
def remote_media(s3, settings):
    """Point Django's default storage (uploads and renditions) at the bucket for one test."""
    settings.STORAGES = {**settings.STORAGES, "default": s3.storage}
    caches["renditions"].clear()  # rendition lookups cached by earlier tests name local files
    yield s3
    caches["renditions"].clear()


def bucket_keys(s3, prefix: str) -> set[str]:
    listing = s3.client.list_objects_v2(Bucket=BUCKET, Prefix=prefix)
    return {item["Key"] for item in listing.get("Contents", [])}


def png_bytes(width: int, height: int, color: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buffer, "PNG")
    return buffer.getvalue()


def fetch(url: str) -> tuple[int, str, bytes]:
    """GET a media URL from the loopback S3 server as a reader would: no credentials."""
    assert urlsplit(url).hostname == "127.0.0.1", url
    try:
        with urllib.request.urlopen(url, timeout=10) as response:  # loopback only
            return response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read()


@pytest.fixture
def uploaded_image(remote_media, admin_client):
    """An image uploaded through the admin's "Add an image" form, stored in the bucket."""
    response = admin_client.post(
        reverse("wagtailimages:add"),
        {
            "title": "Rack of GPUs",
            # A name no other test uploads: the check below looks for it in local media.
            "file": SimpleUploadedFile("remote-only-rack.png", png_bytes(1600, 900, "teal")),
            "description": "A rack of GPUs in a data centre",
        },
    )
    assert response.status_code == 302, response.content[:2000]
    return SiteImage.objects.get(title="Rack of GPUs")


def test_settings_choose_s3_storage_and_allow_its_origin_in_the_csp(s3):
    assert s3.storage["BACKEND"] == "storages.backends.s3.S3Storage"
    assert s3.storage["OPTIONS"]["bucket_name"] == BUCKET
    assert s3.storage["OPTIONS"]["endpoint_url"] == s3.endpoint
    assert s3.endpoint in s3.origins


def test_local_media_adds_no_origin(monkeypatch):
    monkeypatch.delenv("AWS_STORAGE_BUCKET_NAME", raising=False)
    assert media_origins() == []
    assert media_storage() == {"BACKEND": "django.core.files.storage.FileSystemStorage"}


def test_custom_domain_is_the_only_media_origin(monkeypatch):
    monkeypatch.setenv("AWS_STORAGE_BUCKET_NAME", BUCKET)
    monkeypatch.setenv("AWS_S3_CUSTOM_DOMAIN", "media.example.com")
    assert media_origins() == ["https://media.example.com"]


def test_upload_goes_to_the_bucket_and_renditions_are_made_from_it(uploaded_image, remote_media, media_root):
    image = uploaded_image
    original = image.file.name
    assert original.startswith("original_images/")
    assert f"media/{original}" in bucket_keys(remote_media, "media/original_images/")
    assert default_storage.url(original).startswith(f"{remote_media.endpoint}/")
    assert fetch(default_storage.url(original))[0] == 403, "originals are not public"
    assert not any(media_root.rglob("remote-only-rack*")), "nothing may be written to local media"

    renditions = image.get_renditions("fill-480x270|format-webp", "fill-1200x630|format-png")
    keys = bucket_keys(remote_media, "media/images/")
    for spec, (width, height, mime) in {
        "fill-480x270|format-webp": (480, 270, "image/webp"),
        "fill-1200x630|format-png": (1200, 630, "image/png"),
    }.items():
        rendition = renditions[spec]
        assert f"media/{rendition.file.name}" in keys
        status, content_type, body = fetch(rendition.url)
        assert status == 200 and content_type == mime
        assert Image.open(io.BytesIO(body)).size == (width, height)
        assert not (media_root / rendition.file.name).exists(), "nothing may be written to local media"


def test_article_page_shows_renditions_from_the_bucket(uploaded_image, remote_media, demo, client):
    article = demo.articles[0]
    article.image = uploaded_image
    article.save_revision().publish()

    response = client.get(article.url)
    assert response.status_code == 200
    html = response.content.decode()
    sources = re.findall(r'(?:src|srcset)="([^"]+)"', html)
    urls = {
        candidate.split()[0]
        for source in sources
        for candidate in source.split(",")
        if "/images/remote-only-rack" in candidate
    }
    # The hero picture: its sizes in AVIF, WebP and PNG (home.image_uploads.sizes).
    assert len(urls) >= 6, urls
    for url in urls:
        assert f"{urlsplit(url).scheme}://{urlsplit(url).netloc}" in remote_media.origins, url
        status, content_type, body = fetch(url)
        assert status == 200 and content_type in {"image/avif", "image/webp", "image/png"}
        assert Image.open(io.BytesIO(body)).width in {480, 800, 1200}


@pytest.mark.urls(__name__)
def test_image_serve_view_serves_renditions_from_the_bucket(uploaded_image, remote_media, client):
    image = uploaded_image
    spec = "fill-300x200|format-png"
    url = reverse("wagtailimages_serve", args=(generate_signature(image.id, spec), image.id, spec)) + "rack.png"
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    assert response["Content-Security-Policy"] == "default-src 'none'"
    assert Image.open(io.BytesIO(b"".join(response.streaming_content))).size == (300, 200)
    rendition = image.renditions.get(filter_spec=spec)
    assert f"media/{rendition.file.name}" in bucket_keys(remote_media, "media/images/")

    redirect_url = (
        reverse("wagtailimages_serve_redirect", args=(generate_signature(image.id, spec), image.id, spec)) + "rack.png"
    )
    response = client.get(redirect_url)
    assert response.status_code == 302
    assert response["Location"] == rendition.url
    assert fetch(response["Location"])[0] == 200

    forged = url.replace(generate_signature(image.id, spec), generate_signature(image.id, "fill-301x200|format-png"))
    assert client.get(forged).status_code == 403


def test_serve_view_answers_410_when_the_original_is_gone_from_the_bucket(
    uploaded_image, remote_media, client, settings
):
    settings.ROOT_URLCONF = __name__
    remote_media.client.delete_object(Bucket=BUCKET, Key=f"media/{uploaded_image.file.name}")
    spec = "fill-320x180"
    url = reverse("wagtailimages_serve", args=(generate_signature(uploaded_image.id, spec), uploaded_image.id, spec))
    assert client.get(url + "rack.png").status_code == 410


def test_documents_stay_private_in_the_bucket_and_download_through_wagtail(remote_media, admin_client, client):
    response = admin_client.post(
        reverse("wagtaildocs:add"),
        {"title": "Runbook", "file": SimpleUploadedFile("runbook.txt", b"restart the worker\n")},
    )
    assert response.status_code == 302, response.content[:2000]
    document = get_document_model().objects.get(title="Runbook")
    assert f"media/{document.file.name}" in bucket_keys(remote_media, "media/documents/")
    assert fetch(default_storage.url(document.file.name))[0] == 403

    response = client.get(document.url)
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment")
    assert b"".join(response.streaming_content) == b"restart the worker\n"
