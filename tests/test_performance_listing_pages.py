"""ListingPaginator reads pages past a listing's middle from its end: every page must hold the
same cards, in the same order, as Django's own paginator gives, ties and missing dates included.
A listing's pages and cards are remembered for the cache generation, and a change shows at once."""

import re

from django.core.paginator import Paginator
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

import pytest

from blog.listings import ListingPaginator
from blog.models import ArticlePage

from .factories import ArticlePageFactory

pytestmark = pytest.mark.django_db


def test_every_page_matches_djangos_paginator(demo):
    same_day = timezone.now().replace(microsecond=0)
    for _ in range(25):
        ArticlePageFactory(parent=demo.blog, topics=[demo.topics["gpu-costs"]], date_published=same_day)
    undated = list(ArticlePage.objects.order_by("-pk")[:3].values_list("pk", flat=True))
    ArticlePage.objects.filter(pk__in=undated).update(date_published=None)

    listing = ArticlePage.objects.listed().child_of(demo.blog)
    ours, django = ListingPaginator(listing, 7), Paginator(listing, 7)
    assert ours.num_pages == django.num_pages > 4
    for number in ours.page_range:
        expected = [article.pk for article in django.page(number).object_list]
        assert [article.pk for article in ours.page(number).object_list] == expected, number
    assert [article.pk for article in ours.page(ours.num_pages).object_list][-3:] == sorted(undated, reverse=True)


# What a page of a listing shows (its articles, the featured one, the counts) and the cards' rows
# are remembered for the cache generation (blog.listings.remember_listing_page, remember_card_rows):
# a warm listing reads no article from the database, and every change a card or a listing shows
# starts a new generation, so it shows at the next request.

LISTING_PATHS = ["/", "/blog/", "/blog/?page=2", "/blog/gpu-costs/"]


@pytest.mark.parametrize("path", LISTING_PATHS)
def test_a_warm_listing_reads_no_article_from_the_database(client, demo, path):
    assert client.get(path).status_code == 200
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path).status_code == 200
    read = [query["sql"] for query in queries.captured_queries if "blog_articlepage" in query["sql"]]
    assert read == []


def _newest_on(topic):
    return ArticlePage.objects.live().filter(topics=topic).order_by("-date_published", "-pk").first()


@pytest.mark.parametrize("change", ["article title", "topic title", "author name", "new article", "unpublished"])
def test_a_change_shows_on_every_listing_page_at_the_next_request(client, demo, change):
    topic = demo.topics["gpu-costs"]
    for path in LISTING_PATHS:
        assert client.get(path).status_code == 200  # remembered for this generation
    article = _newest_on(topic)
    if change == "article title":
        article.title = "A title edited after the listing was read"
        article.save_revision().publish()
        shown, gone = article.title, None
    elif change == "topic title":
        topic.title = "GPU spending, renamed"
        topic.save_revision().publish()
        shown, gone = topic.title, None
    elif change == "author name":
        author = article.authors.first()
        author.name = "An author renamed after the listing was read"
        author.save()
        shown, gone = author.name, None
    elif change == "new article":
        new = ArticlePageFactory(parent=demo.blog, topics=[topic], title="A new article on GPU costs")
        new.save_revision().publish()
        shown, gone = new.title, None
    else:
        shown, gone = None, f'href="{article.url}"'
        article.unpublish()
    after = {path: client.get(path).content.decode() for path in ("/", "/blog/", topic.url)}
    for path, html in after.items():
        if shown is not None:
            assert shown in html, path
        if gone is not None:
            assert gone not in html, path


def test_past_the_bound_of_remembered_card_rows_the_rows_are_read_again(client, demo, monkeypatch):
    """The card rows remembered are bounded (``home.caching.memo.GROUP_MAX_ENTRIES``): a page
    whose rows are not all remembered reads the others (one query; their topics and authors are
    remembered apart, ``blog.listings.add_card_relations``) and shows the same page."""
    from home.caching import memo

    monkeypatch.setitem(memo.GROUP_MAX_ENTRIES, "card-rows", 3)
    first = client.get("/blog/").content
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/blog/").content == first
    read = [query["sql"] for query in queries.captured_queries if "blog_articlepage" in query["sql"]]
    assert len(read) == 1 and "live_revision" in read[0]


def _featured_href(html: str) -> str | None:
    match = re.search(r'<article class="featured__card">.*?href="([^"]+)"', html, flags=re.S)
    return match.group(1) if match else None


def test_a_preview_choosing_another_featured_article_never_reaches_readers(client, admin_client, demo):
    """The featured article's key is remembered for the generation (``featured_article_key``):
    a preview of a draft blog index featuring another article, the first to ask in a new
    generation, must not decide what readers see."""
    shown = _featured_href(client.get("/blog/").content.decode())
    other = next(article for article in demo.articles[1:] if article.url != shown)
    draft = demo.blog.get_latest_revision_as_object()
    draft.featured_article = other
    draft.save_revision()  # saves the page's row: a new generation
    preview = admin_client.get(reverse("wagtailadmin_pages:view_draft", args=[demo.blog.pk]))
    assert _featured_href(preview.content.decode()) == other.url
    assert _featured_href(client.get("/blog/").content.decode()) == shown
