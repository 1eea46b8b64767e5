"""Outages: with the database unreachable, uncached requests get the styled 503 with Retry-After,
cached pages keep being served and service comes back by itself; a Redis outage logs one
warning per interval."""

import logging
from contextlib import contextmanager
from unittest import mock

from django.core.cache import cache
from django.db import InterfaceError, OperationalError, connections
from django.test import Client, override_settings

import pytest

from home.caching import memo
from home.caching.page_cache import local_pages
from home.operations.log_throttle import OncePerInterval
from home.operations.outages import RETRY_AFTER_SECONDS

pytestmark = pytest.mark.django_db


@contextmanager
def database_down(error=None):
    """Every new query raises ``error`` (default: a refused connection), as when the server has gone away."""
    error = error or OperationalError("connection to server at 127.0.0.1, port 5432 failed")

    def refuse(*args, **kwargs):
        raise error

    connection = connections["default"]
    with mock.patch.object(connection, "cursor", refuse), mock.patch.object(connection, "chunked_cursor", refuse):
        yield


def reader():
    return Client(raise_request_exception=False)


UNCACHED_URLS = [
    "/",
    "/blog/",
    "/blog/gpu-costs/",
    "/blog/feed/rss/",
    "/search/?query=gpu",
    "/sitemap.xml",
    "/robots.txt",
    "/api/v2/pages/",
    "/no-such-page/",
]


@pytest.mark.parametrize("error", [OperationalError("server closed the connection"), InterfaceError("closed")])
@pytest.mark.parametrize("path", UNCACHED_URLS)
def test_uncached_requests_get_the_styled_503_and_service_comes_back(demo, path, error):
    client = reader()
    before = client.get(path).status_code
    memo.generation_changed()  # a fresh process: nothing remembered
    with database_down(error):
        response = client.get(path)
    assert response.status_code == 503, path
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert "no-store" in response["Cache-Control"]
    html = response.content.decode()
    assert "We’ll be back in a moment." in html and "/static/css/site" in html
    assert client.get(path).status_code == before, path


def test_other_errors_stay_500(demo):
    client = reader()
    with mock.patch("home.views.render", side_effect=ValueError("a bug")):
        response = client.get("/robots.txt")
    assert response.status_code == 500
    assert "Retry-After" not in response


@pytest.mark.parametrize("path", ["/", "/blog/", "/blog/gpu-costs/", "/blog/?page=2"])
@pytest.mark.parametrize("fresh_process", [False, True])
def test_cached_pages_keep_being_served(settings, demo, path, fresh_process):
    settings.PAGE_CACHE_SECONDS = 300
    cache.clear()
    client = reader()
    first = client.get(path)
    assert first.status_code == 200
    if fresh_process:
        # e.g. a worker restarted during the outage: nothing remembered, no page kept in memory
        memo.generation_changed()
        local_pages.clear()
    with database_down():
        response = client.get(path)
        assert response.status_code == 200 and response["X-Page-Cache"] == "hit", path
        assert response.content == first.content
        # A page not in the cache is the 503.
        assert client.get("/blog/not-cached-yet/").status_code == 503
    cache.clear()


def test_a_host_given_a_site_of_its_own_is_not_served_the_old_sites_pages_during_an_outage(settings, demo):
    """The root URL a host had is kept for the outage fallback per cache generation: once a
    ``Site`` of its own is saved, a page cached for the site that answered before is not served
    to it (a 503 until the database is back), and it gets its own site's page after."""
    from wagtail.models import Site

    settings.PAGE_CACHE_SECONDS = 300
    settings.ALLOWED_HOSTS = ["*"]
    cache.clear()
    client = reader()
    home = client.get("/", HTTP_HOST="other.example")  # the default site answers this host
    assert home.status_code == 200
    Site.objects.create(hostname="other.example", root_page=demo.blog, site_name="Other")
    default = Site.objects.get(is_default_site=True)
    # The default site's home page cached again, in the generation the new site started.
    assert client.get("/", HTTP_HOST=default.hostname).status_code == 200
    memo.generation_changed()  # a worker started after the change
    local_pages.clear()
    with database_down():
        assert client.get("/", HTTP_HOST="other.example").status_code == 503
    blog = client.get("/", HTTP_HOST="other.example")
    assert blog.status_code == 200 and blog.content != home.content
    cache.clear()


# Redis -----------------------------------------------------------------------------------------


def test_the_redis_logger_is_throttled_in_every_deployed_configuration():
    # The test settings replace LOGGING (quiet tests); base.py's is what dev and production use.
    from config.settings import base

    names = base.LOGGING["loggers"]["django_redis.cache"]["filters"]
    factories = [base.LOGGING["filters"][name]["()"] for name in names]
    assert "home.operations.log_throttle.OncePerInterval" in factories


@pytest.mark.parametrize("requests_per_interval", [1, 5, 40])
def test_a_redis_outage_logs_one_warning_per_interval(demo, caplog, requests_per_interval):
    now = [1000.0]
    throttle = OncePerInterval(seconds=60, clock=lambda: now[0])
    logger = logging.getLogger("django_redis.cache")
    caches = {
        name: {
            "BACKEND": "home.upstream.django_redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens on port 1
            "OPTIONS": {"IGNORE_EXCEPTIONS": True, "SOCKET_CONNECT_TIMEOUT": 0.2, "SOCKET_TIMEOUT": 0.2},
        }
        for name in ("default", "renditions")
    }
    saved = logger.filters[:]
    logger.filters[:] = [throttle]
    try:
        with override_settings(CACHES=caches, DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS=True, PAGE_CACHE_SECONDS=300):
            caplog.set_level(logging.INFO, logger="django_redis.cache")
            client = reader()
            for _interval in range(3):
                for _ in range(requests_per_interval):
                    assert client.get("/robots.txt").status_code == 200
                now[0] += 61
    finally:
        logger.filters[:] = saved
    records = [r for r in caplog.records if r.name == "django_redis.cache"]
    assert len(records) == 3
    assert all(r.levelno == logging.WARNING and r.exc_info is None for r in records)
    assert "ConnectionError" in records[0].getMessage()
    if requests_per_interval > 1:
        assert "not logged" in records[1].getMessage()
