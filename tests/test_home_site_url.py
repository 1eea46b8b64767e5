"""The default Site's host and port come from WAGTAIL_SITE_ROOT_URL, so absolute URLs point where
the site is served (http://127.0.0.1:8000/ in development), not at Wagtail's localhost:80."""

import io

from django.core.management import CommandError, call_command
from django.urls import reverse

from wagtail.models import Site

import pytest

from .sitemaps import sitemap_text

pytestmark = pytest.mark.django_db


def load_demo() -> str:
    out = io.StringIO()
    call_command("load_demo", "--no-users", stdout=out)
    return out.getvalue()


@pytest.fixture
def fresh_site_cache():
    """Wagtail caches the sites' root URLs; the rolled-back Site change must not outlive the test."""
    Site.clear_site_root_paths_cache()
    yield
    Site.clear_site_root_paths_cache()


def test_load_demo_puts_the_site_at_the_configured_address(client, demo, settings, fresh_site_cache):
    settings.WAGTAIL_SITE_ROOT_URL = "http://127.0.0.1:8000"
    assert "1 change" in load_demo()
    site = Site.objects.get(is_default_site=True)
    assert (site.hostname, site.port, site.root_url) == ("127.0.0.1", 8000, "http://127.0.0.1:8000")
    assert "0 changes" in load_demo()  # idempotent

    article = demo.articles[0]
    html = client.get(article.url).content.decode()
    assert f'<link rel="canonical" href="http://127.0.0.1:8000{article.url}">' in html
    assert f'content="http://127.0.0.1:8000{article.url}"' in html  # og:url
    assert "http://localhost/" not in html
    robots = client.get(reverse("robots_txt")).content.decode()
    assert "Sitemap: http://127.0.0.1:8000/sitemap.xml" in robots
    sitemap = sitemap_text(client)
    assert f"<loc>http://127.0.0.1:8000{article.url}</loc>" in sitemap
    api = client.get(f"/api/v2/pages/{article.pk}/").json()
    assert api["meta"]["html_url"] == f"http://127.0.0.1:8000{article.url}"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:8000", ("127.0.0.1", 8000)),
        ("http://localhost", ("localhost", 80)),
        ("https://blog.example.com/", ("blog.example.com", 443)),
    ],
)
def test_site_address_from_a_root_url(url, expected):
    from blog.demo.management.commands.load_demo import site_host_and_port

    assert site_host_and_port(url) == expected


@pytest.mark.parametrize(
    "url", ["127.0.0.1:8000", "ftp://x", "http://", "http://x/blog/", "http://x:99999", "https://x:8443"]
)
def test_a_malformed_site_root_url_is_refused(url):
    from blog.demo.management.commands.load_demo import site_host_and_port

    with pytest.raises(CommandError):
        site_host_and_port(url)
