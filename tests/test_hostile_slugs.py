"""Unicode slugs work in every route and filter of ours (topic pages and their feeds, the search
topic filter, author pages, the sitemap); with ``WAGTAIL_ALLOW_UNICODE_SLUGS`` off, no page or
author is saved with an empty or punctuation-only slug, and siblings stay unique (issue 15,
"Slugs"; ``home.slugs``)."""

import re
from urllib.parse import quote

from django.urls import reverse

from wagtail.test.utils.form_data import nested_form_data

import pytest

from blog.models import Author, TopicPage

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
