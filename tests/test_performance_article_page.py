"""An article page's own cached fragments (the SEO head; the article from its header to its
author cards) are keyed by the version tokens of what they show (``ArticlePage.
get_cache_key_components``, ``blog.fragments.article_state``): a cached article runs none of the
queries for its topics, authors and renditions, an edit to anything it shows changes it on the
next request, an edit to something it does not show leaves its fragments alone, and previews
never read or write them. The test settings turn the full-page cache off."""

import re

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from wagtail.models import Site

import pytest

from blog.models import ArticlePage, TopicPage
from home.models import SiteChromeSettings

from .factories import ArticlePageFactory, AuthorFactory, SiteImageFactory, TopicPageFactory
from .test_performance_fragments import FragmentLog, get

pytestmark = pytest.mark.django_db

# The fragments keyed by the article's content (pages/article_page.html).
OWN_FRAGMENTS = {"article-head", "article-main", "article-body"}


@pytest.fixture
def fragments(monkeypatch):
    return FragmentLog(monkeypatch)


def _published(page):
    page.save_revision().publish()
    return type(page).objects.get(pk=page.pk)


def _article(demo, name: str) -> ArticlePage:
    """A published article with a topic, an author (with a photo) and an image of its own."""
    topic = _published(TopicPageFactory(parent=demo.blog, title=f"Topic {name}", slug=f"topic-{name}"))
    author = AuthorFactory(name=f"Writer {name}", photo=SiteImageFactory())
    article = ArticlePageFactory(
        parent=demo.blog, title=f"Article {name}", topics=[topic], authors=[author], image=SiteImageFactory()
    )
    return _published(article)


@pytest.fixture
def pair(demo):
    """Two published articles that share no topic, author or image."""
    return _article(demo, "one"), _article(demo, "two")


def _head(html: str) -> str:
    return html.split("</head>", 1)[0]


def _main(html: str) -> str:
    """The article from its header to its author cards (before previous/next links)."""
    article = html.split('<article class="article">', 1)[1]
    return article.split('<nav class="adjacent"', 1)[0].split("</footer>", 1)[0]


def test_a_cached_article_runs_only_its_routing_queries(client, pair, fragments):
    article, _ = pair
    first = get(client, article.url)
    assert {"article-head", "article-main", "article-body"} <= set(fragments.stored)
    fragments.clear()
    with CaptureQueriesContext(connection) as queries:
        second = get(client, article.url)
    assert second == first
    assert not OWN_FRAGMENTS & set(fragments.stored)
    tables = " ".join(query["sql"] for query in queries.captured_queries)
    # The site and the home page (the article's row is remembered: home.models.HomePage.route):
    # no topics, authors, images or renditions.
    assert len(queries.captured_queries) == 2, tables
    assert not re.search(r"blog_author|articlepage_topics|home_siteimage|home_siterendition", tables)


def _change(change: str, article: ArticlePage, demo) -> str:
    """Make ``change`` to what ``article`` shows; returns text the page must show afterwards (or
    "" when the change shows as different markup, such as a new rendition URL)."""
    if change == "image focal point":
        image = article.image
        image.focal_point_x, image.focal_point_y, image.focal_point_width, image.focal_point_height = 10, 10, 20, 20
        image.save()
        return ""
    if change == "topic title":
        topic = TopicPage.objects.get(pk=article.topics.get().pk)
        topic.title = "Renamed topic"
        _published(topic)
        return "Renamed topic"
    if change == "author name":
        author = article.authors.get()
        author.name = "Renamed Writer"
        author.save()
        return "Renamed Writer"
    if change == "author photo":
        author = article.authors.get()
        author.photo = SiteImageFactory()
        author.save()
        return ""
    if change == "author photo focal point":
        photo = article.authors.get().photo
        photo.focal_point_x, photo.focal_point_y, photo.focal_point_width, photo.focal_point_height = 5, 5, 10, 10
        photo.save()
        return ""
    if change == "new revision":
        article.title = "A retitled article"
        article.summary = "A summary from the new revision"
        _published(article)
        return "A summary from the new revision"
    raise AssertionError(change)


@pytest.mark.parametrize(
    "change",
    ["image focal point", "topic title", "author name", "author photo", "author photo focal point", "new revision"],
)
def test_an_edit_changes_the_article_and_no_unrelated_article(client, demo, pair, fragments, change):
    article, unrelated = pair
    before = get(client, article.url)
    unrelated_before = get(client, unrelated.url)
    fragments.clear()

    shown = _change(change, ArticlePage.objects.get(pk=article.pk), demo)
    after = get(client, article.url)
    assert after != before
    if shown:
        assert shown in after
    if change in ("image focal point", "new revision", "topic title", "author name"):
        assert _head(after) != _head(before)  # Open Graph image, JSON-LD, title
    if change != "new revision":
        assert _main(after) != _main(before)
    assert {"article-head", "article-main"} <= set(fragments.stored)

    fragments.clear()
    unrelated_after = get(client, unrelated.url)
    assert not OWN_FRAGMENTS & set(fragments.stored)
    assert _main(unrelated_after) == _main(unrelated_before)
    assert _head(unrelated_after) == _head(unrelated_before)


def test_a_site_setting_and_the_site_name_change_the_article_at_the_next_request(client, demo, pair, fragments):
    article, _ = pair
    before = get(client, article.url)
    assert "Book a call" not in before
    chrome = SiteChromeSettings.for_site(Site.objects.get(is_default_site=True))
    chrome.demo_label = "Book a call"
    chrome.brand_name = "Acme"
    chrome.save()
    after = get(client, article.url)
    # The article's own call to action (no call-to-action block in its body) and the JSON-LD
    # publisher, both inside its fragments.
    assert '<a class="button" href="https://cedana.ai/">Book a call</a>' in _main(after)
    assert '"publisher": {"@type": "Organization", "name": "Acme"' in _head(after)

    site = Site.objects.get(is_default_site=True)
    site.site_name = "Field notes"
    site.save()
    fragments.clear()
    assert '<meta property="og:site_name" content="Field notes">' in get(client, article.url)
    assert "article-head" in fragments.stored


def test_previews_show_the_draft_and_leave_the_live_fragments_alone(client, admin_client, demo, pair, fragments):
    """A draft with another topic: its preview shows the draft's topic, reads and writes no
    fragment, and stores no outline the live page would then use."""
    article, unrelated = pair
    live = get(client, article.url)
    other_topic = unrelated.topics.get()
    draft = article.get_latest_revision_as_object()
    draft.topics = [other_topic]
    draft.title = "Only in the draft"
    draft.save_revision()
    fragments.clear()
    preview = admin_client.get(reverse("wagtailadmin_pages:view_draft", args=[article.pk])).content.decode()
    assert "Only in the draft" in preview and other_topic.title in preview
    assert fragments.read == [] and fragments.read_many == [] and fragments.stored == []
    again = get(client, article.url)
    assert "Only in the draft" not in again and other_topic.title not in _main(again)
    assert _main(again) == _main(live)


def test_an_evicted_outline_is_computed_again_with_the_same_page(client, pair):
    """The outline (body outline, body references, topic and author ids) is an ordinary cache
    entry: when it is gone the page computes it again and prints the same thing."""
    from django.core.cache import caches

    from blog.fragments import outline_cache_key

    article, _ = pair
    first = get(client, article.url)
    assert caches["default"].delete(outline_cache_key(article))
    assert get(client, article.url) == first


def test_a_row_changed_without_a_new_revision_computes_the_outline_again(client, demo, pair):
    """The outline is checked against the article's own version token: a topic added in code
    and saved without publishing a revision (as a data migration might) is in the page's key
    from the next request, so renaming that topic later changes the page too."""
    article, unrelated = pair
    get(client, article.url)
    other_topic = TopicPage.objects.get(pk=unrelated.topics.get().pk)
    page = ArticlePage.objects.get(pk=article.pk)
    page.topics.add(other_topic)
    page.save()
    assert ArticlePage.objects.get(pk=article.pk).live_revision_id == article.live_revision_id
    assert other_topic.title in _main(get(client, article.url))
    other_topic.title = "Renamed later"
    _published(other_topic)
    assert "Renamed later" in _main(get(client, article.url))
