"""Wagtail's PostgreSQL search backend with one full-text pass per search (see ``search.backends``).

Measured with 10,000 articles (benchmarks/search_latency.py, EXPLAIN ANALYZE in the README):
Wagtail's backend runs the full-text match once for the page of results, again for the count
and again for each facet, and each run evaluates ``(title || body) @@ query`` row by row: every
row's body tsvector (about 5 KB, stored out of line) is fetched and concatenated with its title,
0.5 s per run however few rows match. Here:

- the expression GIN index on ``title || body`` (migration ``0002``) finds the matches, and
- one statement (``_summarise``) collects the matches in result order into a materialised CTE
  and returns only their count, the first primary keys in order and any facet counts: no
  per-match data crosses to Python (sending every key of 10,000 matches to Python and back for
  the facets cost more than the match itself);
- for relevance order, only the likeliest FULL_RANK_LIMIT matches get Wagtail's full rank
  (``_ranked_rows``), and only when a page among them is shown, in the statement that reads
  that page's rows.

The full-text SQL is still Wagtail's (``PostgresSearchQueryCompiler.search``); only how often it
runs and the plan differ, so search still moves to Elasticsearch/OpenSearch by configuration
alone.
"""

from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field

from django.db import DatabaseError, connections, router
from django.db.models import F, OrderBy

from wagtail.search.backends.base import FilterFieldError
from wagtail.search.backends.database.postgres.postgres import (
    PostgresSearchBackend,
    PostgresSearchResults,
)
from wagtail.search.query import PlainText

from home.upstream.modelsearch import BoundedQueryMixin, NulFreeQueryMixin

from .backends import by_pk, facets_sql, indexed_texts, is_filter_field, with_indexed_text

# Relevance for more matches than this is ranked in two steps (see ``_ordered_matches``): the
# likeliest this many, five pages of twelve results, get Wagtail's full rank (each reads an
# article's whole body vector: 8 ms for 120 at 10,000 articles, 4 ms for 60).
FULL_RANK_LIMIT = 60
# ``_summarise``'s statement around Django's SQL for the matches (``site_search_matches``: their
# keys and sort keys, materialised once) and the facets' SQL; values are all parameters. The
# head is the first ``LIMIT`` matches in result order, picked by a top-N sort rather than by
# numbering every match (a full sort and a window over 8,179 matches of "gpu" at 10,000
# articles: about 3 ms more); ``{order}`` is the sort keys' columns, as ``_sort_columns`` gives.
_SUMMARY_SQL = (
    'WITH "site_search_matches" AS MATERIALIZED ({matches}) SELECT '
    '(SELECT count(*) FROM "site_search_matches"), '
    '(SELECT array_agg("_match_pk" ORDER BY {order}) FROM (SELECT * '
    'FROM "site_search_matches" ORDER BY {order} LIMIT %s) AS "head"){facets}'
)
_FACET_SQL = (
    ', (SELECT json_agg(json_build_array("facet".{column}, "facet"."_facet_count") '
    'ORDER BY "facet"."_facet_count" DESC) FROM ({counts}) AS "facet")'
)


# The settings _prefer_indexes turns off for its statements, then puts back (one round trip each).
# Named, not looked up in ``pg_settings``: scanning that view (every setting, formatted) cost
# 0.6 ms of server time per statement: with two a search, about 5 % of its CPU at 98 articles.
_TURN_OFF_PLANNER_SETTINGS = "SELECT set_config('enable_seqscan', 'off', false), set_config('jit', 'off', false)"
_PUT_BACK_PLANNER_SETTINGS = "RESET enable_seqscan; RESET jit"


@contextmanager
def _prefer_indexes(model):
    """Run the enclosed queries with sequential scans discouraged (``enable_seqscan = off``) and
    PostgreSQL's JIT compiler off (``jit = off``); yields the database alias.

    Our own SQL, planner settings: the planner does not know that evaluating the match row by
    row fetches each body vector from TOAST storage, so for a word found in most articles it
    prefers a sequential scan (0.57 s) to the GIN index (3 ms for the same 10,000 rows, no body
    fetched). Scans stay possible where no index serves, but at the disabled-node cost of 10^10,
    which is past every JIT threshold (``jit_above_cost``, 100,000 by default, and the inlining
    and optimising ones): a statement with a scan no index serves (the admin's author search
    over the ``blog_author`` table) then spent 150-250 ms compiling itself with LLVM to run in a
    few milliseconds (auto_explain, PostgreSQL 15, 3 December 2026). Hence ``jit`` off with it.

    Session settings, set and then put back to their reset values (RESET) in one round trip
    each, rather than SET LOCAL, which needs a transaction of its own (BEGIN and
    COMMIT: two more). If the enclosed statement fails inside a transaction, putting them back
    fails too, and the rollback that follows undoes the setting.
    """
    alias = router.db_for_read(model)
    connection = connections[alias]
    with connection.cursor() as cursor:
        cursor.execute(_TURN_OFF_PLANNER_SETTINGS)
    try:
        yield alias
    finally:
        try:
            with connection.cursor() as cursor:
                cursor.execute(_PUT_BACK_PLANNER_SETTINGS)
        except DatabaseError:
            if not connection.in_atomic_block:
                raise


@dataclass
class _Summary:
    """What one ``_summarise`` statement found: ``total`` matches, the primary keys of the first
    ``len(head)`` of them in result order (all of them when ``complete``), and counts per value
    for each faceted field (``{field_name: OrderedDict(value -> count)}``, largest first)."""

    total: int
    head: list
    facets: dict = field(default_factory=dict)
    # For relevance in two steps: Wagtail's full relevance order (``ORDER BY`` expressions).
    relevance_order: tuple | None = None

    @property
    def complete(self) -> bool:
        return len(self.head) >= self.total


def _two_step(compiler) -> bool:
    """Whether ``compiler``'s relevance order is computed in two steps (see ``_ordered_matches``)."""
    return compiler.order_by_relevance and isinstance(compiler.query, PlainText) and compiler.fields is None


def _ordered_matches(compiler, config, backend):
    """``(matches, relevance_order)``: a queryset of every match, ordered as the results are
    (before ``_ranked_rows``), and for a two-step relevance order Wagtail's full one (its
    ``ORDER BY`` expressions, for ``_ranked_rows``), else None.

    Relevance for a plain-text query over the whole index is taken in two steps. Wagtail's rank
    is ``ts_rank(title) * title_norm + ts_rank(body)``; the body's vector is stored out of line,
    and fetching it for each of 10,000 matches is most of a 0.4 s query. The title's weight is a
    hundred times the body's (``search_fields`` boosts), so a title match outranks a body-only
    one. Step 1 (here) orders every match by the title's rank alone, then newest first (title
    vectors are small and stored in the row); step 2 (``_ranked_rows``) ranks the first
    FULL_RANK_LIMIT of that order with Wagtail's full expression. Exact for up to FULL_RANK_LIMIT
    matches; for more, a body-only match outside the newest FULL_RANK_LIMIT can rank below where
    Wagtail would put it. Other queries keep Wagtail's own order.
    """
    searched = compiler.search(config, None, None, backend=backend)
    if not _two_step(compiler):
        return searched, None
    title_rank = compiler.build_tsrank(F("index_entries__title"), compiler.query, config=config) * F(
        "index_entries__title_norm"
    )
    # Pages: newest first after the title's rank; other models: newest row first.
    is_page = any(field.name == "first_published_at" for field in searched.model._meta.get_fields())
    newest = [F("first_published_at").desc(nulls_last=True), F("pk").desc()] if is_page else [F("pk").desc()]
    matches = searched.annotate(_title_rank=title_rank).order_by(F("_title_rank").desc(), *newest)
    return matches, searched.query.order_by


def _sort_columns(order_by) -> list[tuple[str, OrderBy]]:
    """``[(column name, OrderBy)]`` for each of a queryset's ``order_by`` items (field names, with
    "-" for descending, or expressions), so that the summary selects each sort key as a column
    and orders by the columns as the queryset orders by the keys."""
    columns = []
    for position, item in enumerate(order_by):
        if isinstance(item, str):
            item = F(item[1:]).desc() if item.startswith("-") else F(item).asc()
        elif not isinstance(item, OrderBy):
            item = item.asc()
        columns.append((f"_sort_{position}", item))
    return columns


def _order_sql(columns, quote) -> str:
    """The summary's ``ORDER BY`` over ``_sort_columns``: each column with its direction and, where
    the expression names one, its NULLs' place (unnamed, PostgreSQL's default is the one the
    queryset's own statement gets); the key last, so that ties come in one order."""
    terms = []
    for name, order in columns:
        nulls = " NULLS FIRST" if order.nulls_first else " NULLS LAST" if order.nulls_last else ""
        terms.append(f"{quote(name)} {'DESC' if order.descending else 'ASC'}{nulls}")
    return ", ".join([*terms, '"_match_pk"'])


def _summarise(compiler, backend, head_size: int | None, facet_fields=()) -> _Summary:
    """Count ``compiler``'s matches, list the first ``head_size`` (None: all) primary keys in
    result order and count the matches per value of each of ``facet_fields``, in one statement.

    The statement materialises the matches once (a CTE of primary keys and sort keys) and reads
    the count, the head (``array_agg``) and the facets (``json_agg``, so facet values arrive as
    JSON types: numbers, strings, booleans) from it.
    """
    config = compiler.get_config(backend)
    model = compiler.queryset.model
    ordered, relevance_order = _ordered_matches(compiler, config, backend)
    columns = _sort_columns(ordered.query.order_by)
    matches = (
        ordered.order_by()
        .annotate(_match_pk=F("pk"), **{name: order.expression for name, order in columns})
        .values("_match_pk", *(name for name, _order in columns))
    )
    with _prefer_indexes(model) as alias:
        connection = connections[alias]
        matches_sql, params = matches.query.get_compiler(connection=connection).as_sql()
        facet_columns, facet_params = facets_sql(model, facet_fields, connection, _FACET_SQL)
        order = _order_sql(columns, connection.ops.quote_name)
        sql = _SUMMARY_SQL.format(matches=matches_sql, order=order, facets=facet_columns)
        with connection.cursor() as cursor:
            cursor.execute(sql, [*params, head_size, *facet_params])
            total, head, *facet_rows = cursor.fetchone()
    facets = {name: OrderedDict(rows or ()) for name, rows in zip(facet_fields, facet_rows, strict=True)}
    return _Summary(total=total, head=list(head or []), facets=facets, relevance_order=relevance_order)


def _ranked_rows(compiler, summary: _Summary, start: int, stop: int) -> list:
    """The results ``start`` to ``stop`` of the summary's first FULL_RANK_LIMIT keys in Wagtail's
    full relevance order (step 2 of ``_ordered_matches``), as the page's rows with their indexed
    text: one statement over at most FULL_RANK_LIMIT rows, which both ranks them and reads the
    page (no statement of its own for the rows).

    The order is Wagtail's own (its relevance ``ORDER BY``: the rank expression, then the newest
    key), applied to the rows of those keys: each of them matched the search already, so the
    rows need no second match."""
    head = summary.head[:FULL_RANK_LIMIT]
    rows = _page_rows(compiler.queryset).filter(pk__in=head).order_by(*summary.relevance_order)
    return list(rows[start:stop])


def _page_rows(queryset):
    """``queryset`` unordered, each result with the plain text indexed for it (for excerpts)."""
    return with_indexed_text(queryset.order_by(), "body_text")


def _summary(compiler, backend, keys_until: int | None = 0, facet_fields=()) -> _Summary:
    """``compiler``'s summary, with at least the first ``keys_until`` keys in order (None: every
    key) and the counts for ``facet_fields``. Memoised on the compiler (which the clones made by
    slicing and counting share): summarised again only when a later call needs keys past the
    head or a facet not counted yet."""
    summary = getattr(compiler, "_site_search_summary", None)
    if summary is not None:
        enough_keys = summary.complete or (keys_until is not None and keys_until <= len(summary.head))
        if enough_keys and all(name in summary.facets for name in facet_fields):
            return summary
    head_size = None if keys_until is None else max(FULL_RANK_LIMIT, keys_until, len(summary.head) if summary else 0)
    facets = list(dict.fromkeys([*(summary.facets if summary else ()), *facet_fields]))
    fresh = _summarise(compiler, backend, head_size, facets)
    compiler._site_search_summary = fresh
    return fresh


class OnePassPostgresSearchResults(PostgresSearchResults):
    def _do_search(self):
        compiler = self.query_compiler
        start, stop = self.start or 0, self.stop
        first_slice = stop is not None and getattr(compiler, "_site_search_summary", None) is None
        if self._score_field is not None or first_slice:
            # Scores asked for, or a first slice with nothing counted yet (the view's five topic
            # pages): Wagtail's own query with a LIMIT is one statement.
            return super()._do_search()
        summary = _summary(compiler, self.backend, keys_until=stop)
        ranked = []
        if _two_step(compiler) and start < FULL_RANK_LIMIT:
            # The page's rows come with the full rank of the head's keys (one statement).
            head_stop = FULL_RANK_LIMIT if stop is None else min(stop, FULL_RANK_LIMIT)
            ranked = _ranked_rows(compiler, summary, start, head_stop)
            start = FULL_RANK_LIMIT
        page = summary.head[start:stop] if stop is None or start < stop else []
        if not page:
            return ranked
        objects = by_pk(_page_rows(compiler.queryset).filter(pk__in=page))
        return ranked + [objects[pk] for pk in page if pk in objects]

    def _do_count(self):
        return _summary(self.query_compiler, self.backend).total

    def facet(self, field_name):
        """Counts of the matches per value of ``field_name`` (a FilterField), largest first.

        Computed with the count and the first page's keys when asked for before either."""
        compiler = self.query_compiler
        if not is_filter_field(compiler.queryset.model, field_name):
            raise FilterFieldError(
                f'Cannot facet search results with field "{field_name}". Please add '
                f"index.FilterField('{field_name}') to {compiler.queryset.model.__name__}.search_fields.",
                field_name=field_name,
            )
        return _summary(compiler, self.backend, facet_fields=[field_name]).facets[field_name]


class OnePassPostgresSearchBackend(NulFreeQueryMixin, BoundedQueryMixin, PostgresSearchBackend):
    results_class = OnePassPostgresSearchResults

    def indexed_texts(self, model, pks) -> dict:
        """``{pk: text}``: the plain text indexed for the non-title search fields of the ``model``
        objects with ``pks`` (for articles: summary, body blocks, topic and author names, joined
        by spaces in ``search_fields`` order). One query; objects not indexed are left out."""
        return indexed_texts(model, pks, "body_text")
