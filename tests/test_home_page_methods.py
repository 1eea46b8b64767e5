"""Reader pages served by Wagtail (and their routes: feeds, author pages) answer only the methods
that read them (home/wagtail_hooks.py, ``only_reading_methods``)."""

import pytest

pytestmark = pytest.mark.django_db

READER_PATHS = [
    "/",
    "/blog/",
    "/blog/gpu-costs/",
    "/blog/authors/cedana-editorial/",
    "/blog/feed/rss/",
    "/blog/gpu-costs/feed/atom/",
]
WRITING_METHODS = ["post", "put", "patch", "delete", "trace"]


@pytest.mark.parametrize("method", WRITING_METHODS)
def test_a_method_that_writes_is_a_405_on_every_reader_page(client, demo, method):
    for path in [*READER_PATHS, demo.articles[0].url]:
        response = getattr(client, method)(path)
        assert response.status_code == 405, (method, path)
        assert response["Allow"] == "GET, HEAD, OPTIONS", path
        assert b"<article" not in response.content, path


def test_options_names_the_methods_and_sends_no_page(client, demo):
    for path in [*READER_PATHS, demo.articles[0].url]:
        response = client.options(path)
        assert response.status_code == 200, path
        assert response["Allow"] == "GET, HEAD, OPTIONS", path
        assert response.content == b"", path


def test_reading_methods_still_serve_the_page(client, demo):
    for path in [*READER_PATHS, demo.articles[0].url]:
        assert client.get(path).status_code == 200, path
        head = client.head(path)
        assert head.status_code == 200 and head.content == b"", path


def test_a_missing_page_is_still_a_404_whatever_the_method(client, demo):
    assert client.delete("/blog/no-such-page/").status_code == 404
