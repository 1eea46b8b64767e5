"""The development server's media: images are served from MEDIA_ROOT, documents never are (a
document in a private collection is reachable only through Wagtail's document view, which checks
its privacy; issue 15, "Images API"; ``home.dev_media``)."""

from django.test import override_settings
from django.urls import re_path

import pytest

from config.urls import urlpatterns as site_urlpatterns
from home.dev_media import dev_media_urlpatterns, serve_media

pytestmark = pytest.mark.django_db  # the site's middleware finds the request's site

# The site's URLs with the media route runserver gets (config/urls.py adds it only with DEBUG on).
urlpatterns = [re_path(r"^media/(?P<path>.*)$", serve_media), *site_urlpatterns]


@pytest.fixture
def media(demo, tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path
    (tmp_path / "documents").mkdir()
    (tmp_path / "documents" / "internal-notes.txt").write_text("private notes")
    (tmp_path / "original_images").mkdir()
    (tmp_path / "original_images" / "rack.png").write_bytes(b"\x89PNG rack")
    settings.ROOT_URLCONF = __name__
    return tmp_path


DOCUMENT_SPELLINGS = [
    "/media/documents/internal-notes.txt",
    "/media/./documents/internal-notes.txt",
    "/media//documents/internal-notes.txt",
    "/media/original_images/../documents/internal-notes.txt",
    "/media/original_images/%2e%2e/documents/internal-notes.txt",
    "/media/documents/./internal-notes.txt",
    "/media/original_images\\..\\documents\\internal-notes.txt",
    "/media/documents/",
]


@pytest.mark.parametrize("path", DOCUMENT_SPELLINGS)
def test_document_files_are_not_served_from_the_media_folder(client, media, path):
    response = client.get(path)
    assert response.status_code == 404, path
    assert b"private notes" not in b"".join(getattr(response, "streaming_content", [response.content]))


# Paths that name no file in MEDIA_ROOT: leaving it (Django's ``static.serve`` answered 400 with the
# debug page) or refused by the file system (a name over 255 bytes: ``OSError``, a 500).
NOT_A_MEDIA_FILE = {
    "dot-dot": "/media/../var/db.sqlite3",
    "encoded dot-dot": "/media/%2e%2e%2fdb.sqlite3",
    "dot-dot past the root": "/media/original_images/../../../etc/passwd",
    "encoded back slashes": "/media/..%5c..%5cetc%5cpasswd",
    "256-byte name": "/media/" + "A" * 256,
    "304-byte file name": "/media/original_images/" + "b" * 300 + ".png",
    "256 bytes in UTF-8": "/media/" + "é" * 128,
    "path over PATH_MAX": "/media/" + "/".join(["c" * 255] * 20),
    "3,000 folders deep": "/media/" + "d/" * 3000,
    "missing file": "/media/original_images/missing.png",
}


@pytest.mark.parametrize("path", NOT_A_MEDIA_FILE.values(), ids=NOT_A_MEDIA_FILE.keys())
def test_a_path_that_names_no_media_file_is_a_404(client, media, path):
    assert client.get(path).status_code == 404


def test_images_are_still_served(client, media):
    response = client.get("/media/original_images/rack.png")
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == b"\x89PNG rack"


def test_runserver_gets_the_guarded_media_route_only_with_debug(settings):
    with override_settings(DEBUG=True, MEDIA_URL="/media/"):
        [pattern] = dev_media_urlpatterns()
        assert pattern.resolve("media/documents/x.pdf").func is serve_media
    with override_settings(DEBUG=False):
        assert dev_media_urlpatterns() == []
