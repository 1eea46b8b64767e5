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
    ``{% wagtailcache %}`` uses), by fragment name ("article-card", "article-body"...)."""

    def __init__(self, monkeypatch):
        backend = caches["default"]
        self.stored, self.read = [], []
        original_set, original_get = backend.set, backend.get

        def recording_set(key, *args, **kwargs):
            if key.startswith(FRAGMENT_PREFIX):
                self.stored.append(key.split(".")[2])
            return original_set(key, *args, **kwargs)

        def recording_get(key, *args, **kwargs):
            if key.startswith(FRAGMENT_PREFIX):
                self.read.append(key.split(".")[2])
            return original_get(key, *args, **kwargs)

        monkeypatch.setattr(backend, "set", recording_set)
        monkeypatch.setattr(backend, "get", recording_get)

    def clear(self):
        self.stored.clear()
        self.read.clear()

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
    assert fragments.read  # served from the fragments
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
    # Only the site chrome, keyed by the cache generation (home/templatetags/chrome_tags.py).
    assert sorted(set(fragments.stored)) == ["site-footer", "site-header-brand", "site-header-links", "topic-nav"]


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
    """The keys the grid looks up (``blog.fragments.card_fragment_cache_key``) are those the card
    template stores: with every card cached, a listing runs no renditions query."""
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
    if path == demo.articles[0].url:
        assert len(renditions) == 1  # the hero picture and the author photos, outside the fragments
    else:
        assert renditions == []
    cache = caches["default"]
    cache.clear()
    with CaptureQueriesContext(connection) as cold:
        get(client, path)
    assert len([query for query in cold.captured_queries if "siterendition" in query["sql"]]) >= 1
