"""Routing remembered for the cache generation (``home.models.HomePage.route``): a path Wagtail's
``Page.route`` resolved to a page whose own URL is that path costs one query for the page the
next time, and every change to the page tree (publish, unpublish, slug change, move, delete)
routes afresh at the next request."""

from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from wagtail.models import PageViewRestriction

import pytest

from blog.models import ArticlePage
from home.caching import memo
from home.caching.generation import GENERATION_KEY

pytestmark = pytest.mark.django_db


def _queries(client, path: str) -> tuple[int, int]:
    """(status, queries) of a request for ``path``."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    return response.status_code, len(queries.captured_queries)


def _remembered(home, path: str):
    """What the memo holds for ``path`` under ``home`` in this generation, as a request sees it."""
    token = memo.begin_request(cache.get(GENERATION_KEY))
    try:
        return memo.recall((home.pk, tuple(part for part in path.split("/") if part)), group="routes")
    finally:
        memo.end_request(token)


def test_a_path_routed_once_costs_no_query_for_its_page(client, demo):
    article = demo.articles[0]
    first = client.get(article.url).content
    # Wagtail's routing from the home page costs two queries per segment (4 for /blog/<slug>/);
    # remembered, none: the article is built from the row Wagtail's route read.
    with CaptureQueriesContext(connection) as queries:
        response = client.get(article.url)
    assert response.status_code == 200 and response.content == first
    # Nor for the site and the home page's row (home.upstream.wagtail.remembered_site_for_hostname).
    assert not queries.captured_queries, [query["sql"] for query in queries.captured_queries]


def test_a_remembered_page_reads_its_body_when_it_needs_it(client, demo):
    """The remembered row leaves the body out: with the article's outline evicted, the page
    reads its body (one query) to compute it again, and prints the same page."""
    from blog.fragments import outline_cache_key

    article = demo.articles[0]
    first = client.get(article.url).content
    client.get(article.url)
    assert cache.delete(outline_cache_key(article))
    with CaptureQueriesContext(connection) as queries:
        again = client.get(article.url).content
    assert again == first
    body_reads = [query["sql"] for query in queries.captured_queries if '"blog_articlepage"."body"' in query["sql"]]
    assert len(body_reads) == 1


@pytest.mark.parametrize("change", ["unpublish", "slug", "delete", "move"])
def test_a_change_to_the_tree_routes_afresh(client, demo, change, django_capture_on_commit_callbacks):
    article = ArticlePage.objects.get(pk=demo.articles[0].pk)
    old_url = article.url
    assert client.get(old_url).status_code == 200
    assert client.get(old_url).status_code == 200  # remembered
    new_url = None
    with django_capture_on_commit_callbacks(execute=True):
        if change == "unpublish":
            article.unpublish()
        elif change == "slug":
            article.slug = "a-new-slug"
            _ = article.save_revision().publish()
            new_url = "/blog/a-new-slug/"
        elif change == "delete":
            article.delete()
        else:
            article.move(demo.home, pos="last-child")
            new_url = f"/{article.slug}/"
    # Not found (Wagtail's automatic redirect answers the 404 after a slug change or move).
    response = client.get(old_url)
    assert (response.status_code, response.get("Location")) == ((301, new_url) if new_url else (404, None))
    if new_url:
        assert client.get(new_url).status_code == 200


def test_a_view_restriction_added_later_still_applies(client, demo):
    """Remembering the route skips no check: Wagtail's view restrictions run after routing."""
    article = demo.articles[0]
    assert client.get(article.url).status_code == 200
    PageViewRestriction.objects.create(page=article, restriction_type="login")
    response = client.get(article.url)
    assert response.status_code == 302 and "login" in response["Location"]


def test_unknown_paths_and_page_routes_are_not_remembered(client, demo):
    """A 404 (any path a crawler tries) and a path ending inside a page's own routes (feeds,
    author pages) are routed by Wagtail each time and leave nothing in the memo."""
    author = demo.articles[0].authors.first()
    for path in ("/blog/no-such-article/", "/blog/feed/rss/", f"/blog/authors/{author.slug}/", "/nope/"):
        client.get(path)
        first = _queries(client, path)
        assert _queries(client, path) == first, path
        assert _remembered(demo.home, path) is memo.MISSING, path
    client.get("/blog/gpu-costs/")
    model, values = _remembered(demo.home, "/blog/gpu-costs/")
    assert model is type(demo.topics["gpu-costs"]) and demo.topics["gpu-costs"].pk in values


def test_the_routes_group_has_its_own_bound(demo, monkeypatch):
    """Routes (one per page URL) never crowd out the small per-generation lookups, and stop
    being remembered at their own bound."""
    monkeypatch.setitem(memo.GROUP_MAX_ENTRIES, "routes", 3)
    monkeypatch.setattr(memo, "MAX_ENTRIES", 3)
    token = memo.begin_request(cache.get(GENERATION_KEY))
    try:
        for number in range(5):
            memo.remember(number, number, group="routes")
        memo.remember("restricted-paths", "small lookup")
        assert [memo.recall(number, group="routes") for number in range(5)] == [0, 1, 2, memo.MISSING, memo.MISSING]
        assert memo.recall("restricted-paths") == "small lookup"
    finally:
        memo.end_request(token)


# The site lookup remembered for the generation (home.upstream.wagtail.remembered_site_for_hostname).


def _site_lookup(hostname="localhost", port="80"):
    """``Site.find_for_request``'s lookup as a request in the current generation makes it."""
    from wagtail.models import sites

    token = memo.begin_request(cache.get(GENERATION_KEY))
    try:
        return sites.get_site_for_hostname(hostname, port)
    finally:
        memo.end_request(token)


def test_each_lookup_gets_fresh_instances_of_the_remembered_rows(demo, django_assert_num_queries):
    first = _site_lookup()
    first.site_name = "changed by one request"
    first.root_page.title = "changed by one request"
    with django_assert_num_queries(0):
        second = _site_lookup()
    assert second is not first and second.root_page is not first.root_page
    assert (second.pk, second.root_page_id) == (first.pk, first.root_page_id)
    assert second.site_name != "changed by one request" and second.root_page.title == demo.home.title
    # The root page comes specific, as routing asks for it.
    with django_assert_num_queries(0):
        assert second.root_page.localized.specific is second.root_page
    assert type(second.root_page) is type(demo.home)


def test_outside_a_request_the_site_is_looked_up_every_time(demo, django_assert_num_queries):
    from wagtail.models import sites

    sites.get_site_for_hostname("localhost", "80")
    with django_assert_num_queries(1):
        sites.get_site_for_hostname("localhost", "80")


def test_hosts_no_site_answers_are_not_remembered(client, demo, settings):
    """Any host a client sends gets Wagtail's answer again: a flood of hosts fills nothing."""
    from wagtail.models import Site

    settings.ALLOWED_HOSTS = ["*"]
    Site.objects.update(is_default_site=False)
    for host in ("unknown.example", "other.example"):
        assert client.get("/", HTTP_HOST=host).status_code == 404
        assert _remembered_site(host) is memo.MISSING


def _remembered_site(hostname, port="80"):
    token = memo.begin_request(cache.get(GENERATION_KEY))
    try:
        return memo.recall((hostname, port), group="sites")
    finally:
        memo.end_request(token)


@pytest.mark.parametrize(
    "change",
    ["site name", "hostname", "root page", "default site", "new site for the host", "site deleted", "home title"],
)
def test_a_change_to_a_site_or_its_root_page_shows_at_the_next_request(
    client, demo, settings, change, django_capture_on_commit_callbacks
):
    """Every change to what the lookup returns starts a new cache generation (a saved or deleted
    ``Site``, a published page): the next request looks the site up again."""
    from wagtail.models import Site

    settings.ALLOWED_HOSTS = ["*"]
    site = Site.objects.get(is_default_site=True)
    article = demo.articles[0]
    assert client.get(article.url, HTTP_HOST="blog.example").status_code == 200
    assert _remembered_site("blog.example") is not memo.MISSING
    with django_capture_on_commit_callbacks(execute=True):
        if change == "site name":
            site.site_name = "Renamed site"
            site.save()
        elif change == "hostname":
            site.hostname, site.is_default_site = "elsewhere.example", False
            site.save()
        elif change == "root page":
            site.root_page = demo.blog
            site.save()
        elif change == "default site":
            site.is_default_site = False
            site.save()
        elif change == "new site for the host":
            Site.objects.create(hostname="blog.example", root_page=demo.blog, site_name="Blog only")
        elif change == "site deleted":
            site.delete()
        else:
            home = type(demo.home).objects.get(pk=demo.home.pk)
            home.title = "A renamed home"
            home.save_revision().publish()
    looked_up = _site_lookup("blog.example") if change not in ("hostname", "default site", "site deleted") else None
    response = client.get(article.url, HTTP_HOST="blog.example")
    if change == "site name":
        assert looked_up.site_name == "Renamed site"
    elif change in ("hostname", "default site", "site deleted"):
        assert response.status_code == 404  # no site answers blog.example any more
    elif change in ("root page", "new site for the host"):
        assert looked_up.root_page_id == demo.blog.pk
        # The blog index is that site's root: the article is at /<slug>/ there.
        assert response.status_code == 404
        assert client.get(f"/{article.slug}/", HTTP_HOST="blog.example").status_code == 200
    else:
        assert looked_up.root_page.title == "A renamed home"
        assert response.status_code == 200
