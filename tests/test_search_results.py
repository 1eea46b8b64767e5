"""Site search results: what is searched, what is left out, ranking, topic filter, sort, paging."""

import re
from datetime import timedelta

from django.db import connection
from django.utils import timezone
from django.utils.html import escape

from wagtail.models import PageViewRestriction

import pytest

from .factories import ArticlePageFactory, AuthorFactory, TopicPageFactory

pytestmark = pytest.mark.django_db


def result_titles(html: str) -> list[str]:
    """The titles of the result cards, with the highlighting tags removed."""
    titles = re.findall(r'<h2 class="card__title"><a href="[^"]+">(.*?)</a></h2>', html)
    return [re.sub(r"</?mark>", "", title) for title in titles]


def search(client, **params):
    response = client.get("/search/", params)
    assert response.status_code == 200
    return response.content.decode()


def test_a_title_word_finds_the_article(client, demo):
    html = search(client, query="ridge point")
    assert "The two ceilings: why the ridge point is the GPU number that matters" in result_titles(html)


@pytest.mark.parametrize(
    ("field", "word"),
    [("summary", "quokkasummary"), ("paragraph", "quokkaparagraph"), ("code", "quokka_code_fn")],
)
def test_summary_and_body_text_including_code_are_searched(client, demo, field, word):
    body = [
        {"type": "paragraph", "value": "<p>Plain words about quokkaparagraph here.</p>"},
        {
            "type": "code",
            "value": {"language": "python", "filename": "", "source": "def quokka_code_fn():\n    pass\n"},
        },
    ]
    ArticlePageFactory(
        parent=demo.blog, title="Marsupial notes", summary="All about quokkasummary.", body=body, topics=[]
    )
    assert result_titles(search(client, query=word)) == ["Marsupial notes"]


def test_topic_names_and_author_names_are_searched(client, demo):
    topic = TopicPageFactory(parent=demo.blog, title="Wombatology")
    author = AuthorFactory(name="Philippa Numbat")
    ArticlePageFactory(parent=demo.blog, title="Burrow engineering", topics=[topic], authors=[author])
    assert "Burrow engineering" in result_titles(search(client, query="wombatology"))
    assert "Burrow engineering" in result_titles(search(client, query="numbat"))


def test_topic_pages_match_too(client, demo):
    html = search(client, query="inference performance")
    assert re.search(r'class="search-topics">Topics: <a href="/blog/inference-performance/">', html)


def test_a_title_match_ranks_above_a_body_only_match(client, demo):
    body_only = [{"type": "paragraph", "value": "<p>" + "Somewhere we mention the axolotl once. " * 3 + "</p>"}]
    ArticlePageFactory(parent=demo.blog, title="Notes from the field", body=body_only)
    ArticlePageFactory(parent=demo.blog, title="Axolotl regeneration")
    assert result_titles(search(client, query="axolotl")) == ["Axolotl regeneration", "Notes from the field"]


def test_drafts_private_expired_and_unpublished_articles_never_appear(client, demo):
    ArticlePageFactory(parent=demo.blog, title="Okapi live")
    ArticlePageFactory(parent=demo.blog, title="Okapi draft", live=False)
    ArticlePageFactory(parent=demo.blog, title="Okapi expired", expire_at=timezone.now() - timedelta(minutes=1))
    private = ArticlePageFactory(parent=demo.blog, title="Okapi private")
    PageViewRestriction.objects.create(page=private, restriction_type="password", password="secret")
    unpublished = ArticlePageFactory(parent=demo.blog, title="Okapi unpublished")
    unpublished.unpublish()
    html = search(client, query="okapi")
    assert result_titles(html) == ["Okapi live"]
    assert "1 article" in html


def test_english_words_are_stemmed_on_every_database(client, demo):
    # "checkpoints" finds "checkpointing" (both stem to "checkpoint"); the other words keep the
    # article on the first page of the 98 demo articles' matches.
    titles = result_titles(search(client, query="utilization break even checkpoints"))
    assert "How much utilization improvement do you need to break even on GPU checkpointing?" in titles


def test_topic_filter_counts_per_topic_and_links_keep_the_query(client, demo):
    html = search(client, query="gpu")
    facets = dict(
        re.findall(
            r"topic=([\w-]+)&amp;sort=relevance\"[^>]*>[^<]+<span class=\"search-facets__count\">\((\d+)\)", html
        )
    )
    assert set(facets) == {"engineering", "gpu-costs", "inference-performance"}
    assert sum(int(count) for count in facets.values()) >= 20
    filtered = search(client, query="gpu", topic="gpu-costs")
    gpu_costs = demo.topics["gpu-costs"]
    expected = {a.title for a in demo.articles if gpu_costs in a.topics.all()}
    assert f"{facets['gpu-costs']} articles in GPU costs" in filtered
    assert set(result_titles(filtered)) <= expected
    assert len(expected) == int(facets["gpu-costs"])


def test_sort_newest_orders_by_publication_date(client, demo):
    old = ArticlePageFactory(
        parent=demo.blog, title="Pangolin history", date_published=timezone.now() - timedelta(days=900)
    )
    ArticlePageFactory(
        parent=demo.blog,
        title="Recent notes",
        date_published=timezone.now(),
        body=[{"type": "paragraph", "value": "<p>pangolin pangolin</p>"}],
    )
    assert result_titles(search(client, query="pangolin", sort="newest")) == ["Recent notes", old.title]


def result_pages(html: str) -> tuple[int, int]:
    """``(articles, pages)`` from the results summary ("91 articles · page 1 of 8")."""
    articles, pages = re.search(r"(\d+) articles · page \d+ of (\d+)", html).groups()
    return int(articles), int(pages)


def test_paging_keeps_query_topic_and_sort_in_the_links(client, demo):
    html = search(client, query="gpu", sort="newest")
    total, pages = result_pages(html)
    assert total > 24 and pages == -(-total // 12)  # most of the demo's 98 articles; 12 a page
    assert 'href="?query=gpu&amp;sort=newest&amp;page=2"' in html
    second = search(client, query="gpu", sort="newest", page="2")
    assert len(result_titles(second)) == 12
    assert 'href="?query=gpu&amp;sort=newest&amp;page=1"' in second
    first_titles = result_titles(html)
    assert not set(first_titles) & set(result_titles(second))


def test_results_show_cards_with_highlighted_excerpts(client, demo):
    ArticlePageFactory(
        parent=demo.blog,
        title="Tapir tracks",
        summary="A summary without the word.",
        body=[
            {"type": "paragraph", "value": "<p>" + "Filler words. " * 40 + "We followed the tapir <b>home</b>.</p>"}
        ],
    )
    html = search(client, query="tapir")
    assert "<mark>Tapir</mark> tracks" in html
    assert 'class="card__excerpt">… ' in html
    assert "followed the <mark>tapir</mark> home." in html


def test_results_page_runs_a_bounded_number_of_queries(client, demo, django_assert_max_num_queries):
    # A full page of 12 cards: topics, authors, images and renditions are prefetched (one
    # query per relation), so the count does not grow with the cards (it was 58 before).
    client.get("/search/", {"query": "gpu"})
    with django_assert_max_num_queries(32):
        search(client, query="gpu")


def test_many_matches_put_title_matches_first_and_page_without_gaps(client, demo, monkeypatch):
    if connection.vendor == "postgresql":
        from search import postgres_backend

        # The two-step ranking for large result sets, on the demo's 98 articles.
        monkeypatch.setattr(postgres_backend, "FULL_RANK_LIMIT", 5)
    first = search(client, query="gpu")
    total, pages = result_pages(first)
    titles = result_titles(first)
    for number in range(2, pages + 1):
        titles += result_titles(search(client, query="gpu", page=str(number)))
    assert len(titles) == len(set(titles)) == total
    by_title = {escape(article.title): article for article in demo.articles}
    assert set(titles) <= set(by_title)
    # A title match: the word "gpu" in the title ("GPU-hours" has it, "GPUs" does not).
    in_title = ["gpu" in re.findall(r"\w+", title.lower()) for title in titles]
    assert any(in_title) and not all(in_title)
    if connection.vendor == "postgresql":
        # SQLite's bm25() weighs the title ten times the body, so a body full of the word can
        # still win there; PostgreSQL's title weight is a hundred times the body's.
        assert in_title == sorted(in_title, reverse=True), "a body-only match ranked above a title match"
    facets = re.findall(r'<span class="search-facets__count">\((\d+)\)', first)
    found = [by_title[title] for title in titles]
    expected = [str(len([a for a in found if topic in a.topics.all()])) for topic in demo.topics.values()]
    assert sorted(facets) == sorted(count for count in expected if count != "0")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL planner setting")
def test_the_planner_settings_of_a_search_do_not_outlive_it(client, demo):
    # search/postgres_backend.py turns sequential scans and JIT off for its full-text statement only.
    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        jit_before = cursor.fetchone()
    assert result_pages(search(client, query="gpu"))[0] > 24
    with connection.cursor() as cursor:
        cursor.execute("SHOW enable_seqscan")
        assert cursor.fetchone() == ("on",)
        cursor.execute("SHOW jit")
        assert cursor.fetchone() == jit_before


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's JIT compiler")
@pytest.mark.parametrize("query", ["a", "gpu costs", "NEAR(a b)"])
def test_a_search_statement_is_not_jit_compiled(demo, query):
    """With sequential scans off, a scan no index serves costs 10^10, past every JIT threshold:
    the author search statement was compiled with LLVM for 150-250 ms each time (see
    ``search.postgres_backend._prefer_indexes``). It runs with JIT off."""
    from django.test.utils import CaptureQueriesContext

    from wagtail.search.backends import get_search_backend

    from blog.models import Author
    from search.postgres_backend import _prefer_indexes

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_jit_available()")
        if not cursor.fetchone()[0]:
            pytest.skip("this PostgreSQL server has no JIT compiler, or it is switched off")
    with CaptureQueriesContext(connection) as queries:
        list(get_search_backend().search(query, Author.objects.all()))
    [statement] = [q["sql"] for q in queries.captured_queries if "site_search_matches" in q["sql"]]

    def compiled(sql) -> bool:
        with connection.cursor() as cursor:
            cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}")
            return "JIT" in cursor.fetchone()[0][0]

    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")
    try:
        assert compiled(statement), "sequential scans off alone no longer brings JIT: see _prefer_indexes"
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET enable_seqscan")
    with _prefer_indexes(Author):
        assert not compiled(statement)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("inference performance", ["Inference performance"]),
        ("INFERENCE", ["Engineering", "Inference performance"]),
        ("gpu cost", ["GPU costs"]),
        ("gpu", ["GPU costs"]),
        ("performance gpu", []),
        ("wombat", []),
    ],
)
def test_topics_match_when_each_word_starts_a_word_of_their_title_or_intro(client, demo, query, expected):
    html = search(client, query=query)
    shown = re.findall(r'<p class="search-topics">Topics: (.*?)</p>', html)
    names = re.findall(r">([^<]+)</a>", shown[0]) if shown else []
    assert names == expected
