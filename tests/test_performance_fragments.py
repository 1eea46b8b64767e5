"""Rendered fragments (article cards, article bodies) are cached by what they show
(blog/fragments.py, home/caching/fragments.py): a second request renders none of them again, an
edit re-renders exactly the fragments that show the edited thing, and previews and reviewer links
neither read nor write them. The test settings turn the full-page cache off
(``PAGE_CACHE_SECONDS = 0``), so these tests also show that fragments stay on without it."""

import re
from datetime import timedelta

from django.core.cache import caches
from django.urls import reverse
from django.utils import timezone

from wagtail.models import Page, Site

import pytest

from blog.models import ArticlePage
from home.models import SiteChromeSettings, SiteImage

from .factories import ArticlePageFactory

pytestmark = pytest.mark.django_db

FRAGMENT_PREFIX = "template.cache."  # Django's make_template_fragment_key


class FragmentLog:
    """Which template fragments were read and stored in the default cache (the one
    ``{% wagtailcache %}`` and ``blog.fragments.render_cards`` use), by fragment name
    ("article-card", "article-body"...); ``set_many`` is Django's default, one ``set`` per key."""

    def __init__(self, monkeypatch):
        backend = caches["default"]
        self.stored, self.read, self.read_many, self.stored_keys = [], [], [], []
        original_set, original_get, original_get_many = backend.set, backend.get, backend.get_many

        def recording_set(key, *args, **kwargs):
            if key.startswith(FRAGMENT_PREFIX):
                self.stored.append(key.split(".")[2])
                self.stored_keys.append(key)
            return original_set(key, *args, **kwargs)

        inside_get_many = []

        def recording_get(key, *args, **kwargs):
            # Django's default get_many (locmem, file-based) calls get once per key: those reads
            # are the get_many's, recorded there.
            if key.startswith(FRAGMENT_PREFIX) and not inside_get_many:
                self.read.append(key.split(".")[2])
            return original_get(key, *args, **kwargs)

        def recording_get_many(keys, *args, **kwargs):
            keys = list(keys)
            names = [key.split(".")[2] for key in keys if key.startswith(FRAGMENT_PREFIX)]
            if names:
                self.read_many.append(names)
            inside_get_many.append(True)
            try:
                return original_get_many(keys, *args, **kwargs)
            finally:
                inside_get_many.pop()

        monkeypatch.setattr(backend, "set", recording_set)
        monkeypatch.setattr(backend, "get", recording_get)
        monkeypatch.setattr(backend, "get_many", recording_get_many)

    def clear(self):
        self.stored.clear()
        self.read.clear()
        self.read_many.clear()
        self.stored_keys.clear()

    def count(self, name: str) -> int:
        return self.stored.count(name)


@pytest.fixture
def fragments(monkeypatch):
    return FragmentLog(monkeypatch)


def get(client, path) -> str:
    response = client.get(path)
    assert response.status_code == 200, path
    return response.content.decode()


def cards(html: str) -> list[str]:
    """The HTML of each article card on a page (grid cards; the featured card is counted apart)."""
    return re.findall(r'<article class="card[ "].*?</article>', html, flags=re.S)


def test_page_cache_is_off_and_a_second_request_renders_no_card_or_body(client, demo, fragments, settings):
    assert settings.PAGE_CACHE_SECONDS == 0
    article = demo.articles[0]
    paths = ["/", "/blog/", demo.topics["gpu-costs"].url, article.url]
    first = {path: get(client, path) for path in paths}
    assert fragments.count("article-card") > 0 and fragments.count("article-body") == 1
    fragments.clear()
    second = {path: get(client, path) for path in paths}
    assert fragments.stored == []
    assert fragments.read or fragments.read_many  # served from the fragments
    assert second == first


def featured(html: str) -> str:
    match = re.search(r'<article class="featured__card">.*?</article>', html, flags=re.S)
    return match.group(0) if match else ""


def showing(html_parts: list[str], articles) -> list[str]:
    """The parts of ``html_parts`` (cards) that link to one of ``articles``."""
    return [part for part in html_parts if any(f"/{article.slug}/" in part for article in articles)]


@pytest.mark.parametrize("change", ["topic title", "author name", "image focal point", "image description"])
def test_an_edit_re_renders_only_the_cards_that_show_it(client, demo, fragments, change):
    html = get(client, "/blog/")
    grid, top = cards(html), featured(html)
    topic = demo.topics["gpu-costs"]
    article = next(a for a in ArticlePage.objects.live().filter(topics=topic) if f"/{a.slug}/" in "".join(grid))
    image, author = article.image, article.authors.first()
    if change == "image description":  # the card's alt text is the image's description
        article.image_alt = ""
        article.save_revision().publish()
        html = get(client, "/blog/")
        grid, top = cards(html), featured(html)

    if change == "topic title":
        topic.title = "GPU spend"
        topic.save_revision().publish()
        affected = ArticlePage.objects.filter(topics=topic)
    elif change == "author name":
        author.name = "Ada Renamed"
        author.save()
        affected = ArticlePage.objects.filter(authors=author)
    else:
        if change == "image focal point":
            image.focal_point_x = image.focal_point_y = 10
            image.focal_point_width = image.focal_point_height = 20
        else:
            image.description = "A freshly described picture"
        image.save()
        affected = ArticlePage.objects.filter(image=image)
    affected = list(affected.live())
    if change == "image description":
        affected = [other for other in affected if other.card_alt_text == image.description]
    assert showing(grid, affected)

    fragments.clear()
    new_html = get(client, "/blog/")
    assert fragments.count("article-card") == len(showing(grid, affected))
    assert fragments.count("featured-card") == len(showing([top], affected))
    # Exactly the cards showing the edited thing changed, and they show the edit.
    new_grid = cards(new_html)
    assert [card for card in new_grid if card not in grid] == showing(new_grid, affected)
    assert showing(new_grid, affected) != showing(grid, affected)


def test_a_site_setting_re_renders_no_card(client, demo, fragments):
    get(client, "/blog/")
    chrome = SiteChromeSettings.for_site(Site.objects.get(is_default_site=True))
    chrome.footer_text = "Footer from the settings"
    chrome.save()
    fragments.clear()
    assert "Footer from the settings" in get(client, "/blog/")
    # Only the site chrome and the listing's SEO head, keyed by the cache generation
    # (home/templatetags/chrome_tags.py, blog_tags.listing_head_key).
    assert sorted(set(fragments.stored)) == ["listing-head", "site-chrome", "topic-nav"]


def test_a_body_re_renders_when_what_it_refers_to_changes(client, demo, fragments):
    target = demo.articles[1]
    image = SiteImage.objects.exclude(pk=demo.articles[0].image_id).first()
    article = ArticlePageFactory(
        parent=demo.blog,
        title="Linking article",
        body=[
            {"type": "paragraph", "value": f'<p>See <a linktype="page" id="{target.pk}">that one</a>.</p>'},
            {"type": "image", "value": {"image": image.pk, "caption": "", "alt_text": "A figure"}},
        ],
    )
    article.save_revision().publish()
    get(client, article.url)
    fragments.clear()
    get(client, article.url)
    assert fragments.count("article-body") == 0

    # Another article changing leaves this body alone.
    other = demo.articles[-1]
    other.title = "Unrelated change"
    other.save_revision().publish()
    get(client, article.url)
    assert fragments.count("article-body") == 0

    # The linked page unpublished: the body's link becomes plain text.
    target.unpublish()
    html = get(client, article.url)
    assert fragments.count("article-body") == 1
    assert "that one" in html and f'href="{target.url_path}' not in html

    # The figure's image gets a new focal point: the body is rendered again.
    fragments.clear()
    image.focal_point_x, image.focal_point_y, image.focal_point_width, image.focal_point_height = 5, 5, 10, 10
    image.save()
    get(client, article.url)
    assert fragments.count("article-body") == 1


def test_a_moved_parent_re_renders_the_links_in_bodies(client, demo, fragments, django_capture_on_commit_callbacks):
    target = demo.articles[1]
    article = ArticlePageFactory(
        parent=demo.blog,
        title="Linking article",
        body=[{"type": "paragraph", "value": f'<p>See <a linktype="page" id="{target.pk}">that one</a>.</p>'}],
    )
    article.save_revision().publish()
    assert f'href="/blog/{target.slug}/"' in get(client, article.url)
    blog = Page.objects.get(pk=demo.blog.pk).specific
    blog.slug = "notes"
    with django_capture_on_commit_callbacks(execute=True):  # Wagtail sends page_slug_changed on commit
        blog.save_revision().publish()
    fragments.clear()
    html = get(client, f"/notes/{article.slug}/")
    assert fragments.count("article-body") == 1
    assert f'href="/notes/{target.slug}/"' in html


def test_cards_follow_a_site_given_another_root_page(client, demo, fragments):
    """A site's root page decides every page's URL under it: cards rendered before the change
    are not served after it (the card key holds every site's root path), either way."""
    site = Site.objects.get(is_default_site=True)
    slugs = [article.slug for article in demo.articles[:3]]

    before = get(client, "/blog/")
    assert any(f'href="/blog/{slug}/"' in before for slug in slugs)
    site.root_page = demo.blog
    site.save()
    as_root = get(client, "/")  # the blog index, now the site's root
    assert not re.search(r'href="/blog/[\w-]+/"', as_root), "a card kept its old URL"
    assert any(f'href="/{slug}/"' in as_root for slug in slugs)
    assert client.get(f"/{slugs[0]}/").status_code == 200

    site.root_page = demo.home
    site.save()
    again = get(client, "/blog/")
    assert any(f'href="/blog/{slug}/"' in again for slug in slugs)
    assert not any(f'href="/{slug}/"' in again for slug in slugs), "a card kept the URL of the other root"


def test_previews_never_read_or_write_fragments(admin_client, demo, fragments):
    article = demo.articles[0]
    get(admin_client, article.url)  # live fragments exist
    fragments.clear()
    draft = article.get_latest_revision_as_object()
    draft.title = "Only in the draft"
    draft.save_revision()
    response = admin_client.get(reverse("wagtailadmin_pages:view_draft", args=[article.pk]))
    assert response.status_code == 200
    assert "Only in the draft" in response.content.decode()
    assert fragments.read == [] and fragments.stored == []


def test_a_listing_preview_never_reads_or_writes_cards(admin_client, demo, fragments):
    """The admin preview of the blog index renders every card afresh (blog.fragments.render_cards
    skips the cache when ``request.is_preview``), even with the live cards cached."""
    get(admin_client, "/blog/")  # live cards exist
    fragments.clear()
    blog = demo.blog.get_latest_revision_as_object()
    blog.listing_heading = "Only in the draft"
    blog.save_revision()
    response = admin_client.get(reverse("wagtailadmin_pages:view_draft", args=[demo.blog.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Only in the draft" in html and len(cards(html)) > 0
    assert fragments.read == [] and fragments.read_many == [] and fragments.stored == []


def test_reviewer_links_never_read_or_write_fragments(client, demo, fragments, editor):
    from blog.models import ReviewerLink
    from blog.reviewer_links import make_token

    article = demo.articles[0]
    get(client, article.url)
    draft = article.get_latest_revision_as_object()
    draft.summary = "A summary only reviewers see"
    revision = draft.save_revision()
    link = ReviewerLink.objects.create(
        page=article, revision=revision, created_by=editor, expires_at=timezone.now() + timedelta(days=1)
    )
    fragments.clear()
    response = client.get(reverse("reviewer_link", args=[make_token(link)]))
    assert response.status_code == 200
    assert "A summary only reviewers see" in response.content.decode()
    assert fragments.read == [] and fragments.stored == []


@pytest.mark.parametrize("path", ["/", "/blog/", "/blog/gpu-costs/", "article", "author"])
def test_the_grid_fetches_renditions_only_for_cards_not_cached(client, demo, path, django_assert_num_queries):
    """The keys the grid looks up are those ``blog.fragments.render_cards`` stores: with every
    card cached, a listing runs no renditions query."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    if path == "article":
        path = demo.articles[0].url
    elif path == "author":
        author = demo.articles[0].authors.first()
        path = f"/blog/authors/{author.slug}/"
    get(client, path)
    with CaptureQueriesContext(connection) as warm:
        get(client, path)
    renditions = [query["sql"] for query in warm.captured_queries if "siterendition" in query["sql"]]
    # An article's hero picture and author photos are inside its own cached fragment too.
    assert renditions == []
    cache = caches["default"]
    cache.clear()
    with CaptureQueriesContext(connection) as cold:
        get(client, path)
    assert len([query for query in cold.captured_queries if "siterendition" in query["sql"]]) >= 1


@pytest.mark.parametrize("path", ["/", "/blog/", "/blog/gpu-costs/", "article", "author"])
def test_a_listing_reads_its_cached_cards_in_one_round_trip(client, demo, fragments, path):
    """With every card cached, a listing's grid of cards comes from the grid stored whole, keyed
    by its cards' keys, read with the featured card in one ``get_many``
    (``blog.fragments.render_card_groups``), not from one ``get`` per card; the page is the same
    as when the cards were rendered."""
    if path == "article":
        path = demo.articles[0].url
    elif path == "author":
        path = f"/blog/authors/{demo.articles[0].authors.first().slug}/"
    first = get(client, path)
    assert fragments.count("article-card") > 0
    fragments.clear()
    second = get(client, path)
    assert second == first
    assert fragments.stored == []
    card_names = ("article-card", "featured-card", "article-card-grid")
    assert [name for name in fragments.read if name in card_names] == []
    card_reads = [names for names in fragments.read_many if set(names) & set(card_names)]
    if path == demo.articles[0].url:
        # The related posts are one fragment of their own (pages/article_page.html): their cards
        # are not even looked up while it is cached.
        assert card_reads == [] and len(cards(second)) > 0
    else:
        featured_shown = bool(featured(second))
        assert featured_shown == (path in ("/blog/", "/blog/gpu-costs/"))
        assert card_reads == [["article-card-grid", *(["featured-card"] if featured_shown else [])]]
        assert len(cards(second)) > 1


def test_a_grid_is_stored_whole_and_a_changed_card_makes_a_new_grid(client, demo, fragments):
    """The grid stored whole is keyed by its cards' keys: an edit to one card reads the others
    with one ``get_many``, renders that card alone and stores the new grid."""
    first = get(client, "/blog/")
    assert fragments.count("article-card-grid") == 1
    article = next(a for a in demo.articles if f"/{a.slug}/" in "".join(cards(first)))
    article.title = "A title edited after the grid was stored"
    article.save_revision().publish()
    fragments.clear()
    assert article.title in get(client, "/blog/")
    assert fragments.count("article-card") == 1
    assert fragments.count("article-card-grid") == 1
    assert [len(names) for names in fragments.read_many if "article-card" in names] == [len(cards(first))]


def test_a_card_missing_from_the_cache_is_rendered_and_stored_beside_prefetched_ones(client, demo, fragments):
    """One card evicted with the grid stored whole: the other cards come from the listing's
    ``get_many``, the evicted one is rendered and stored again (``blog.fragments.render_cards``);
    the page does not change."""
    fragments.clear()
    first = get(client, "/blog/")
    caches["default"].delete(next(key for key in fragments.stored_keys if ".article-card." in key))
    caches["default"].delete(next(key for key in fragments.stored_keys if ".article-card-grid." in key))
    fragments.clear()
    assert get(client, "/blog/") == first
    assert fragments.count("article-card") == 1


def heading(text: str) -> dict:
    return {"type": "heading", "value": {"text": text, "level": "h2", "anchor": ""}}


def test_an_article_whose_outline_is_cached_does_not_walk_its_body(client, demo, monkeypatch):
    """The reading time, the table of contents, the JSON-LD word count and the call-to-action
    choice come from the outline cached for the live revision: a second request never walks the
    StreamField (``ArticlePage.body_outline`` is not computed) and prints the same page."""
    from django.utils.functional import cached_property

    article = ArticlePageFactory(
        parent=demo.blog,
        title="Outlined article",
        body=[heading("First part"), {"type": "paragraph", "value": "<p>one two three</p>"}, heading("Second part")],
    )
    article.save_revision().publish()
    first = get(client, article.url)
    assert "First part" in first and '"wordCount": 7' in first

    walks = []
    compute = ArticlePage.body_outline.func

    def counting(page):
        walks.append(page.pk)
        return compute(page)

    outline = cached_property(counting)
    outline.__set_name__(ArticlePage, "body_outline")
    monkeypatch.setattr(ArticlePage, "body_outline", outline)
    assert get(client, article.url) == first
    assert walks == []


def test_a_new_revision_gets_its_own_outline_and_previews_compute_theirs(client, admin_client, demo):
    """The outline is keyed by the live revision: publishing a body with another heading changes
    the contents list at once; a preview of a draft shows the draft's headings, never the cached
    outline of the live revision."""
    article = ArticlePageFactory(parent=demo.blog, title="Outlined article", body=[heading("Old heading")])
    article.save_revision().publish()
    assert "Old heading" in get(client, article.url)

    draft = ArticlePage.objects.get(pk=article.pk)
    draft.body = [heading("Old heading"), heading("Draft heading")]
    draft.save_revision()
    preview = admin_client.get(reverse("wagtailadmin_pages:view_draft", args=[article.pk]))
    assert 'href="#draft-heading"' in preview.content.decode()
    assert 'href="#draft-heading"' not in get(client, article.url)

    draft.get_latest_revision().publish()
    assert 'href="#draft-heading"' in get(client, article.url)


def test_search_results_read_their_cached_cards_in_one_round_trip(client, demo, fragments, settings):
    """A search whose result cards are cached (keyed with their highlighted texts) prints them
    from one ``get_many`` (no grid stored whole: the search results cache holds the page) and
    fetches no renditions; the results cache is off, so the search itself runs again."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    settings.SEARCH_RESULTS_CACHE_SECONDS = 0
    first = get(client, "/search/?query=gpu")
    assert len(cards(first)) > 1
    fragments.clear()
    with CaptureQueriesContext(connection) as queries:
        second = get(client, "/search/?query=gpu")
    assert second == first
    assert fragments.stored == [] and "article-card" not in fragments.read
    assert [len(names) for names in fragments.read_many if "article-card" in names] == [len(cards(second))]
    assert "article-card-grid" not in fragments.read
    assert not [query for query in queries.captured_queries if "siterendition" in query["sql"]]


class ArticleInstances:
    """How many ArticlePage instances are built (Django's ``post_init``), by primary key."""

    def __init__(self):
        self.built = []

    def __call__(self, sender, instance, **kwargs):
        self.built.append(instance.pk)


@pytest.fixture
def article_instances():
    from django.db.models.signals import post_init

    counter = ArticleInstances()
    post_init.connect(counter, sender=ArticlePage)
    yield counter
    post_init.disconnect(counter, sender=ArticlePage)


def listing_path(demo, name) -> str:
    return {
        "home": "/",
        "blog index": "/blog/",
        "blog index page 2": "/blog/?page=2",
        "topic": demo.topics["engineering"].url,
        "author": f"/blog/authors/{demo.articles[0].authors.first().slug}/",
    }[name]


@pytest.mark.parametrize("name", ["home", "blog index", "blog index page 2", "topic", "author"])
def test_a_listing_whose_cards_are_cached_builds_no_article(client, demo, article_instances, name):
    """Card keys come from values rows (blog.listings.card_rows): with every card cached, a listing
    builds no ArticlePage at all; the first request, which renders them, builds one per card."""
    path = listing_path(demo, name)
    first = get(client, path)
    assert len(article_instances.built) >= len(cards(first)) > 0
    article_instances.built.clear()
    assert get(client, path) == first
    assert article_instances.built == []


def grid_and_featured(html: str) -> list[str]:
    return [*cards(html), *([featured(html)] if featured(html) else [])]


@pytest.mark.parametrize("name", ["blog index", "topic", "home", "author"])
def test_an_edited_title_re_renders_only_its_card(client, demo, fragments, article_instances, name):
    path = listing_path(demo, name)
    before = grid_and_featured(get(client, path))
    shown = [article for article in demo.articles if showing(before, [article])]
    article = ArticlePage.objects.get(pk=shown[1].pk)
    article.title = "A title edited since"
    article.save_revision().publish()
    fragments.clear()
    article_instances.built.clear()
    after = grid_and_featured(get(client, path))
    assert fragments.count("article-card") + fragments.count("featured-card") == 1
    assert article_instances.built == [article.pk]  # only the card re-rendered is loaded
    changed = [card for card in after if card not in before]
    assert len(changed) == 1 and "A title edited since" in changed[0]
    assert [card for card in after if card != changed[0]] == [
        card for card in before if card not in showing(before, [article])
    ]


@pytest.mark.parametrize("name", ["blog index", "topic", "home"])
def test_an_unpublished_article_leaves_the_listing_at_the_next_request(client, demo, fragments, name):
    """The next article moves up into the page: its card is the only one rendered."""
    path = listing_path(demo, name)
    before = cards(get(client, path))
    gone = next(
        article
        for article in demo.articles
        if showing(before, [article]) and before.index(showing(before, [article])[0]) > 0
    )
    ArticlePage.objects.get(pk=gone.pk).unpublish()
    fragments.clear()
    after = cards(get(client, path))
    assert not showing(after, [gone])
    assert len(after) == len(before)
    assert fragments.count("article-card") == 1
    assert [card for card in after if card in before] == [
        card for card in before if card not in showing(before, [gone])
    ]


@pytest.mark.parametrize("change", ["article title", "topic title", "author name", "image focal point"])
def test_an_edit_re_renders_only_the_search_results_that_show_it(client, demo, fragments, settings, change):
    """Search result cards are keyed by what they show, as grid cards are (the highlighted texts
    besides): an edit re-renders only the results showing it."""
    settings.SEARCH_RESULTS_CACHE_SECONDS = 0
    path = "/search/?query=gpu"
    before = cards(get(client, path))
    shown = [article for article in demo.articles if showing(before, [article])]
    article = ArticlePage.objects.get(pk=shown[0].pk)
    if change == "article title":
        article.title = f"{article.title} revised"
        article.save_revision().publish()
        affected = [article]
    elif change == "topic title":
        topic = article.topics.first()
        topic.title = "Renamed topic"
        topic.save_revision().publish()
        affected = list(ArticlePage.objects.filter(topics=topic))
    elif change == "author name":
        author = article.authors.first()
        author.name = "Renamed Author"
        author.save()
        affected = list(ArticlePage.objects.filter(authors=author))
    else:
        image = article.image
        image.focal_point_x = image.focal_point_y = 10
        image.focal_point_width = image.focal_point_height = 20
        image.save()
        affected = list(ArticlePage.objects.filter(image=image))
    fragments.clear()
    after = cards(get(client, path))
    assert fragments.count("article-card") == len(showing(after, affected)) > 0
    assert [card for card in after if card not in before] == showing(after, affected)


@pytest.mark.parametrize("path", ["/blog/", "/blog/?page=2", "/blog/gpu-costs/"])
def test_a_listing_renders_its_seo_head_once_per_generation(client, demo, fragments, path):
    first = get(client, path)
    assert fragments.count("listing-head") == 1
    fragments.clear()
    assert get(client, path) == first
    assert fragments.stored == []
    assert "listing-head" in fragments.read


@pytest.mark.parametrize("change", ["search description", "site name", "social image"])
def test_a_listing_head_shows_an_edit_at_the_next_request(client, demo, change):
    topic = demo.topics["gpu-costs"]
    for path in ("/blog/", topic.url):
        get(client, path)
    if change == "search description":
        for page in (demo.blog, topic):
            page.search_description = f"Edited description of {page.title}"
            page.save_revision().publish()
        expected = {"/blog/": demo.blog.search_description, topic.url: topic.search_description}
    elif change == "site name":
        site = Site.objects.get(is_default_site=True)
        site.site_name = "Renamed site"
        site.save()
        expected = dict.fromkeys(("/blog/", topic.url), '<meta property="og:site_name" content="Renamed site">')
    else:
        image = ArticlePage.objects.live().first().image
        for page in (demo.blog, topic):
            page.social_image = image
            page.save_revision().publish()
        expected = dict.fromkeys(("/blog/", topic.url), '<meta property="og:image" content="')
    for path, text in expected.items():
        assert text in get(client, path), path


# A listing whose cards are missing from the cache (every cache emptied, or cards evicted) loads
# and renders them in one batch (blog.fragments.render_card_groups): the featured card's with
# the grid's, their ArticlePage rows in one query and their images' renditions in one more, their
# topics and authors from the card rows the listing read already.


def article_rows_loaded(queries) -> list[str]:
    """The queries that build ArticlePage instances (their page columns), not card rows or counts."""
    return [
        query["sql"]
        for query in queries.captured_queries
        if '"blog_articlepage"' in query["sql"] and '"wagtailcore_page"."translation_key"' in query["sql"]
    ]


def relation_prefetches(queries) -> list[str]:
    return [query["sql"] for query in queries.captured_queries if "_prefetch_related_val" in query["sql"]]


def renditions_read(queries) -> list[str]:
    return [query["sql"] for query in queries.captured_queries if "siterendition" in query["sql"]]


@pytest.mark.parametrize("path", ["/blog/", "/blog/gpu-costs/"])
def test_a_cold_listing_renders_the_featured_card_and_the_grid_in_one_batch(client, demo, article_instances, path):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    get(client, path)  # renditions made
    caches["default"].clear()
    article_instances.built.clear()
    with CaptureQueriesContext(connection) as queries:
        html = get(client, path)
    shown = grid_and_featured(html)
    assert featured(html) and len(shown) > 2
    assert len(article_rows_loaded(queries)) == 1
    assert len(renditions_read(queries)) == 1
    assert relation_prefetches(queries) == []  # topics and authors come from the card rows
    # Each card's article built once, none for the listing's own rows.
    assert sorted(article_instances.built) == sorted(set(article_instances.built))
    assert len(article_instances.built) == len(shown)


@pytest.mark.parametrize("path", ["/blog/", "/blog/gpu-costs/", "/", "author"])
def test_a_listings_queries_are_the_same_however_many_cards_are_missing(client, demo, fragments, path):
    """One card evicted or every card (and the featured one): the same queries, two more than
    with every card cached (the missing cards' ArticlePage rows, their renditions)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    if path == "author":
        path = f"/blog/authors/{demo.articles[0].authors.first().slug}/"
    fragments.clear()
    first = get(client, path)
    card_keys = [key for key in fragments.stored_keys if ".article-card." in key or ".featured-card." in key]
    grid_keys = [key for key in fragments.stored_keys if ".article-card-grid." in key]
    assert len(card_keys) == len(grid_and_featured(first)) > 2 and len(grid_keys) == 1
    with CaptureQueriesContext(connection) as warm:
        get(client, path)
    counts = {}
    for evicted in (card_keys[:1], card_keys[: len(card_keys) // 2], card_keys):
        caches["default"].delete_many([*evicted, *grid_keys])
        fragments.clear()
        with CaptureQueriesContext(connection) as queries:
            assert get(client, path) == first
        assert fragments.count("article-card") + fragments.count("featured-card") == len(evicted)
        assert len(article_rows_loaded(queries)) == len(renditions_read(queries)) == 1
        counts[len(evicted)] = len(queries)
    assert set(counts.values()) == {len(warm) + 2}, counts


def test_related_posts_store_their_cards_but_not_a_grid_whole(client, demo, fragments):
    """An article's related posts are inside a fragment cached for the generation
    (``article-around``), which holds the grid's HTML: their cards are stored (listings and
    search share them) but not the grid whole as well (``blog.fragments.CardGroup.inside_fragment``:
    one file fewer on a cold article); a listing's grid still is."""
    caches["default"].clear()
    html = get(client, demo.articles[0].url)
    assert len(cards(html)) > 1
    assert fragments.count("article-card") == len(cards(html))
    assert fragments.count("article-card-grid") == 0
    get(client, "/blog/")
    assert fragments.count("article-card-grid") == 1
