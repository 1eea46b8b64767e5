"""How much work one search does: statements per search on each database backend, the cards'
relations remembered for the generation, one highlighting pattern per query. Each result is
also compared with the path the change replaced (Wagtail's own count and facet, the ranked keys
read one page at a time), so fewer statements never means other results."""

import re
from unittest import mock

from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from wagtail.search.backends import get_search_backend

import pytest

from blog.listings import add_card_relations, card_rows
from blog.models import ArticlePage
from home.caching import memo
from home.caching.generation import GENERATION_KEY
from search import highlight

pytestmark = pytest.mark.django_db


def _articles(demo):
    return card_rows(ArticlePage.objects.live().order_by())


@pytest.mark.skipif(connection.vendor != "sqlite", reason="the SQLite FTS5 backend")
@pytest.mark.parametrize("query", ["gpu", "memory bandwidth", "checkpointing", "wombat"])
def test_sqlite_counts_facets_and_ranks_in_one_statement(demo, query):
    from wagtail.search.backends.database.sqlite.sqlite import SQLiteSearchResults

    list(_articles(demo).search(query)[:1])  # Django's content type cache, filled once a process
    results = _articles(demo).search(query)
    with CaptureQueriesContext(connection) as queries:
        facets = results.facet("topics")
        total = results.count()
        page = list(results[0:12])
    # The summary (count, topic counts, first keys in order), then the page's rows.
    statements = [query["sql"] for query in queries.captured_queries]
    assert len(statements) == (2 if total else 1), statements
    assert "MATCH" in statements[0] and all("MATCH" not in sql for sql in statements[1:])

    # The same as before: Wagtail's count and facet, the keys ranked one page at a time.
    fresh = _articles(demo).search(query)
    assert total == SQLiteSearchResults._do_count(fresh)
    assert dict(facets) == dict(SQLiteSearchResults.facet(fresh, "topics"))
    assert list(facets.values()) == sorted(facets.values(), reverse=True)
    compiler = fresh.query_compiler
    assert [row["pk"] for row in page] == compiler.ranked_ids(compiler.get_config(fresh.backend), 0, 12)


@pytest.mark.skipif(connection.vendor != "sqlite", reason="the SQLite FTS5 backend")
def test_sqlite_pages_past_the_summary_head_take_the_ranked_path(demo, monkeypatch):
    from search import sqlite_backend

    monkeypatch.setattr(sqlite_backend, "SUMMARY_HEAD", 5)
    results = _articles(demo).search("gpu")
    total = results.count()
    assert total > 12
    keys = [row["pk"] for start in range(0, total, 4) for row in results[start : start + 4]]
    compiler = _articles(demo).search("gpu").query_compiler
    assert keys == compiler.ranked_ids(compiler.get_config(get_search_backend()), None, None)


@pytest.mark.skipif(connection.vendor != "sqlite", reason="the SQLite FTS5 backend")
def test_sqlite_newest_first_counts_and_pages_from_one_summary(demo):
    from django.db.models import F

    ordered = _articles(demo).order_by(F("date_published").desc(nulls_last=True), "-id")
    results = ordered.search("gpu", order_by_relevance=False)
    with CaptureQueriesContext(connection) as queries:
        total = results.count()
        page = [row["pk"] for row in results[12:24]]
    assert len(queries.captured_queries) == 2
    from wagtail.search.backends.database.sqlite.sqlite import SQLiteSearchResults

    fresh = ordered.search("gpu", order_by_relevance=False)
    assert total == SQLiteSearchResults._do_count(fresh)
    assert page == [row["pk"] for row in SQLiteSearchResults._do_search(fresh[12:24])]


def test_search_page_statements(client, demo, settings):
    """The first page of a search, its cards' fragments warm: the search statements (SQLite:
    one; PostgreSQL: the planner setting, one, its reset), the page's keys with their indexed
    text (PostgreSQL: in the statement ranking the first keys fully) and the query log (SQLite:
    two; PostgreSQL: one). The site (home.upstream.wagtail) and the cards' rows, topics and
    authors are remembered from the first request."""
    settings.SEARCH_RESULTS_CACHE_SECONDS = 0
    client.get("/search/", {"query": "gpu"})
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/search/", {"query": "gpu"}).status_code == 200
    assert len(queries.captured_queries) == (4 if connection.vendor == "sqlite" else 5)


def _in_generation(function):
    token = memo.begin_request(cache.get(GENERATION_KEY))
    try:
        return function()
    finally:
        memo.end_request(token)


def test_card_relations_are_remembered_per_article_for_the_generation(demo, django_assert_num_queries):
    rows = list(_articles(demo).order_by("-pk")[:6])
    with django_assert_num_queries(1):
        first = _in_generation(lambda: add_card_relations([dict(row) for row in rows[:3]]))
    # Only the articles not remembered yet are read; the rows get the same relations.
    with django_assert_num_queries(1):
        second = _in_generation(lambda: add_card_relations([dict(row) for row in rows]))
    with django_assert_num_queries(0):
        third = _in_generation(lambda: add_card_relations([dict(row) for row in rows]))
    assert second[:3] == first and third == second
    assert any(row["topics"] for row in third) and any(row["authors"] for row in third)
    # Callers get copies: changing one never changes what the next request reads.
    third[0]["topics"].append("changed")
    assert "changed" not in _in_generation(lambda: add_card_relations([dict(rows[0])]))[0]["topics"]
    # A new generation (any change readers could see) reads them again; outside a request too.
    memo.generation_changed()
    with django_assert_num_queries(1):
        _in_generation(lambda: add_card_relations([dict(row) for row in rows]))
    with django_assert_num_queries(1):
        add_card_relations([dict(row) for row in rows])


def test_a_renamed_topic_shows_on_the_next_search(client, demo):
    article = demo.articles[0]
    topic = article.topics.first()
    word = article.title.split()[0]
    client.get("/search/", {"query": word})
    topic.title = "Renamed topic for the test"
    topic.save_revision().publish()
    assert "Renamed topic for the test" in client.get("/search/", {"query": word}).content.decode()


def test_a_search_compiles_its_highlighting_pattern_once(client, demo):
    # A first search compiles the patterns of templates, URLs and the like, once a process.
    client.get("/search/", {"query": "warm"})
    highlight._pattern.cache_clear()
    with mock.patch.object(highlight.re, "compile", wraps=re.compile) as compiled:
        page = client.get("/search/", {"query": "gpu inference"}).content.decode()
    assert page.count("<mark>") > 12
    assert compiled.call_count == 1


def test_excerpts_start_at_a_word_after_the_summary(client, demo):
    # The index holds the summary first; the excerpt's text starts after it, at the next word.
    page = client.get("/search/", {"query": "gpu"}).content.decode()
    excerpts = re.findall(r'<p class="card__excerpt">(.*?)</p>', page)
    assert excerpts and all(not text[:1].isspace() for text in excerpts)


@pytest.mark.skipif(connection.vendor != "sqlite", reason="the SQLite FTS5 backend")
def test_sqlite_summary_without_the_materialized_hint_is_the_same(demo, monkeypatch):
    from search import sqlite_backend

    def summary():
        results = _articles(demo).search("gpu")
        return results.count(), dict(results.facet("topics")), [row["pk"] for row in results[0:12]]

    hinted = summary()
    monkeypatch.setattr(sqlite_backend, "_MATERIALIZED", "")  # SQLite before 3.35 has no hint
    assert summary() == hinted


@pytest.mark.parametrize("field_name", ["summary", "body", "no_such_field", "topics__title", "", "pk; DROP TABLE x"])
def test_a_field_that_is_not_a_filter_field_cannot_be_faceted(demo, field_name):
    """Both backends refuse, as Wagtail does, to facet on anything but a FilterField
    (``search.backends.is_filter_field``), before any statement runs."""
    from wagtail.search.backends.base import FilterFieldError

    results = _articles(demo).search("gpu")
    with CaptureQueriesContext(connection) as queries, pytest.raises(FilterFieldError):
        results.facet(field_name)
    assert len(queries) == 0


def test_filter_fields_can_be_faceted(demo):
    results = _articles(demo).search("gpu")
    assert sum(results.facet("topics").values()) >= 1
    assert sum(_articles(demo).search("gpu").facet("date_published").values()) == results.count()


def _keys_only(demo):
    return ArticlePage.objects.live().order_by().values("pk")


def _wagtails_keys(queryset, query, start=0, stop=None):
    """The keys Wagtail's own PostgreSQL backend gives for ``query`` (every match fully ranked)."""
    from wagtail.search.backends.database.postgres.postgres import PostgresSearchResults

    return [row["pk"] for row in PostgresSearchResults._do_search(queryset.search(query)[start:stop])]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the PostgreSQL backend")
@pytest.mark.parametrize("query", ["gpu", "memory bandwidth", "checkpointing"])
def test_postgresql_ranks_the_page_and_reads_its_rows_in_one_statement(demo, monkeypatch, query):
    from search import postgres_backend

    # Every match fully ranked: the order is exactly Wagtail's, page after page.
    monkeypatch.setattr(postgres_backend, "FULL_RANK_LIMIT", 1000)
    results = _keys_only(demo).search(query)
    total = results.count()
    assert total > 12
    with CaptureQueriesContext(connection) as queries:
        first = [row["pk"] for row in results[0:12]]
    assert len(queries) == 1, "the full rank and the page's rows in one statement"
    assert all(row["search_indexed_text"] for row in results[0:12])
    pages = first + [row["pk"] for start in range(12, total, 12) for row in results[start : start + 12]]
    assert pages == _wagtails_keys(_keys_only(demo), query)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the PostgreSQL backend")
def test_postgresql_a_page_across_the_fully_ranked_head_ranks_only_the_head(demo, monkeypatch):
    from search import postgres_backend

    monkeypatch.setattr(postgres_backend, "FULL_RANK_LIMIT", 5)
    results = _keys_only(demo).search("gpu")
    assert results.count() > 24
    list(results[12:24])  # the summary's keys as far as the second page
    head = results.query_compiler._site_search_summary.head
    with CaptureQueriesContext(connection) as queries:
        page = [row["pk"] for row in results[0:12]]
    # The first five in Wagtail's order, then the rest of the page in the summary's order.
    assert len(queries) == 2
    assert page == _wagtails_keys(_keys_only(demo).filter(pk__in=head[:5]), "gpu") + head[5:12]
    assert [row["pk"] for row in results[12:24]] == head[12:24]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the PostgreSQL backend")
@pytest.mark.parametrize("order", ["newest", "oldest, no date first", "relevance in the title"])
def test_postgresql_pages_come_in_wagtails_order(demo, order):
    """The summary picks its head by the queryset's own sort keys (each a column of the matches,
    with its direction and NULLs' place): page after page, the keys Wagtail's backend gives."""
    from datetime import UTC, datetime

    from django.db.models import F

    def search(queryset):
        if order == "newest":
            ordered = queryset.order_by(F("date_published").desc(nulls_last=True), "-id")
            return ordered.search("gpu", order_by_relevance=False)
        if order == "oldest, no date first":
            ordered = queryset.order_by(F("date_published").asc(nulls_first=True), "id")
            return ordered.search("gpu", order_by_relevance=False)
        return queryset.search("gpu", fields=["title"])

    queryset = _keys_only(demo)
    # Ties and NULLs to order: two articles without a date, two on the same day.
    undated, *same_day = list(search(queryset))[:3]
    ArticlePage.objects.filter(pk=undated["pk"]).update(date_published=None)
    ArticlePage.objects.filter(pk__in=[row["pk"] for row in same_day]).update(
        date_published=datetime(2024, 1, 2, tzinfo=UTC)
    )
    results = search(queryset)
    total = results.count()
    assert total > 4
    pages = [row["pk"] for start in range(0, total, 5) for row in results[start : start + 5]]
    from wagtail.search.backends.database.postgres.postgres import PostgresSearchResults

    assert pages == [row["pk"] for row in PostgresSearchResults._do_search(search(queryset))]


def _wagtails_facet(results, field_name):
    """Wagtail's own ``facet()`` for ``results`` (its database backend for this database)."""
    if connection.vendor == "postgresql":
        from wagtail.search.backends.database.postgres.postgres import PostgresSearchResults as WagtailsResults
    else:  # importable only where SQLite's index model exists
        from wagtail.search.backends.database.sqlite.sqlite import SQLiteSearchResults as WagtailsResults
    return dict(WagtailsResults.facet(results, field_name))


@pytest.mark.parametrize("query", ["gpu", "memory bandwidth", "checkpointing", "wombat"])
def test_relation_facets_are_wagtails_counts_with_the_unrelated_under_none(demo, query):
    """Topic counts come from the link table joined to the matches (``search.backends``), not
    from a probe of the article table per match; the counts are Wagtail's own, the matches
    without a topic counted under None."""
    from search.backends import facet_counts_sql

    sql, _params = facet_counts_sql(ArticlePage, "topics", connection)
    assert 'FROM "site_search_matches" LEFT OUTER JOIN' in sql
    link = ArticlePage._meta.get_field("topics").remote_field.through
    untopical = _articles(demo).search("gpu")[0]["pk"]
    link.objects.filter(articlepage_id=untopical).delete()

    ours = dict(_articles(demo).search(query).facet("topics"))
    assert ours == _wagtails_facet(_articles(demo).search(query), "topics")
    if query == "gpu":
        assert ours[None] == 1


def test_the_facet_statement_is_compiled_once_per_process(demo):
    from search.backends import _compiled_facet_counts_sql

    first = _articles(demo).search("gpu").facet("topics")
    before = _compiled_facet_counts_sql.cache_info()
    again = _articles(demo).search("gpu").facet("topics")
    after = _compiled_facet_counts_sql.cache_info()
    assert (after.hits, after.misses) == (before.hits + 1, before.misses)
    assert again == first


def test_cards_of_results_read_their_rows_once_per_generation(client, demo, settings):
    """A search's cards are the rows the listings remember (blog.listings.remembered_card_rows):
    the next search finding the same articles reads neither their rows nor their relations."""
    settings.SEARCH_RESULTS_CACHE_SECONDS = 0
    search = {"query": "gpu", "sort": "newest"}
    with CaptureQueriesContext(connection) as first:
        client.get("/search/", search)
    with CaptureQueriesContext(connection) as second:
        client.get("/search/", search)

    def card_row_reads(queries):
        # blog.listings.card_rows: "live_revision" is a name of its own in that query.
        return [query for query in queries.captured_queries if 'AS "live_revision"' in query["sql"]]

    assert len(card_row_reads(first)) == 1 and not card_row_reads(second)


def test_results_are_compressed_only_when_kept(client, demo, settings):
    import zlib

    settings.SEARCH_RESULTS_CACHE_SECONDS = 0
    with mock.patch.object(zlib, "compress", wraps=zlib.compress) as compress:
        uncached = client.get("/search/", {"query": "gpu"}).content
    assert compress.call_count == 0
    settings.SEARCH_RESULTS_CACHE_SECONDS = 120
    with mock.patch.object(zlib, "compress", wraps=zlib.compress) as compress:
        first = client.get("/search/", {"query": "gpu"}).content
        repeated = client.get("/search/", {"query": "gpu"}).content
    assert compress.call_count == 1
    assert uncached == first == repeated
