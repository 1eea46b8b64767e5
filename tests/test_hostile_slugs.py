"""Unicode slugs work in every route and filter of ours (topic pages and their feeds, the search
topic filter, author pages, the sitemap); with ``WAGTAIL_ALLOW_UNICODE_SLUGS`` off, no page or
author is saved with an empty or punctuation-only slug, and siblings stay unique (issue 15,
"Slugs"; ``home.slugs``).

Renaming: a page that was never live leaves no redirect behind (its old addresses were never
public), a redirect never leads from a page's own address (no loop once it is not live), and a
redirect to a page that is not live is not followed; a live article renamed still redirects
(``home/upstream/wagtail.py``).
"""

import re
from datetime import timedelta
from urllib.parse import quote

from django.test import Client
from django.urls import reverse
from django.utils import timezone

from wagtail.contrib.redirects.models import Redirect
from wagtail.test.utils.form_data import nested_form_data

import pytest

from blog.models import ArticlePage, Author, TopicPage

from .admin_forms import article_form_data
from .factories import ArticlePageFactory, AuthorFactory, TopicPageFactory
from .sitemaps import sitemap_text

pytestmark = pytest.mark.django_db

UNICODE_SLUGS = ["gpu-kosten-ü", "日本語", "ценообразование", "κόστος-gpu", "تكلفة", "café_2", "ß-straße"]


@pytest.mark.parametrize("slug", UNICODE_SLUGS)
def test_unicode_slugs_work_in_every_route_and_filter(client, demo, slug):
    topic = TopicPageFactory(parent=demo.blog, title=f"Topic {slug}", slug=slug)
    topic.save_revision().publish()
    author = AuthorFactory(name=f"Author {slug}", slug=f"a-{slug}")
    article = ArticlePageFactory(parent=demo.blog, title=f"Article {slug}", topics=[topic], authors=[author])
    article.save_revision().publish()

    for url in (topic.url, f"{topic.url}feed/rss/", f"{topic.url}feed/atom/", demo.blog.get_author_url(author)):
        response = client.get(url)
        assert response.status_code == 200, url
    assert f"Article {slug}" in client.get(demo.blog.get_author_url(author)).content.decode()

    # Text without tags: the matched word in a result's title is highlighted (<mark>).
    search = re.sub(r"<[^>]+>", "", client.get("/search/", {"query": "Article", "topic": slug}).content.decode())
    assert "That topic does not exist" not in search
    assert f"Article {slug}" in search

    sitemap = sitemap_text(client)
    assert slug in sitemap or quote(slug) in sitemap


def topic_post(admin_client, demo, title: str, slug: str):
    url = reverse("wagtailadmin_pages:add", args=("blog", "topicpage", demo.blog.pk))
    return admin_client.post(url, nested_form_data({"title": title, "slug": slug, "intro": ""}))


# (title, slug) pairs whose URL would have no letter or digit with unicode slugs off.
NO_URL_WITHOUT_UNICODE = [
    ("!!!", ""),
    ("日本語", ""),
    ("…", ""),
    ("Costs", "---"),
    ("Costs", "_"),
    ("Costs", "-_-"),
    ("Costs", "日本語"),
    ("Costs", "café"),
]


@pytest.mark.parametrize(("title", "slug"), NO_URL_WITHOUT_UNICODE)
def test_without_unicode_slugs_a_page_needs_a_slug_with_a_letter_or_digit(admin_client, demo, settings, title, slug):
    settings.WAGTAIL_ALLOW_UNICODE_SLUGS = False
    count = TopicPage.objects.count()
    response = topic_post(admin_client, demo, title, slug)
    assert response.status_code == 200, (title, slug)
    assert "slug" in response.content.decode().lower()
    assert TopicPage.objects.count() == count
    assert not TopicPage.objects.filter(slug__in=["", slug]).exists()


@pytest.mark.parametrize(("title", "slug"), [("!!!", ""), ("…", ""), ("Costs", "---"), ("Costs", "_")])
def test_with_unicode_slugs_a_punctuation_slug_is_refused_too(admin_client, demo, title, slug):
    assert topic_post(admin_client, demo, title, slug).status_code == 200
    assert not TopicPage.objects.filter(slug__in=["", slug]).exists()


@pytest.mark.parametrize("unicode_slugs", [True, False])
def test_siblings_stay_unique(admin_client, demo, settings, unicode_slugs):
    settings.WAGTAIL_ALLOW_UNICODE_SLUGS = unicode_slugs
    assert topic_post(admin_client, demo, "Fleet costs", "fleet-costs").status_code == 302
    for title, slug in (("Fleet costs", "fleet-costs"), ("Another", "fleet-costs"), ("Blank", "")):
        response = topic_post(admin_client, demo, title, slug)
        assert response.status_code == 200, (title, slug)
    assert TopicPage.objects.filter(slug="fleet-costs").count() == 1
    assert not TopicPage.objects.filter(slug="").exists()


AUTHOR_SLUGS = {"---": False, "_": False, "": False, "ada": True, "ada-lovelace_2": True, "adä": None, "日本": None}


@pytest.mark.parametrize("unicode_slugs", [True, False])
@pytest.mark.parametrize("slug", AUTHOR_SLUGS)
def test_author_slugs_have_a_letter_and_follow_the_setting(admin_client, demo, settings, unicode_slugs, slug):
    settings.WAGTAIL_ALLOW_UNICODE_SLUGS = unicode_slugs
    expected = AUTHOR_SLUGS[slug] if AUTHOR_SLUGS[slug] is not None else unicode_slugs
    data = {"name": "Ada Example", "slug": slug, "role": "", "bio": "", "photo": ""}
    response = admin_client.post(reverse("wagtailsnippets_blog_author:add"), data)
    assert response.status_code == (302 if expected else 200), (slug, unicode_slugs)
    assert Author.objects.filter(name="Ada Example").exists() == expected


# Renaming and redirects ------------------------------------------------------------------------


def add_article(client, demo, slug: str, **fields):
    response = client.post(
        reverse("wagtailadmin_pages:add", args=("blog", "articlepage", demo.blog.pk)),
        article_form_data(slug, **fields),
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    return ArticlePage.objects.get(slug=slug)


def edit_article(client, article, slug: str, **fields):
    """Post the article's editor with ``slug`` (Save draft unless ``action`` is given); Wagtail
    sends ``page_slug_changed`` when the transaction commits, which the caller lets run
    (``django_capture_on_commit_callbacks(execute=True)``)."""
    response = client.post(reverse("wagtailadmin_pages:edit", args=(article.pk,)), article_form_data(slug, **fields))
    assert response.status_code == 302, response.content.decode()[:2000]
    article.refresh_from_db()
    assert article.slug == slug
    return article


def reader_get(path: str):
    """``path`` as a reader sees it: signed out, redirects not followed."""
    return Client().get(path)


def test_a_draft_renamed_and_back_is_a_404_not_a_redirect_loop(
    client, demo, editor, django_capture_on_commit_callbacks
):
    client.force_login(editor)
    with django_capture_on_commit_callbacks(execute=True):
        article = add_article(client, demo, "loop-a")
        edit_article(client, article, "loop-b")
        edit_article(client, article, "loop-a")
    assert not Redirect.objects.filter(redirect_page=article).exists()
    for path in ("/blog/loop-a/", "/blog/loop-b/"):
        response = reader_get(path)
        assert response.status_code == 404, (path, response.get("Location"))


def test_a_draft_renamed_leaks_its_new_slug_nowhere(client, demo, editor, django_capture_on_commit_callbacks):
    client.force_login(editor)
    with django_capture_on_commit_callbacks(execute=True):
        article = add_article(client, demo, "quiet-draft")
        edit_article(client, article, "layoffs-in-march")
    assert not Redirect.objects.filter(redirect_page=article).exists()
    response = reader_get("/blog/quiet-draft/")
    assert response.status_code == 404
    assert "layoffs-in-march" not in response.content.decode() + str(response.headers)


def test_a_scheduled_article_renamed_before_go_live_leaves_no_redirect(
    client, demo, moderator, django_capture_on_commit_callbacks
):
    """Renamed as a draft and back, then scheduled (a scheduled page is locked in the editor):
    until it goes live its addresses are 404s, not a loop."""
    client.force_login(moderator)
    go_live = (timezone.localtime() + timedelta(days=3)).strftime("%Y-%m-%d %H:%M")
    with django_capture_on_commit_callbacks(execute=True):
        article = add_article(client, demo, "soon-a")
        edit_article(client, article, "soon-b")
        edit_article(client, article, "soon-a", action="publish", go_live_at=go_live)
    assert not article.live and article.get_latest_revision().approved_go_live_at is not None
    assert not Redirect.objects.filter(redirect_page=article).exists()
    for path in ("/blog/soon-a/", "/blog/soon-b/"):
        assert reader_get(path).status_code == 404, path


def publish_new_article(demo, slug: str) -> ArticlePage:
    article = ArticlePageFactory(parent=demo.blog, slug=slug, topics=[demo.topics["gpu-costs"]], live=False)
    article.save_revision().publish()
    article.refresh_from_db()
    return article


def test_a_live_article_renamed_still_redirects_its_old_address(
    client, demo, moderator, django_capture_on_commit_callbacks
):
    article = publish_new_article(demo, "live-a")
    client.force_login(moderator)
    with django_capture_on_commit_callbacks(execute=True):
        edit_article(client, article, "live-b", action="publish")
    assert article.live
    response = reader_get("/blog/live-a/")
    assert response.status_code == 301
    assert response["Location"] == "/blog/live-b/"
    assert reader_get("/blog/live-b/").status_code == 200


def test_a_live_article_renamed_back_keeps_no_redirect_from_its_own_address(
    client, demo, moderator, django_capture_on_commit_callbacks
):
    article = publish_new_article(demo, "back-a")
    client.force_login(moderator)
    with django_capture_on_commit_callbacks(execute=True):
        edit_article(client, article, "back-b", action="publish")
        edit_article(client, article, "back-a", action="publish")
    assert list(Redirect.objects.filter(redirect_page=article).values_list("old_path", flat=True)) == ["/blog/back-b"]
    assert reader_get("/blog/back-a/").status_code == 200
    assert reader_get("/blog/back-b/")["Location"] == "/blog/back-a/"
    # Unpublished, its own address is a 404 (no redirect to itself), and so is its old one.
    article.unpublish()
    assert reader_get("/blog/back-a/").status_code == 404
    assert reader_get("/blog/back-b/").status_code == 404


def test_redirects_made_before_the_fix_are_not_followed_to_a_page_that_is_not_live(demo):
    """Rows an older version made (or an editor typed): from a draft's own address, and from an
    old address to a draft. Neither loops nor names the draft while it is not live; once it is
    published, the old address redirects again."""
    draft = ArticlePageFactory(parent=demo.blog, slug="still-secret", live=False)
    Redirect.objects.create(old_path="/blog/still-secret", redirect_page=draft, automatically_created=True)
    Redirect.objects.create(old_path="/blog/earlier-name", redirect_page=draft, automatically_created=True)
    for path in ("/blog/still-secret/", "/blog/earlier-name/"):
        response = reader_get(path)
        assert response.status_code == 404, (path, response.get("Location"))
        assert "still-secret" not in str(response.headers)
    draft.save_revision().publish()
    assert reader_get("/blog/still-secret/").status_code == 200
    assert reader_get("/blog/earlier-name/")["Location"] == "/blog/still-secret/"
    ArticlePage.objects.get(pk=draft.pk).unpublish()
    assert reader_get("/blog/earlier-name/").status_code == 404
