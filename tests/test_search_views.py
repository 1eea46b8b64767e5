"""Site search never breaks on hostile input: every parameter of /search/ and the autocomplete."""

import re

from django.test import Client

import pytest

from search.views import MAX_QUERY_LENGTH, clean_query

pytestmark = pytest.mark.django_db


def result_count(html: str) -> int:
    """The number in the results summary ("91 articles · page 1 of 8")."""
    return int(re.search(r"(\d+) articles?\b", html).group(1))


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


@pytest.mark.parametrize("padding", [" " * 250, "!" * 300, " -" * 200, "\x00" * 300, " \u00a0" * 150])
def test_padding_past_the_limit_cuts_nothing_and_is_not_reported(client, demo, padding):
    html = client.get("/search/", {"query": "ridge point" + padding}).content.decode()
    assert "was cut to its first" not in html
    assert "why the ridge point is the GPU number" in " ".join(result_titles(html))


@pytest.mark.parametrize("query", ["megawat", "wher"])
def test_no_matching_article_is_said_even_when_a_topic_matches(client, demo, query):
    html = client.get("/search/", {"query": query}).content.decode()
    assert 'class="search-topics">Topics:' in html, "the demo's topics no longer match: pick another word"
    assert f"No articles match “{query}”" in html


def test_clean_query_keeps_words_and_drops_operators():
    assert clean_query('  "GPU" AND (cost*)  <b>  ') == "GPU AND cost b"
    assert clean_query("a\x00b") == "a b"  # a NUL separates words, as punctuation does
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
    assert result_count(html) == result_count(client.get("/search/", {"query": "gpu"}).content.decode())


def test_a_bad_sort_is_ignored_with_a_message(client, demo):
    html = client.get("/search/", {"query": "gpu", "sort": "'; DROP"}).content.decode()
    assert "Unknown sort order; showing the most relevant results first." in html
    assert result_count(html) == result_count(client.get("/search/", {"query": "gpu"}).content.decode())


def test_repeated_parameters_use_the_last_value_and_unknown_ones_are_ignored(client, demo):
    response = client.get("/search/?query=zzzz&query=ridge+point&sort=bogus&sort=newest&utm_source=x&page=1&page=1")
    html = response.content.decode()
    assert response.status_code == 200
    assert "Results for “ridge point”" in html
    assert 'value="newest" selected' in html
    assert "Unknown sort order" not in html


def test_only_get_and_head_are_allowed_on_autocomplete(client, demo):
    assert client.post("/search/autocomplete/", {"q": "gpu"}).status_code == 405
    # A browser-like client (CSRF checks on) gets the same 405, not a CSRF 403.
    strict = Client(enforce_csrf_checks=True)
    assert strict.post("/search/autocomplete/", {"q": "gpu"}).status_code == 405
    assert client.head("/search/autocomplete/", {"q": "gpu"}).status_code == 200


# Each operator of the full-text syntaxes (FTS5, tsquery, Lucene) on its own, between, before and
# after words: it is dropped or searched as text, never interpreted.
OPERATORS = [
    "AND",
    "OR",
    "NOT",
    "-",
    "*",
    ":",
    "&",
    "|",
    "!",
    "(",
    ")",
    "<>",
    "<",
    ">",
    '"',
    "'",
    "^",
    "+",
    "~",
    "NEAR",
]
SYMBOLS = [operator for operator in OPERATORS if not operator.isalpha()]


def result_titles(html: str) -> list[str]:
    titles = re.findall(r'<h2 class="card__title"><a href="[^"]+">(.*?)</a></h2>', html)
    return [re.sub(r"</?mark>", "", title) for title in titles]


@pytest.mark.parametrize("operator", OPERATORS)
def test_each_operator_is_harmless_anywhere_in_a_query(client, demo, operator):
    for query in (operator, f"ridge {operator} point", f"{operator}ridge point", f"ridge point{operator}"):
        for params in ({"query": query}, {"query": query, "sort": "newest", "topic": "gpu-costs"}):
            response = client.get("/search/", params)
            assert response.status_code == 200, (query, params)
        assert client.get("/search/autocomplete/", {"q": query}).status_code == 200


@pytest.mark.parametrize("operator", SYMBOLS)
def test_punctuation_operators_do_not_change_the_results(client, demo, operator):
    plain = result_titles(client.get("/search/", {"query": "ridge point"}).content.decode())
    assert plain
    for query in (f"ridge {operator} point", f"{operator}ridge point", f"ridge point{operator}"):
        assert result_titles(client.get("/search/", {"query": query}).content.decode()) == plain, query


def test_a_10000_character_query_is_capped_and_the_reader_told(client, demo):
    query = "ridge point " + "x" * (10_000 - len("ridge point "))
    assert len(query) == 10_000
    html = client.get("/search/", {"query": query}).content.decode()
    assert f"Your search was cut to its first {MAX_QUERY_LENGTH} characters." in html
    assert f"Results for “{clean_query(query)}”" in html
    autocomplete = client.get("/search/autocomplete/", {"q": query}).json()
    assert len(autocomplete["query"]) <= 60


@pytest.mark.parametrize("query", ["\x00", "ridge\x00 point", "\x00ridge point\x00", "ridge\x00point"])
def test_nul_bytes_are_removed_before_searching(client, demo, query):
    response = client.get("/search/", {"query": query})
    assert response.status_code == 200
    assert "\x00" not in response.content.decode()
    if query.strip("\x00"):
        assert "why the ridge point is the GPU number" in " ".join(result_titles(response.content.decode()))


@pytest.mark.parametrize(
    "query",
    ["日本語", "кириллица", "naïve café", "🚀🚀🚀", "Ünïcödé", "GPU 🚀 ridge", "\u202eridge", "ridge\u200bpoint"],
)
def test_non_ascii_and_emoji_queries_are_searched_or_ignored_without_error(client, demo, query):
    response = client.get("/search/", {"query": query})
    assert response.status_code == 200
    assert client.get("/search/autocomplete/", {"q": query}).status_code == 200


@pytest.mark.parametrize(
    "params",
    [
        "query=gpu&query=ridge+point&query=",
        "query=ridge+point&topic=gpu-costs&topic=nope",
        "query=ridge+point&page=1&page=abc",
        "query=ridge+point&sort=newest&sort=relevance&sort=x",
        "query=ridge+point&q=gpu&search=1&format=json&page_size=1000",
    ],
)
def test_repeated_and_unknown_parameters_never_500(client, demo, params):
    assert client.get(f"/search/?{params}").status_code in {200, 404}


@pytest.mark.parametrize("with_restriction", [False, True])
def test_search_and_autocomplete_leave_out_private_articles(client, demo, with_restriction):
    # The one privacy filter (home.public_pages.exclude_private) must be one Wagtail's search
    # accepts (a subquery raised AttributeError inside .search()).
    from wagtail.models import PageViewRestriction

    from .factories import ArticlePageFactory

    private = ArticlePageFactory(parent=demo.blog, title="Quetzal private notes")
    if with_restriction:
        PageViewRestriction.objects.create(page=private, restriction_type="password", password="secret")
    # Text without tags: the matched word in a result's title is highlighted (<mark>).
    html = re.sub(r"<[^>]+>", "", client.get("/search/", {"query": "quetzal"}).content.decode())
    assert client.get("/search/", {"query": "gpu"}).status_code == 200
    assert ("Quetzal private notes" in html) is not with_restriction
    response = client.get("/search/autocomplete/", {"q": "quetz"})
    assert response.status_code == 200
    titles = [result["title"] for result in response.json()["results"]]
    assert ("Quetzal private notes" in titles) is not with_restriction


def test_a_long_query_is_cut_between_words():
    # "gpu memory gp" would search for a word nobody typed (and, ANDed, find nothing).
    assert clean_query("gpu memory " * 1_000).endswith("gpu memory")
    assert clean_query("x" * 199 + " yy") == "x" * 199
    assert clean_query("x" * 500) == "x" * MAX_QUERY_LENGTH


@pytest.mark.parametrize("query", ['"', "*", "🚀", "\u200b", "\x00", "- ... !"])
def test_a_query_with_nothing_to_search_for_says_so(client, demo, query):
    html = client.get("/search/", {"query": query}).content.decode()
    assert "Your search had no letters or digits to search for." in html
