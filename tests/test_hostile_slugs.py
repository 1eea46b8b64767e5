"""Unicode slugs work in every route and filter of ours (topic pages and their feeds, the search
topic filter, author pages, the sitemap); with ``WAGTAIL_ALLOW_UNICODE_SLUGS`` off, no page or
author is saved with an empty or punctuation-only slug, and siblings stay unique (issue 15,
"Slugs"; ``home.slugs``).

Renaming: a page that was never live leaves no redirect behind (its old addresses were never
public), a redirect never leads from a page's own address (no loop once it is not live), and a
redirect to a page that is not live is not followed; a live article renamed still redirects
(``home/upstream/wagtail.py``). Reserved slugs: no editor form, copy, move or import gives a page
a slug that its parent keeps for its own addresses (the blog index's ``feed/...`` and
``authors/...``, the site's ``/admin/``, ``/search/``...; ``home.slugs.reserved_slug_problem``).
"""

import io
import re
import shutil
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote

from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from wagtail.contrib.redirects.models import Redirect
from wagtail.models import Page
from wagtail.test.utils.form_data import inline_formset, nested_form_data

import pytest

from blog.models import ArticlePage, Author, BlogIndexPage, TopicPage
from home.slugs import page_route_slugs, reserved_slug_problem, site_url_slugs, slug_problem

from .admin_forms import article_form_data
from .factories import ArticlePageFactory, AuthorFactory, BlogIndexPageFactory, HomePageFactory, TopicPageFactory
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


# Slugs a parent keeps for its own addresses ---------------------------------------------------

BLOG_INDEX_SLUGS = sorted(page_route_slugs(BlogIndexPage))
SITE_SLUGS = sorted(slug for slug in site_url_slugs() if slug_problem(slug) is None)  # a slug at all


def test_the_reserved_slugs_are_read_from_the_routes():
    """Derived, not listed: the parametrised tests below would otherwise pass on an empty list."""
    assert {"feed", "authors"} <= set(BLOG_INDEX_SLUGS)
    assert page_route_slugs(BlogIndexPage)["feed"] == ["feed/rss/", "feed/atom/"]
    assert page_route_slugs(BlogIndexPage)["authors"] == ["authors/<slug>/"]
    assert set(page_route_slugs(TopicPage)) == {"feed"}
    assert page_route_slugs(ArticlePage) == {}
    assert {"admin", "search", "documents", "api", "review", "_util", "static", "media"} <= set(SITE_SLUGS)


@pytest.mark.parametrize("debug", [False, True])
def test_static_and_media_paths_are_kept_whatever_the_urlconf_names(settings, debug):
    """WhiteNoise answers /static/ and the front end /media/ before Django's URLconf, which
    names /media/ only under DEBUG (``make run``)."""
    settings.DEBUG = debug
    slugs = site_url_slugs()
    assert slugs["static"][-1] == "static/<path>"
    assert "media/<path>" in slugs["media"]
    settings.MEDIA_URL = "https://media.example.com/"
    assert "media/<path>" not in site_url_slugs().get("media", [])


def test_an_address_both_the_urlconf_and_media_url_name_is_named_once(settings, demo):
    """Under DEBUG (``make run``) the URLconf's media route and ``MEDIA_URL`` are the same address:
    the message named it twice ("serves /media/<path> and /media/<path>")."""
    settings.ROOT_URLCONF = "tests.test_security_dev_media"  # the site's URLs with runserver's media route
    assert site_url_slugs()["media"] == ["media/<path>"]
    problem = reserved_slug_problem("media", demo.home)
    assert "already serves /media/<path>, and a page at /media/ would clash with it." in problem


@pytest.mark.parametrize("slug", BLOG_INDEX_SLUGS)
def test_an_article_cannot_take_a_slug_of_the_blog_index_routes(client, demo, editor, slug):
    client.force_login(editor)
    url = reverse("wagtailadmin_pages:add", args=("blog", "articlepage", demo.blog.pk))
    response = client.post(url, article_form_data(slug))
    assert response.status_code == 200
    html = response.content.decode()
    assert f"The slug &#x27;{slug}&#x27; is taken: the site already serves /blog/{slug}/" in html
    assert not ArticlePage.objects.filter(slug=slug).exists()
    # Nor from the title alone, nor by renaming an article, nor for a topic.
    response = client.post(url, article_form_data("", title=slug.title()))
    assert response.status_code == 200 and not ArticlePage.objects.filter(slug=slug).exists()
    article = demo.articles[0]
    edit = client.post(reverse("wagtailadmin_pages:edit", args=(article.pk,)), article_form_data(slug))
    assert edit.status_code == 200 and "is taken: the site already serves" in edit.content.decode()
    assert ArticlePage.objects.get(pk=article.pk).slug == article.slug
    assert topic_post(client, demo, "A topic", slug).status_code == 200
    assert not TopicPage.objects.filter(slug=slug).exists()


def test_a_slug_that_only_begins_like_a_route_is_fine(client, demo, editor):
    client.force_login(editor)
    for slug in ("feeds", "feed-2", "authors-notes"):
        response = client.post(
            reverse("wagtailadmin_pages:add", args=("blog", "articlepage", demo.blog.pk)), article_form_data(slug)
        )
        assert response.status_code == 302, slug


def blog_index_form_data(blog, slug: str) -> dict:
    return nested_form_data(
        {
            "title": blog.title,
            "slug": slug,
            "hero_heading_lead": blog.hero_heading_lead,
            "hero_heading_emphasis": blog.hero_heading_emphasis,
            "hero_intro": blog.hero_intro,
            "featured_article": "",
            "listing_heading": blog.listing_heading,
            "listing_intro": blog.listing_intro,
            "seo_title": "",
            "search_description": "",
            "social_image": "",
            "go_live_at": "",
            "expire_at": "",
            "comments": inline_formset([]),
        }
    )


@pytest.mark.parametrize("slug", SITE_SLUGS)
def test_the_blog_index_cannot_take_a_slug_of_the_site_urls(admin_client, demo, slug):
    response = admin_client.post(
        reverse("wagtailadmin_pages:edit", args=(demo.blog.pk,)), blog_index_form_data(demo.blog, slug)
    )
    assert response.status_code == 200
    assert f"The slug &#x27;{slug}&#x27; is taken: the site already serves /{slug}" in response.content.decode()
    assert BlogIndexPage.objects.get(pk=demo.blog.pk).slug == "blog"


def test_the_blog_index_form_still_saves(admin_client, demo):
    response = admin_client.post(
        reverse("wagtailadmin_pages:edit", args=(demo.blog.pk,)), blog_index_form_data(demo.blog, "blog")
    )
    assert response.status_code == 302


@pytest.mark.parametrize("slug", BLOG_INDEX_SLUGS)
def test_a_copy_into_the_blog_index_cannot_take_a_reserved_slug(admin_client, demo, slug):
    article = demo.articles[0]
    data = {"new_title": "A copy", "new_slug": slug, "new_parent_page": demo.blog.pk}
    response = admin_client.post(f"/admin/pages/{article.pk}/copy/", data)
    assert response.status_code == 200
    assert f"The slug &#x27;{slug}&#x27; is taken" in response.content.decode()
    assert not Page.objects.filter(slug=slug).exists()


@pytest.fixture
def other_blog(demo):
    """A second blog, outside any site, with an article for each reserved slug of a blog index
    (made in code, as an older version or a script could have)."""
    home = HomePageFactory(parent=Page.get_first_root_node(), title="Other home", slug="other-home")
    blog = BlogIndexPageFactory(parent=home, title="Other blog")
    for slug in BLOG_INDEX_SLUGS:
        ArticlePageFactory(parent=blog, title=f"About {slug}", slug=slug)
    return blog


@pytest.mark.parametrize("slug", BLOG_INDEX_SLUGS)
def test_a_page_cannot_be_moved_into_the_blog_index_with_a_reserved_slug(admin_client, demo, other_blog, slug):
    article = ArticlePage.objects.child_of(other_blog).get(slug=slug)
    url = reverse("wagtailadmin_pages:move_confirm", args=(article.pk, demo.blog.pk))
    for method in (admin_client.get, admin_client.post):
        response = method(url, follow=True)
        assert response.status_code == 200
        assert f"“About {slug}” cannot be moved there. The slug &#x27;{slug}&#x27; is taken" in (
            response.content.decode()
        )
    assert ArticlePage.objects.get(pk=article.pk).get_parent().pk == other_blog.pk


def test_a_bulk_move_into_the_blog_index_with_a_reserved_slug_moves_nothing(admin_client, demo, other_blog):
    articles = list(ArticlePage.objects.child_of(other_blog))
    fine = ArticlePageFactory(parent=other_blog, title="Fine", slug="a-fine-slug")
    listing = reverse("wagtailadmin_explore", args=(other_blog.pk,))
    query = "&".join(f"id={page.pk}" for page in [*articles, fine]) + f"&next={listing}"
    url = reverse("wagtail_bulk_action", args=("wagtailcore", "page", "move")) + "?" + query
    response = admin_client.post(url, {"chooser": demo.blog.pk}, follow=True)
    assert response.redirect_chain[-1][0] == listing
    html = response.content.decode()
    assert "No page was moved." in html
    for slug in BLOG_INDEX_SLUGS:
        assert f"“About {slug}”: The slug &#x27;{slug}&#x27; is taken" in html
    assert all(page.get_parent().pk == other_blog.pk for page in ArticlePage.objects.child_of(other_blog))
    assert ArticlePage.objects.child_of(other_blog).count() == len(articles) + 1


def test_a_move_with_a_free_slug_still_moves(admin_client, demo, other_blog):
    article = ArticlePageFactory(parent=other_blog, title="Fine", slug="a-fine-slug")
    response = admin_client.post(reverse("wagtailadmin_pages:move_confirm", args=(article.pk, demo.blog.pk)))
    assert response.status_code == 302
    assert ArticlePage.objects.get(pk=article.pk).get_parent().pk == demo.blog.pk


def run_import(*args) -> tuple[str, str]:
    out = io.StringIO()
    with pytest.raises(CommandError) as error:
        call_command("import_articles", *[str(arg) for arg in args], stdout=out)
    return out.getvalue(), str(error.value)


@pytest.mark.parametrize("slug", BLOG_INDEX_SLUGS)
def test_a_markdown_import_cannot_take_a_reserved_slug(demo, tmp_path, slug):
    for name, front_matter in (("post.md", f"title: About {slug}\nslug: {slug}"), ("titled.md", f"title: {slug}")):
        (tmp_path / name).write_text(f"---\n{front_matter}\n---\n\nText.\n")  # titled.md: slug from the title
        output, error = run_import(tmp_path / name)
        assert f"{name}: failed '{slug}'" in output
        assert f"The slug '{slug}' is taken: the site already serves /blog/{slug}/" in output
        assert "1 file(s) could not be imported" in error
    assert not ArticlePage.objects.filter(slug=slug).exists()


def test_a_wordpress_import_cannot_take_a_reserved_slug(demo, tmp_path):
    wordpress = Path(__file__).parent / "fixtures" / "imports" / "wordpress"
    shutil.copytree(wordpress, tmp_path / "wordpress")
    export = tmp_path / "wordpress" / "export.xml"
    text = export.read_text()
    assert "<![CDATA[finding-the-ridge-point]]>" in text
    export.write_text(text.replace("<![CDATA[finding-the-ridge-point]]>", "<![CDATA[authors]]>"))
    output, error = run_import(export)
    assert "export.xml post 10: failed 'authors'" in output
    assert "The slug 'authors' is taken: the site already serves /blog/authors/<slug>/" in output
    assert not ArticlePage.objects.filter(slug="authors").exists()
