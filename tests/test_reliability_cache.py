"""With Redis down, readers still get pages (rendered, uncached) instead of a 500.

Production uses django-redis with ``IGNORE_EXCEPTIONS`` (config/settings/production.py). Here the
cache points at a closed loopback port, as when Redis has stopped; ``benchmarks/faults.py`` stops
a real Redis under load and shows the cache coming back.
"""

from django.test import Client, override_settings

import pytest

# production.py's REDIS_OPTIONS with its default timeouts.
PRODUCTION_OPTIONS = {"IGNORE_EXCEPTIONS": True, "SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 1.0}
NO_REDIS = "redis://127.0.0.1:1/0"  # nothing listens on port 1


def redis_down(options: dict) -> dict:
    return {
        name: {
            "BACKEND": "home.upstream.django_redis.RedisCache",
            "LOCATION": NO_REDIS,
            "KEY_PREFIX": name,
            "OPTIONS": options,
        }
        for name in ("default", "renditions")
    }


@pytest.mark.parametrize("path", ["/", "/blog/", "/blog/feed/rss/", "/search/?query=gpu"])
def test_pages_are_served_uncached_while_redis_is_down(client, demo, path):
    with override_settings(CACHES=redis_down(PRODUCTION_OPTIONS), PAGE_CACHE_SECONDS=600):
        response = client.get(path)
        assert response.status_code == 200
        assert response.get("X-Page-Cache") in (None, "miss")
        again = client.get(path)
        assert again.status_code == 200
        assert again.get("X-Page-Cache") != "hit"


def test_every_page_in_turn_is_served_while_redis_is_down(client, demo):
    """One process serving page after page while Redis is down: what one page's failed reads gave
    back must not reach the next page's (django-redis's shared empty dict, home/upstream/django_redis.py:
    the fragments' version tokens were taken for renditions, a 500 on every page with an image)."""
    article = demo.articles[0]
    paths = ["/", "/blog/", article.url, "/blog/feed/rss/", "/blog/?page=2", "/search/?query=gpu", article.url, "/"]
    with override_settings(CACHES=redis_down(PRODUCTION_OPTIONS), PAGE_CACHE_SECONDS=600):
        assert [client.get(path).status_code for path in paths] == [200] * len(paths)


def test_publishing_still_works_while_redis_is_down(demo):
    article = demo.articles[0]
    article.summary = "Changed while the cache is down."
    with override_settings(CACHES=redis_down(PRODUCTION_OPTIONS), PAGE_CACHE_SECONDS=600):
        article.save_revision().publish()  # bumps the page-cache generation: dropped, not raised
    article.refresh_from_db()
    assert article.summary == "Changed while the cache is down."


def test_without_ignore_exceptions_a_redis_outage_would_be_a_server_error(demo):
    client = Client(raise_request_exception=False)
    with override_settings(CACHES=redis_down({"IGNORE_EXCEPTIONS": False}), PAGE_CACHE_SECONDS=600):
        assert client.get("/blog/").status_code == 500
