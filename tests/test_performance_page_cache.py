"""Full-page cache: anonymous readers get cached pages, and each change readers could see
reaches them on the next request; drafts never enter the cache. HTTP caching headers and CDN
purges (Wagtail's frontend cache, with a recording backend)."""

import gzip
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import django.middleware.gzip
from django.core.cache import cache
from django.core.cache.backends.locmem import LocMemCache
from django.core.management import call_command
from django.utils import timezone
from django.utils.text import compress_string

from wagtail.contrib.frontend_cache.backends import BaseBackend
from wagtail.models import Site

import pytest
import time_machine

from home.caching.generation import GENERATION_KEY
from home.caching.page_cache import (
    ENTRY_OVERHEAD_BYTES,
    PAGE_KEY_PREFIX,
    bump_generation,
    local_pages,
)
from home.models import SiteChromeSettings

from .factories import ArticlePageFactory, AuthorFactory, HomePageFactory, SiteImageFactory

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent


class RecordingBackend(BaseBackend):
    """A frontend cache backend that records the URLs it is asked to purge."""

    purged: list[str] = []

    def purge(self, url):
        RecordingBackend.purged.append(url)


@pytest.fixture(autouse=True)
def page_cache(settings):
    settings.PAGE_CACHE_SECONDS = 300
    cache.clear()
    yield
    cache.clear()


def read(client, path, expect=200):
    """GET ``path`` as an anonymous reader; returns (html, X-Page-Cache header)."""
    response = client.get(path)
    assert response.status_code == expect, path
    return response.content.decode(), response.get("X-Page-Cache")


def warm(client, *paths):
    """Request each path twice and check the second answer came from the cache."""
    for path in paths:
        read(client, path)
        assert read(client, path)[1] == "hit", path


@pytest.fixture
def article(demo):
    topic = demo.topics["gpu-costs"]
    return ArticlePageFactory(
        parent=demo.blog, title="Caching at the edge", topics=[topic], image_alt="", date_published=timezone.now()
    )


def test_anonymous_pages_are_cached_with_http_headers(client, demo):
    first = client.get("/blog/")
    assert first["X-Page-Cache"] == "miss"
    second = client.get("/blog/")
    assert second["X-Page-Cache"] == "hit"
    assert second.content == first.content
    control = second["Cache-Control"]
    assert "public" in control and "s-maxage=300" in control and "stale-while-revalidate=60" in control
    assert second["ETag"] == first["ETag"]
    not_modified = client.get("/blog/", HTTP_IF_NONE_MATCH=second["ETag"])
    assert not_modified.status_code == 304 and not_modified.content == b""
    assert client.head("/blog/?page=2")["X-Page-Cache"] == "miss"
    assert client.head("/blog/?page=2")["X-Page-Cache"] == "hit"


def test_gzip_for_html(client, demo):
    response = client.get("/blog/", HTTP_ACCEPT_ENCODING="gzip")
    assert response["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in response["Vary"]


@pytest.mark.parametrize("accept", ["gzip", "gzip, deflate, br, zstd", "br;q=1.0, gzip;q=0.8", "x-gzip"])
@pytest.mark.parametrize("path", ["/blog/", "/", "/blog/gpu-costs/"])
def test_a_gzip_hit_is_the_page_compressed_once(client, demo, path, accept, monkeypatch):
    """A browser that takes gzip gets, on a hit, what GZipMiddleware gave it on the miss: the
    same page compressed, ``Vary: Accept-Encoding``, the ETag made weak (and a 304 for it); the
    page is compressed once per process and generation, not on every hit."""
    from home.caching import page_cache

    plain = client.get(path)
    miss = client.get(path, HTTP_ACCEPT_ENCODING=accept)
    assert (plain["X-Page-Cache"], miss["X-Page-Cache"]) == ("miss", "hit")
    # Every compression from now on, ours or GZipMiddleware's.
    compressions = []

    def counted(content, **options):
        compressions.append(len(content))
        return compress_string(content, **options)

    monkeypatch.setattr(page_cache, "compress_string", counted)
    monkeypatch.setattr(django.middleware.gzip, "compress_string", counted)
    hits = [client.get(path, HTTP_ACCEPT_ENCODING=accept) for _ in range(3)]
    assert compressions == []  # the first gzip hit above compressed it, once
    for hit in [miss, *hits]:
        assert hit["Content-Encoding"] == "gzip" and "Accept-Encoding" in hit["Vary"]
        assert gzip.decompress(hit.content) == plain.content
        assert hit["ETag"] == "W/" + plain["ETag"]
        assert int(hit["Content-Length"]) == len(hit.content)
    not_modified = client.get(path, HTTP_ACCEPT_ENCODING=accept, HTTP_IF_NONE_MATCH=hits[0]["ETag"])
    assert not_modified.status_code == 304
    # A browser that takes no gzip still gets the page as it is, from the same entry.
    for accept in ("", "identity", "br", "deflate"):
        identity = client.get(path, HTTP_ACCEPT_ENCODING=accept)
        assert identity.content == plain.content and not identity.has_header("Content-Encoding")


def test_a_gzip_hit_in_a_new_generation_is_compressed_afresh(client, demo):
    first = client.get("/blog/", HTTP_ACCEPT_ENCODING="gzip")
    client.get("/blog/", HTTP_ACCEPT_ENCODING="gzip")
    AuthorFactory(name="Zed Newcomer")  # any change readers could see starts a generation
    assert client.get("/blog/", HTTP_ACCEPT_ENCODING="gzip")["X-Page-Cache"] == "miss"
    hit = client.get("/blog/", HTTP_ACCEPT_ENCODING="gzip")
    assert hit["X-Page-Cache"] == "hit" and gzip.decompress(hit.content) == client.get("/blog/").content
    assert first.status_code == 200


@pytest.mark.parametrize(
    "path", ["/search/?query=gpu", "/blog/?utm_source=x", "/blog/?page=1&page=2", "/admin/login/", "/blog/?page=999"]
)
def test_uncacheable_requests_are_private(client, demo, path):
    for _ in range(2):
        response = client.get(path)
        assert "X-Page-Cache" not in response
    assert "public" not in response["Cache-Control"]


def test_logged_in_readers_bypass_the_cache(client, demo, django_user_model):
    read(client, "/blog/")
    client.force_login(django_user_model.objects.create_superuser("editor", "e@example.com", "pw-for-tests-123"))
    response = client.get("/blog/")
    assert "X-Page-Cache" not in response
    assert response["Cache-Control"] == "private, no-store"


def test_publishing_shows_on_the_next_request(client, demo):
    warm(client, "/", "/blog/", "/blog/gpu-costs/")
    draft = ArticlePageFactory(
        parent=demo.blog, title="Fresh off the press", live=False, topics=[demo.topics["gpu-costs"]]
    )
    draft.save_revision().publish()
    for path in ("/", "/blog/", "/blog/gpu-costs/"):
        assert "Fresh off the press" in read(client, path)[0], path


def test_drafts_never_reach_the_cache(client, article):
    warm(client, article.url, "/blog/")
    article.title = "Secret draft title"
    article.save_revision()
    for path in (article.url, "/blog/"):
        html, state = read(client, path)
        assert "Secret draft title" not in html and "Caching at the edge" in html
        assert "Secret draft title" not in read(client, path)[0]


def test_editing_a_live_page_shows_on_the_next_request(client, article):
    warm(client, article.url, "/blog/")
    article.title = "Caching, revised"
    article.save_revision().publish()
    for path in (article.url, "/blog/"):
        assert "Caching, revised" in read(client, path)[0]


def test_unpublishing_and_deleting_remove_the_page(client, demo, article):
    other = ArticlePageFactory(parent=demo.blog, title="Soon deleted")
    warm(client, article.url, other.url, "/")
    article.unpublish()
    read(client, article.url, expect=404)
    assert "Caching at the edge" not in read(client, "/")[0]
    other_url = other.url
    other.delete()
    read(client, other_url, expect=404)
    assert "Soon deleted" not in read(client, "/")[0]


def test_scheduled_publishing_and_expiry(client, demo):
    warm(client, "/")
    go_live = timezone.now() + timedelta(hours=1)
    page = ArticlePageFactory(parent=demo.blog, title="Scheduled for later", live=False)
    page.go_live_at = go_live
    page.expire_at = go_live + timedelta(days=1)
    page.save_revision().publish()  # scheduled, not live yet
    assert "Scheduled for later" not in read(client, "/")[0]
    warm(client, "/")
    with time_machine.travel(go_live + timedelta(minutes=1)):
        call_command("publish_scheduled")
        assert "Scheduled for later" in read(client, "/")[0]
        warm(client, "/")
    with time_machine.travel(go_live + timedelta(days=1, minutes=1)):
        call_command("publish_scheduled")
        assert "Scheduled for later" not in read(client, "/")[0]


def test_moving_a_page_updates_its_old_url(client, demo, article):
    old_url = article.url
    warm(client, old_url)
    article.move(demo.home, pos="last-child")
    # Wagtail's redirects app answers the old URL with a redirect to the new one.
    response = client.get(old_url)
    assert response.status_code == 301 and response["Location"] == "/caching-at-the-edge/"
    assert "Caching at the edge" in read(client, "/caching-at-the-edge/")[0]


def test_author_topic_settings_and_image_changes_show_everywhere(client, demo, article):
    author = AuthorFactory(name="Ada Example")
    article.authors.set([author])
    article.save_revision().publish()
    warm(client, article.url, "/", "/blog/")

    author.name = "Ada Renamed"
    author.save()
    assert "Ada Renamed" in read(client, article.url)[0]
    assert "Ada Renamed" in read(client, "/blog/")[0]

    topic = demo.topics["gpu-costs"]
    topic.title = "GPU spend"
    topic.save_revision().publish()
    assert ">GPU spend<" in read(client, "/")[0]

    chrome = SiteChromeSettings.for_site(Site.objects.get(is_default_site=True))
    chrome.footer_text = "Footer from the settings"
    chrome.save()
    assert "Footer from the settings" in read(client, "/blog/")[0]

    article.image.description = "A freshly described picture"
    article.image.save()
    assert 'alt="A freshly described picture"' in read(client, article.url)[0]


def test_publishing_purges_the_cdn(settings, demo, article, django_capture_on_commit_callbacks):
    settings.WAGTAILFRONTENDCACHE = {"recording": {"BACKEND": "tests.test_performance_page_cache.RecordingBackend"}}
    RecordingBackend.purged = []
    with django_capture_on_commit_callbacks(execute=True):
        article.title = "Purged everywhere"
        article.save_revision().publish()
    purged = set(RecordingBackend.purged)
    root = "http://localhost"
    assert {f"{root}{article.url}", f"{root}/", f"{root}/blog/", f"{root}/blog/?page=2"} <= purged
    assert f"{root}/blog/gpu-costs/" in purged

    RecordingBackend.purged = []
    with django_capture_on_commit_callbacks(execute=True):
        chrome = SiteChromeSettings.for_site(Site.objects.get(is_default_site=True))
        chrome.save()
    assert f"{root}{demo.articles[-1].url}" in RecordingBackend.purged  # site-wide: every live page


def test_publishing_makes_the_article_renditions(client, demo, django_capture_on_commit_callbacks, settings):
    settings.BLOG_RENDITIONS_ON_PUBLISH = True  # off in the test settings (the demo loads faster)
    from blog.renditions import ARTICLE_RENDITION_SPECS
    from home.models import SiteRendition

    page = ArticlePageFactory(parent=demo.blog, title="Pictured", live=False, image=SiteImageFactory())
    assert not SiteRendition.objects.filter(image=page.image).exists()
    with django_capture_on_commit_callbacks(execute=True):
        page.save_revision().publish()
    made = set(SiteRendition.objects.filter(image=page.image).values_list("filter_spec", flat=True))
    assert made == set(ARTICLE_RENDITION_SPECS)
    # The first reader of the article and the listings finds every rendition already made.
    for path in (page.url, "/blog/", "/"):
        read(client, path)
    assert SiteRendition.objects.filter(image=page.image).count() == len(made)


def test_preview_shows_the_drafts_authors_not_the_live_ones(article):
    """The article's prefetching must not replace a draft's in-memory authors in a preview."""
    article.authors.set([AuthorFactory(name="Draft Coauthor")])  # not saved: only the draft has it
    html = article.make_preview_request().content.decode()
    assert "Draft Coauthor" in html


def test_a_cached_page_is_not_served_past_an_expiry_time_on_it(client, demo):
    # Reaching an expiry time starts no cache generation until the scheduler unpublishes the
    # page (up to a minute later): a cached page must not outlive it.
    page = ArticlePageFactory(parent=demo.blog, title="Expiring soon")
    page.expire_at = timezone.now() + timedelta(seconds=30)
    page.save_revision().publish()
    warm(client, "/blog/")
    html, state = read(client, "/blog/")
    assert "Expiring soon" in html and state == "hit"
    with time_machine.travel(timezone.now() + timedelta(seconds=45), tick=False):
        html, state = read(client, "/blog/")
        assert "Expiring soon" not in html and state == "miss"


# Keyed on the site's canonical host ------------------------------------------------------------


@pytest.mark.parametrize(
    "hosts",
    [
        ["localhost:1", "localhost:2", "localhost:65535"],
        ["localhost", "LOCALHOST", "LocalHost:8000"],
        ["127.0.0.1:9", "127.0.0.1:10", "testserver"],
    ],
)
@pytest.mark.parametrize("path", ["/", "/blog/", "/blog/?page=2"])
def test_every_host_of_one_site_shares_one_cached_copy(client, demo, hosts, path):
    """The default site answers every unknown host; each page is stored once for it, not once
    per ``Host`` header, and the copy served names the site's own root URL."""
    root_url = Site.objects.get(is_default_site=True).root_url
    first = client.get(path, HTTP_HOST=hosts[0])
    assert first.status_code == 200 and first["X-Page-Cache"] == "miss"
    for host in hosts[1:]:
        response = client.get(path, HTTP_HOST=host)
        assert response["X-Page-Cache"] == "hit", host
        assert response.content == first.content
    if path == "/":
        assert f'href="{root_url}/"' in first.content.decode()


def test_two_sites_keep_their_own_copies(client, demo, forget_sites_afterwards):
    other_root = HomePageFactory(parent=demo.home.get_parent(), title="Other site", slug="other-site")
    site = Site.objects.create(hostname="127.0.0.1", port=80, root_page=other_root, site_name="Other")
    SiteChromeSettings.for_site(site)  # made on first use otherwise, which starts a new generation
    default = client.get("/", HTTP_HOST="localhost")
    other = client.get("/", HTTP_HOST="127.0.0.1")
    assert other["X-Page-Cache"] == "miss"
    assert "Other site" in other.content.decode() and default.content != other.content
    assert client.get("/", HTTP_HOST="127.0.0.1")["X-Page-Cache"] == "hit"
    assert client.get("/", HTTP_HOST="localhost:1")["X-Page-Cache"] == "hit"


# Kept in each process: a hit reads only the generation token from the shared cache ---------------


class CountingCache(LocMemCache):
    """The test cache, recording the keys read (``reads``, shared by every instance)."""

    reads: list[str] = []

    def get(self, key, default=None, version=None):
        CountingCache.reads.append(key)
        return super().get(key, default, version)

    def get_many(self, keys, version=None):
        CountingCache.reads.extend(keys)
        return super().get_many(keys, version)

    def has_key(self, key, version=None):
        CountingCache.reads.append(key)
        return super().has_key(key, version)


@pytest.fixture
def counting_cache(settings):
    """The default cache counts its reads: ``read(client, path)`` of a hit, then ``reads()``."""
    settings.CACHES = {**settings.CACHES, "default": {"BACKEND": f"{__name__}.CountingCache", "LOCATION": "counted"}}
    cache.clear()
    bump_generation()

    def reads():
        found, CountingCache.reads = CountingCache.reads, []
        return found

    yield reads
    cache.clear()


def test_a_hit_reads_only_the_generation_from_the_shared_cache(client, demo, counting_cache):
    assert read(client, "/blog/")[1] == "miss"  # stored, and kept in this process
    counting_cache()
    assert read(client, "/blog/")[1] == "hit"
    assert counting_cache() == [GENERATION_KEY]
    # HEAD and a conditional GET are answered from the same copy.
    etag = client.head("/blog/")["ETag"]
    assert client.get("/blog/", HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert counting_cache() == [GENERATION_KEY, GENERATION_KEY]


def test_a_page_another_process_stored_is_read_once_then_kept(client, demo, counting_cache):
    read(client, "/blog/")
    local_pages.clear()  # as in a process that has not served the page
    counting_cache()
    html, state = read(client, "/blog/")
    generation, page = counting_cache()
    assert state == "hit" and generation == GENERATION_KEY and page.startswith(PAGE_KEY_PREFIX)
    counting_cache()
    assert read(client, "/blog/") == (html, "hit") and counting_cache() == [GENERATION_KEY]


def test_a_new_generation_in_the_shared_cache_is_seen_on_the_next_request(client, demo):
    """Another process's publish replaces the token in the shared cache: this process never
    hears of it but reads the token on every request, so its kept copies are not served."""
    warm(client, "/blog/")
    cache.set(GENERATION_KEY, "started-by-another-process", None)
    assert read(client, "/blog/")[1] == "miss"
    assert read(client, "/blog/")[1] == "hit"


def test_a_publish_in_another_process_is_seen_on_the_next_request(client, demo, settings, tmp_path):
    """As ``make run`` and gunicorn's workers share the file-based cache: another process (the
    scheduler, another worker) publishes; this one's next request renders the page afresh."""
    settings.CACHES = {
        **settings.CACHES,
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(tmp_path / "default"),
            "KEY_PREFIX": settings.DATABASE_CACHE_PREFIX,
        },
    }
    bump_generation()
    warm(client, "/blog/")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("REDIS", "DJANGO_SETTINGS"))}
    env.update(CACHE_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="config.settings.dev")
    script = "import django; django.setup(); from home.caching.page_cache import bump_generation; bump_generation()"
    subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, check=True)
    assert read(client, "/blog/")[1] == "miss"
    assert read(client, "/blog/")[1] == "hit"


def test_the_copies_kept_stay_within_their_bound(client, demo, counting_cache, settings):
    paths = ["/", "/blog/", "/blog/?page=2", "/blog/gpu-costs/"]
    sizes = {path: len(client.get(path).content) for path in paths}  # the page cache is on: stored
    # Room for the two largest pages with their headers, not for three of them.
    settings.PAGE_CACHE_LOCAL_BYTES = sum(sorted(sizes.values())[-2:]) + 2 * ENTRY_OVERHEAD_BYTES + 2000
    bump_generation()
    for path in paths:
        read(client, path)
        read(client, path)
        assert 0 < local_pages.size <= settings.PAGE_CACHE_LOCAL_BYTES
    # The most recently served page is kept; the first one served was dropped for the later ones.
    counting_cache()
    assert read(client, paths[-1])[1] == "hit" and len(counting_cache()) == 1
    assert read(client, paths[0])[1] == "hit" and len(counting_cache()) == 2
    # A page larger than the whole bound is served from the shared cache, never kept.
    settings.PAGE_CACHE_LOCAL_BYTES = min(sizes.values())
    local_pages.clear()
    for _ in range(2):
        assert read(client, "/blog/")[1] == "hit" and len(counting_cache()) == 2
    assert local_pages.size == 0


def test_a_kept_copy_is_not_served_after_the_shared_cache_lets_the_page_go(client, demo, settings):
    settings.PAGE_CACHE_SECONDS = 60
    warm(client, "/blog/")
    with time_machine.travel(timezone.now() + timedelta(seconds=61), tick=False):
        assert read(client, "/blog/")[1] == "miss"
        assert read(client, "/blog/")[1] == "hit"
