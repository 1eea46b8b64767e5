"""Site search: finds live articles, never breaks on hostile input."""

import pytest

pytestmark = pytest.mark.django_db


def test_search_finds_an_article_by_title_word(client, demo):
    response = client.get("/search/", {"query": "ridge point"})
    assert response.status_code == 200
    assert "The two ceilings: why the ridge point is the GPU number that matters" in response.content.decode()


@pytest.mark.parametrize(
    "query",
    ["", "   ", "x" * 10_000, '"unbalanced', "AND OR NOT - * : & | ! ( ) <>", "a\x00b", "🚀 GPU", "' OR 1=1 --"],
)
def test_hostile_queries_never_500(client, demo, query):
    assert client.get("/search/", {"query": query}).status_code == 200


@pytest.mark.parametrize("page", ["abc", "0", "-1", "99999", "²", "２", "٢", "01"])
def test_bad_result_pages_are_404(client, demo, page):
    assert client.get("/search/", {"query": "gpu", "page": page}).status_code == 404
