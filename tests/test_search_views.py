"""Site search never breaks on hostile input: every parameter of /search/ and the autocomplete."""

import pytest

from search.views import MAX_QUERY_LENGTH, clean_query

pytestmark = pytest.mark.django_db


def test_search_finds_an_article_by_title_word(client, demo):
    response = client.get("/search/", {"query": "ridge point"})
    assert response.status_code == 200
    assert "why the <mark>ridge</mark> <mark>point</mark> is the GPU number" in response.content.decode()


HOSTILE_QUERIES = [
    "",
    "   ",
    "\t\n",
    "x" * 10_000,
    '"gpu"',
    '"unbalanced',
    "'",
    "it's",
    "AND OR NOT - * : & | ! ( ) <>",
    "gpu AND",
    "NOT gpu",
    "-gpu",
    "gpu*",
    "title:gpu",
    "a & b | !c",
    "(gpu",
    "<script>alert(1)</script>",
    "a\x00b",
    "\x00",
    "🚀 GPU",
    "🚀",
    "Ünïcödé 日本語 кириллица",
    "' OR 1=1 --",
    "'; DROP TABLE wagtailcore_page; --",
    "%",
    "_",
    "\\",
    "....",
    "- - -",
    "the",
]


@pytest.mark.parametrize("query", HOSTILE_QUERIES)
def test_hostile_queries_never_500(client, demo, query):
    response = client.get("/search/", {"query": query})
    assert response.status_code == 200
    assert "<script>alert" not in response.content.decode()


@pytest.mark.parametrize("query", HOSTILE_QUERIES)
def test_hostile_autocomplete_queries_never_500(client, demo, query):
    response = client.get("/search/autocomplete/", {"q": query})
    assert response.status_code == 200
    assert isinstance(response.json()["results"], list)


def test_a_long_query_is_cut_and_the_reader_told(client, demo):
    html = client.get("/search/", {"query": "gpu " * 2_500}).content.decode()
    assert f"Your search was cut to its first {MAX_QUERY_LENGTH} characters." in html
    assert len(clean_query("gpu " * 2_500)) <= MAX_QUERY_LENGTH


def test_clean_query_keeps_words_and_drops_operators():
    assert clean_query('  "GPU" AND (cost*)  <b>  ') == "GPU AND cost b"
    assert clean_query("a\x00b") == "ab"
    assert clean_query("🚀 naïve café") == "naïve café"


@pytest.mark.parametrize(
    "page", ["abc", "0", "-1", "1.5", "99999", "1e3", "", "9" * 50, "1\x00", "²", "２", "٢", "01"]
)
def test_bad_result_pages_are_404(client, demo, page):
    assert client.get("/search/", {"query": "gpu", "page": page}).status_code == 404


def test_bad_page_is_404_even_without_a_query(client, demo):
    assert client.get("/search/", {"page": "abc"}).status_code == 404
    assert client.get("/search/", {"page": "2"}).status_code == 404


@pytest.mark.parametrize("topic", ["no-such-topic", "x\x00", "../../etc", "a" * 300, "gpu costs", "🚀", "' OR 1=1"])
def test_bad_topics_are_ignored_with_a_message(client, demo, topic):
    response = client.get("/search/", {"query": "gpu", "topic": topic})
    html = response.content.decode()
    assert response.status_code == 200
    assert "That topic does not exist; showing results from all topics." in html
    assert "20 articles" in html


def test_a_bad_sort_is_ignored_with_a_message(client, demo):
    html = client.get("/search/", {"query": "gpu", "sort": "'; DROP"}).content.decode()
    assert "Unknown sort order; showing the most relevant results first." in html
    assert "20 articles" in html


def test_repeated_parameters_use_the_last_value_and_unknown_ones_are_ignored(client, demo):
    response = client.get("/search/?query=zzzz&query=ridge+point&sort=bogus&sort=newest&utm_source=x&page=1&page=1")
    html = response.content.decode()
    assert response.status_code == 200
    assert "Results for “ridge point”" in html
    assert 'value="newest" selected' in html
    assert "Unknown sort order" not in html


def test_only_get_is_allowed_on_autocomplete(client, demo):
    assert client.post("/search/autocomplete/", {"q": "gpu"}).status_code == 405
