"""The site chrome (header, footer, topic navigation) as cached template fragments keyed by the
site and the cache generation (home/templatetags/chrome_tags.py), and the per-generation memo
of small lookups (home/caching/memo.py), with the full-page cache off as in the test settings:
a page the full-page cache misses renders its chrome with no query, a change shows on every
page at the next request (also when another process made it), and nothing else is re-rendered.
Previews and reviewer links neither read nor write the chrome, as no other fragment
(tests/test_performance_fragments.py).
"""

from django.core.cache import cache, caches
from django.db import connection
from django.test.utils import CaptureQueriesContext

from wagtail.models import PageViewRestriction, Site

import pytest

from blog.models import Author
from home.caching import memo
from home.caching.generation import GENERATION_KEY
from home.models import SiteChromeSettings

from .factories import ArticlePageFactory

pytestmark = pytest.mark.django_db

FRAGMENT_PREFIX = "template.cache."  # Django's make_template_fragment_key
# The header's brand and links and the footer are one entry ("site-chrome"); the topic navigation varies by page.
CHROME_FRAGMENTS = {"site-chrome", "topic-nav"}


def html(client, path, expect=200):
    response = client.get(path)
    assert response.status_code == expect, path
    return response.content.decode()


def sql(client, path) -> str:
    with CaptureQueriesContext(connection) as queries:
        html(client, path)
    return "\n".join(query["sql"] for query in queries.captured_queries)


@pytest.fixture
def stored_fragments(monkeypatch):
    """The names of the template fragments stored in the default cache (``{% wagtailcache %}``'s)."""
    backend, stored = caches["default"], []
    original_set = backend.set

    def recording_set(key, *args, **kwargs):
        if key.startswith(FRAGMENT_PREFIX):
            stored.append(key.split(".")[2])
        return original_set(key, *args, **kwargs)

    monkeypatch.setattr(backend, "set", recording_set)
    return stored


def chrome_pages(demo) -> list[str]:
    author = Author.objects.filter(articles__isnull=False).first()
    return ["/", "/blog/", demo.topics["gpu-costs"].url, demo.articles[0].url, f"/blog/authors/{author.slug}/"]


def test_chrome_costs_no_query_once_cached(client, demo):
    for path in ("/blog/", demo.articles[0].url):
        html(client, path)
        second = sql(client, path)
        for table in ("home_sitechromesettings", "wagtailcore_pageviewrestriction", "COUNT(*)"):
            assert table not in second, (path, table)


def test_the_topic_list_is_read_only_when_the_topic_navigation_is_not_cached(client, demo, stored_fragments):
    html(client, "/blog/")
    assert "topic-nav" in stored_fragments
    memo.generation_changed(cache.get(GENERATION_KEY))  # as a new process: the memo is empty
    with CaptureQueriesContext(connection) as queries:
        page = html(client, "/blog/")
    assert demo.topics["gpu-costs"].title in page
    # The listing's cards join blog_topicpage for their topics; the navigation's own query (the
    # topics under the blog index, by title) does not run.
    assert not any('ORDER BY "wagtailcore_page"."title"' in query["sql"] for query in queries.captured_queries)


@pytest.mark.parametrize(
    ("field", "value", "shown"),
    [
        ("login_url", "https://login.example.com/", 'href="https://login.example.com/" class="link-quiet"'),
        ("footer_text", "A new footer line", "· A new footer line</p>"),
    ],
)
def test_a_site_setting_changes_the_chrome_of_every_page_and_nothing_else(
    client, demo, stored_fragments, field, value, shown
):
    pages = chrome_pages(demo)
    before = {path: html(client, path) for path in pages}
    chrome = SiteChromeSettings.for_site(Site.objects.get(is_default_site=True))
    setattr(chrome, field, value)
    chrome.save()
    stored_fragments.clear()
    for path in pages:
        after = html(client, path)
        assert shown in after, path
        assert shown not in before[path], path
    # The chrome is rendered again; no card and no article body is.
    assert set(stored_fragments) >= CHROME_FRAGMENTS
    assert "article-card" not in stored_fragments and "article-body" not in stored_fragments
    assert "featured-card" not in stored_fragments


def test_a_renamed_topic_shows_in_the_navigation_of_every_listing_and_no_body_is_rendered(
    client, demo, stored_fragments
):
    listings = ["/blog/", "/blog/?page=2", *(topic.url for topic in demo.topics.values())]  # topic navigation
    for path in listings:
        html(client, path)
    html(client, demo.articles[0].url)
    topic = demo.topics["gpu-costs"]
    topic.title = "Spending on GPUs"
    topic.save_revision().publish()
    stored_fragments.clear()
    for path in listings:
        assert ">Spending on GPUs</a></li>" in html(client, path), path  # the topic navigation
    html(client, demo.articles[0].url)
    assert "topic-nav" in stored_fragments
    assert "article-body" not in stored_fragments


def test_settings_topics_and_restrictions_show_on_the_next_request(client, demo):
    html(client, "/blog/")
    chrome = SiteChromeSettings.for_site(Site.objects.get(is_default_site=True))
    chrome.footer_text = "A new footer line"
    chrome.save()
    assert "A new footer line" in html(client, "/blog/")

    topic = demo.topics["gpu-costs"]
    topic.title = "Spending on GPUs"
    topic.save_revision().publish()
    assert ">Spending on GPUs<" in html(client, "/blog/")

    article = ArticlePageFactory(parent=demo.blog, title="Members only", topics=[topic])
    assert "Members only" in html(client, "/blog/")
    restriction = PageViewRestriction.objects.create(page=article, restriction_type="password", password="pw")
    for path in ("/", "/blog/", topic.url, "/blog/feed/rss/", "/sitemap.xml"):
        assert "Members only" not in html(client, path), path
    assert 'name="password"' in html(client, article.url)
    restriction.delete()
    assert "Members only" in html(client, "/blog/")
    assert 'name="password"' not in html(client, article.url)


def test_a_change_made_by_another_process_shows_on_the_next_request(client, demo):
    html(client, "/blog/")
    # Another process (the scheduler, another worker) changes the database and replaces the
    # generation token in the shared cache; this process must notice at its next request.
    SiteChromeSettings.objects.update(footer_text="Changed elsewhere")
    assert "Changed elsewhere" not in html(client, "/blog/")  # the same generation: cached
    cache.set(GENERATION_KEY, "made-by-another-process", None)
    assert "Changed elsewhere" in html(client, "/blog/")


def test_nothing_is_remembered_outside_a_request(demo):
    built = []
    assert memo.current_generation() is None
    for _ in range(2):
        memo.memoized("key", lambda: built.append(1))
    assert len(built) == 2
