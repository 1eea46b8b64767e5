"""An article page's own cached fragments (the SEO head; the article from its header to its
author cards) are keyed by the version tokens of what they show (``ArticlePage.
get_cache_key_components``, ``blog.fragments.article_state``): a cached article runs none of the
queries for its topics, authors and renditions, an edit to anything it shows changes it on the
next request, an edit to something it does not show leaves its fragments alone, and previews
never read or write them. The test settings turn the full-page cache off."""

import json
import re
from collections import Counter

from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from wagtail.models import Page, Site

import pytest

from blog.models import ArticlePage, TopicPage
from home.caching.fragments import object_key
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
    # Routing is remembered (the site and home page: home.upstream.wagtail; the article's row:
    # home.models.HomePage.route): no query, so no topics, authors, images or renditions.
    assert len(queries.captured_queries) == 0, tables
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


CHANGES = [
    "image focal point",
    "topic title",
    "author name",
    "author photo",
    "author photo focal point",
    "new revision",
]


def test_an_edit_changes_the_article_and_no_unrelated_article(client, demo, pair, fragments):
    """Each change of ``CHANGES`` in turn, on the same two articles: after each, the article
    shows it at the next request and the unrelated article is served from its fragments,
    unchanged (one pair for all: each of its four images has its renditions made once)."""
    article, unrelated = pair
    unrelated_before = get(client, unrelated.url)
    for change in CHANGES:
        before = get(client, article.url)
        fragments.clear()

        shown = _change(change, ArticlePage.objects.get(pk=article.pk), demo)
        after = get(client, article.url)
        assert after != before, change
        if shown:
            assert shown in after, change
        if change in ("image focal point", "new revision", "topic title", "author name"):
            assert _head(after) != _head(before), change  # Open Graph image, JSON-LD, title
        if change != "new revision":
            assert _main(after) != _main(before), change
        assert {"article-head", "article-main"} <= set(fragments.stored), change

        fragments.clear()
        unrelated_after = get(client, unrelated.url)
        assert not OWN_FRAGMENTS & set(fragments.stored), change
        assert _main(unrelated_after) == _main(unrelated_before), change
        assert _head(unrelated_after) == _head(unrelated_before), change


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


class CacheCalls:
    """The keys read and written through the default cache's public API (``get``, ``get_many``,
    ``set``, ``set_many``, ``add``), counted once per key however the backend implements
    ``get_many``/``set_many`` (Django's default calls ``get``/``set`` once per key)."""

    def __init__(self, monkeypatch):
        backend = caches["default"]
        self.read, self.written = Counter(), Counter()
        inside = []

        def recording(name, counter, many):
            original = getattr(backend, name)

            def call(keys, *args, **kwargs):
                if not inside:
                    counter.update(list(keys) if many else [keys])
                inside.append(name)
                try:
                    return original(keys, *args, **kwargs)
                finally:
                    inside.pop()

            monkeypatch.setattr(backend, name, call)

        recording("get", self.read, many=False)
        recording("get_many", self.read, many=True)
        recording("set", self.written, many=False)
        recording("set_many", self.written, many=True)
        recording("add", self.written, many=False)

    def ours(self, counter: Counter) -> Counter:
        """The fragments' and version tokens' keys in ``counter`` (not Django's or Wagtail's)."""
        return Counter({key: n for key, n in counter.items() if key.startswith(("fragments:", "template.cache."))})


def _breadcrumbs(html: str) -> list[str]:
    """The names in the page's JSON-LD ``BreadcrumbList`` (in the article's cached SEO head)."""
    for script in re.findall(r'<script type="application/ld\+json">(.*?)</script>', _head(html), flags=re.S):
        data = json.loads(script)
        if data.get("@type") == "BreadcrumbList":
            return [item["name"] for item in data["itemListElement"]]
    return []


def test_a_renamed_ancestor_changes_the_breadcrumbs_and_not_the_body(client, demo, pair, fragments, monkeypatch):
    """The breadcrumbs show the live ancestors' titles and URLs, which are part of the key of the
    article's own fragments (``home.seo.ancestor_crumbs``, remembered for the cache generation)
    instead of the ancestors' version tokens (none is read): a renamed blog index or home page
    shows at the next request; the body's fragment, which shows neither, is not rendered again."""
    article, _ = pair
    assert "Field notes" not in _breadcrumbs(get(client, article.url))
    calls = CacheCalls(monkeypatch)
    get(client, article.url)
    ancestors = [object_key(Page, pk) for pk in Page.objects.ancestor_of(article).values_list("pk", flat=True)]
    assert calls.read and not set(ancestors) & set(calls.read)  # no ancestor's token read
    blog = type(demo.blog).objects.get(pk=demo.blog.pk)
    blog.title = "Field notes"
    blog.save_revision().publish()
    fragments.clear()
    assert "Field notes" in _breadcrumbs(get(client, article.url))
    assert "article-head" in fragments.stored and "article-body" not in fragments.stored
    home = Page.objects.get(pk=demo.blog.get_parent().pk).specific
    home.title = "Front page"
    home.save_revision().publish()
    assert _breadcrumbs(get(client, article.url))[:2] == ["Front page", "Field notes"]


def test_a_cold_article_reads_each_key_once_and_stores_the_site_chrome_as_one_entry(client, pair, monkeypatch):
    """Everything cold (issue 14): an article's request with every cache empty reads each of its
    fragment and token keys once (the article's own token too: ``blog.fragments.article_state``
    reads it before computing the outline, and not again with the other tokens) and writes each
    once; the header's brand and links and the footer are one entry ("site-chrome",
    ``home/templatetags/chrome_tags.py``), not three. On the file-based cache every write is a
    file created, compressed and renamed: the cold request's largest cost after rendering."""
    article = pair[0]
    calls = CacheCalls(monkeypatch)
    caches["default"].clear()
    get(client, article.url)
    read, written = calls.ours(calls.read), calls.ours(calls.written)
    page_token = object_key(Page, article.pk)
    assert read[page_token] == 1 and written[page_token] == 1
    assert max(read.values()) == 1 and max(written.values()) == 1
    chrome = [key for key in written if ".site-" in key]
    assert len(chrome) == 1 and chrome[0].startswith("template.cache.site-chrome.")
    # The second request reads the chrome once, and writes nothing.
    calls.read.clear()
    calls.written.clear()
    get(client, article.url)
    assert [key for key in calls.ours(calls.read) if ".site-" in key] == chrome
    assert calls.ours(calls.written) == Counter()
