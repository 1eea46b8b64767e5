"""The read-only headless API (Wagtail API v2) at /api/v2/."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from wagtail.models import Collection, CollectionViewRestriction

import pytest
from wagtail_factories import DocumentFactory

from blog.models import ArticlePage

pytestmark = pytest.mark.django_db


def get_json(client, url, **params):
    response = client.get(url, params)
    assert response.status_code == 200, (url, response.content[:300])
    assert response["Content-Type"] == "application/json"
    return response.json()


def test_article_detail_has_the_article_fields(client, demo):
    article = ArticlePage.objects.get(pk=demo.articles[0].pk)
    data = get_json(client, f"/api/v2/pages/{article.pk}/")
    assert data["meta"]["type"] == "blog.ArticlePage"
    assert data["meta"]["html_url"] == f"http://localhost{article.url}"
    assert data["title"] == article.title
    assert data["summary"] == article.summary
    assert data["date_published"].startswith(article.date_published.date().isoformat())
    assert data["updated_at"]
    assert data["reading_time_minutes"] == article.reading_time_minutes
    assert [topic["slug"] for topic in data["topics"]] == [topic.slug for topic in article.topics.all()]
    assert data["authors"][0]["name"] == "Cedana Editorial"
    assert data["image"]["id"] == article.image_id
    assert data["card_alt_text"] == article.card_alt_text
    assert (data["image_card"]["width"], data["image_card"]["height"]) == (800, 450)
    assert (data["image_social"]["width"], data["image_social"]["height"]) == (1200, 630)
    assert data["image_social"]["url"].endswith(".fill-1200x630.exact-1200x630.png")
    block_types = {block["type"] for block in data["body"]}
    assert "paragraph" in block_types and "heading" in block_types


def test_article_listing_with_fields(client, demo):
    data = get_json(client, "/api/v2/pages/", type="blog.ArticlePage", fields="summary,topics,authors", limit=20)
    assert data["meta"]["total_count"] == 20
    assert all(item["summary"] and item["topics"] and item["authors"] for item in data["items"])


def test_only_live_public_unexpired_pages_are_served(client, hidden_articles):
    hidden, visible = hidden_articles.hidden, hidden_articles.visible
    titles = {
        item["title"]
        for item in get_json(client, "/api/v2/pages/", type="blog.ArticlePage", limit=20, offset=0)["items"]
    } | {
        item["title"]
        for item in get_json(client, "/api/v2/pages/", type="blog.ArticlePage", limit=20, offset=20)["items"]
    }
    assert visible.title in titles
    for page in hidden:
        assert page.title not in titles
        assert client.get(f"/api/v2/pages/{page.pk}/").status_code == 404


def test_images_and_documents_endpoints(client, demo):
    images = get_json(client, "/api/v2/images/")
    assert images["meta"]["total_count"] >= 20
    public = DocumentFactory(title="Public whitepaper")
    restricted_collection = Collection.get_first_root_node().add_child(name="Internal")
    CollectionViewRestriction.objects.create(collection=restricted_collection, restriction_type="login")
    private = DocumentFactory(title="Internal notes", collection=restricted_collection)
    titles = {item["title"] for item in get_json(client, "/api/v2/documents/")["items"]}
    assert public.title in titles and private.title not in titles


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_api_is_read_only(client, demo, method):
    article = demo.articles[0]
    assert getattr(client, method)(f"/api/v2/pages/{article.pk}/").status_code == 405


@pytest.mark.parametrize(
    "query",
    [
        {"limit": "abc"},
        {"limit": "100000"},
        {"offset": "-1"},
        {"type": "no.SuchPage"},
        {"order": "secret_field"},
        {"fields": "nope"},
        {"child_of": "abc"},
        {"unknown_param": "1"},
    ],
)
def test_hostile_parameters_are_4xx(client, demo, query):
    response = client.get("/api/v2/pages/", query)
    assert 400 <= response.status_code < 500, (query, response.status_code)


def test_api_answers_json_only(client, demo):
    response = client.get("/api/v2/pages/", HTTP_ACCEPT="text/html")
    assert response["Content-Type"] == "application/json" or response.status_code == 406


def test_article_listing_queries_do_not_grow_with_the_page_size(client, demo):
    counts = []
    for limit in (5, 20):
        params = {"type": "blog.ArticlePage", "fields": "summary,topics,authors,image_card", "limit": limit}
        client.get("/api/v2/pages/", params)  # renditions are made on the first request
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/api/v2/pages/", params).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1], counts
