"""The site chrome memo (home/caching/site_chrome.py), with the full-page cache off as in the test
settings: what every page shows besides its content is remembered per cache generation, costs
no query once remembered, and a change reaches readers on the next request, also when another
process made it (a new generation token in the shared cache)."""

from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from wagtail.models import PageViewRestriction, Site

import pytest

from home.caching import site_chrome
from home.caching.page_cache import GENERATION_KEY
from home.models import SiteChromeSettings

from .factories import ArticlePageFactory
from .query_budget import PUBLIC_PAGES, BudgetSite

pytestmark = pytest.mark.django_db


def html(client, path, expect=200):
    response = client.get(path)
    assert response.status_code == expect, path
    return response.content.decode()


def sql(client, path) -> str:
    with CaptureQueriesContext(connection) as queries:
        html(client, path)
    return "\n".join(query["sql"] for query in queries.captured_queries)


def test_chrome_costs_no_query_once_remembered(client, demo):
    html(client, "/blog/")
    second = sql(client, "/blog/")
    for table in ("wagtailcore_site", "home_sitechromesettings", "wagtailcore_pageviewrestriction", "COUNT(*)"):
        assert table not in second, table


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
    # generation token in the shared cache; this process's memo must notice at its next request.
    SiteChromeSettings.objects.update(footer_text="Changed elsewhere")
    assert "Changed elsewhere" not in html(client, "/blog/")  # the same generation: remembered
    cache.set(GENERATION_KEY, "made-by-another-process", None)
    assert "Changed elsewhere" in html(client, "/blog/")


def test_nothing_is_remembered_outside_a_request(demo):
    built = []
    assert not site_chrome.is_active()
    for _ in range(2):
        site_chrome.memoized("key", lambda: built.append(1))
    assert len(built) == 2


@pytest.mark.parametrize("name", [name for name, _ in PUBLIC_PAGES])
def test_every_public_page_works_without_the_site_chrome(client, demo, settings, name):
    # The tests keep the chrome (as production with Redis does); `make run` does not
    # (SITE_CHROME_CACHE off with the local-memory cache), and code paths differ without it.
    from blog.models import Author

    settings.SITE_CHROME_CACHE = False
    site = BudgetSite(
        home=demo.home,
        blog=demo.blog,
        topic=next(iter(demo.topics.values())),
        author=Author.objects.filter(articles__isnull=False).first(),
        articles=demo.articles,
    )
    url = dict(PUBLIC_PAGES)[name](site)
    assert client.get(url).status_code == 200, url
