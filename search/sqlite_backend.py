"""The title-weighted SQLite FTS5 backend (see ``search.backends``). Imported only on SQLite:
the FTS index model exists only there."""

import json
import sqlite3
from collections import OrderedDict
from dataclasses import dataclass

from django.db import connections
from django.db.models import F, FloatField, Func, TextField, Window
from django.db.models.functions import Cast, RowNumber

from wagtail.search.backends.database.sqlite.query import MatchExpression, normalize
from wagtail.search.backends.database.sqlite.sqlite import (
    SQLiteAutocompleteQueryCompiler,
    SQLiteFTSIndexEntry,
    SQLiteSearchBackend,
    SQLiteSearchQueryCompiler,
    SQLiteSearchResults,
)
from wagtail.search.query import MatchAll, Not
from wagtail.search.utils import get_descendants_content_types_pks

from home.upstream.modelsearch import BoundedQueryMixin, NulFreeQueryMixin, SQLiteSafeQueryMixin

from .backends import by_pk, facets_sql, indexed_texts, is_filter_field, with_indexed_text
from .models import AutocompleteIndexEntry

# bm25() column weights, in the FTS5 table's column order (autocomplete, body, title): a title
# match counts ten times a body match, the autocomplete column (a copy of the title) not at all.
SQLITE_COLUMN_WEIGHTS = (0.0, 1.0, 10.0)


class WeightedBM25(Func):
    """``bm25(<fts table>, w_autocomplete, w_body, w_title)``: lower (more negative) is better."""

    output_field = FloatField()

    def as_sql(self, compiler, connection, **extra_context):
        weights = ", ".join(str(float(weight)) for weight in SQLITE_COLUMN_WEIGHTS)
        return f"bm25({SQLiteFTSIndexEntry._meta.db_table}, {weights})", []


class AutocompleteMatchExpression(MatchExpression):
    """Wagtail's ``MATCH`` on the unstemmed autocomplete table (``search.models.AutocompleteIndexEntry``)."""

    template = f"{AutocompleteIndexEntry._meta.db_table} MATCH %s"


class AutocompleteBM25(Func):
    """``bm25()`` of the autocomplete table: lower (more negative) is better."""

    output_field = FloatField()

    def as_sql(self, compiler, connection, **extra_context):
        return f"bm25({AutocompleteIndexEntry._meta.db_table})", []


class FTSTableMixin:
    """Which FTS5 table a query compiler matches on: Wagtail's stemmed one by default. The
    columns come from ``fts_columns()`` (``home.upstream.modelsearch.SQLiteSafeQueryMixin``, which
    every compiler here puts first in its bases)."""

    fts_model = SQLiteFTSIndexEntry
    match_expression_class = MatchExpression


class RankedIdsMixin(FTSTableMixin):
    """Ranking inside the FTS query, for a query compiler (see ``ranked_ids``)."""

    # Best first: bm25() is lower (more negative) for better matches; then the newest index entry.
    RANK_ORDER = ("score", "-index_entry_id")

    def ranked_matches(self, config):
        """The FTS index rows matching the query among ``self.queryset``'s objects, each with its
        ``score`` (order them by ``RANK_ORDER``), or None for queries this does not cover
        (match-all and negated queries), which then take Wagtail's path."""
        query = normalize(self.query)
        if isinstance(query, (MatchAll, Not)):
            return None
        match = self.match_expression_class(self.fts_columns(), self.build_search_query(query, config=config))
        allowed = self.queryset.order_by().annotate(_pk_text=Cast("pk", TextField())).values("_pk_text")
        return (
            self.fts_model.objects.filter(match)
            .filter(index_entry__content_type__in=get_descendants_content_types_pks(self.queryset.model))
            .filter(index_entry__object_id__in=allowed)
            .annotate(score=self._build_rank_expression(self.get_search_vectors(), config))
        )

    def ranked_ids(self, config, start, stop) -> list | None:
        """Primary keys of the matches from ``start`` to ``stop``, best first, in one FTS query.

        Wagtail orders by a correlated subquery that runs the FTS match once per matching row
        (1.6 s for a common word over 1,000 articles); ranking inside the FTS query and then
        fetching the few objects of one page is linear. None for queries this does not cover
        (see ``ranked_matches``).
        """
        ranked = self.ranked_matches(config)
        if ranked is None:
            return None
        ranked = ranked.order_by(*self.RANK_ORDER).values_list("index_entry__object_id", flat=True)
        to_pk = self.queryset.model._meta.pk.to_python
        return [to_pk(object_id) for object_id in ranked[start:stop]]


class MatchFirstMixin(FTSTableMixin):
    """Unranked matching (counts, facets, "newest" order) that runs the FTS query once.

    Wagtail filters ``pk IN (SELECT object_id FROM fts JOIN indexentry WHERE fts MATCH ...
    AND indexentry.content_type_id IN (...))``. SQLite plans that subquery from the index entries'
    content-type index and probes the FTS table once per entry with the whole MATCH (its plan
    says ``SCAN fts VIRTUAL TABLE INDEX 0:=M``): every article re-runs the query, and each extra
    word makes each run dearer (1.1 s for a four-word query over 1,000 articles, against 28 ms
    for one FTS scan). Asking for the index entries whose rowid is in the FTS match instead makes
    SQLite run the MATCH once into a list (``LIST SUBQUERY``): 1 ms for the same query.
    """

    def search(self, config, start, stop, score_field=None):
        query = normalize(self.query)
        if self.order_by_relevance or score_field is not None or isinstance(query, (MatchAll, Not)):
            return super().search(config, start, stop, score_field)
        match = self.match_expression_class(self.fts_columns(), self.build_search_query(query, config=config))
        matching_object_ids = (
            self.fts_model._meta.get_field("index_entry")
            .related_model.objects.filter(
                content_type__in=get_descendants_content_types_pks(self.queryset.model),
                pk__in=self.fts_model.objects.filter(match).values("pk"),
            )
            .values("object_id")
        )
        queryset = self.queryset.filter(pk__in=matching_object_ids)
        if not queryset.query.order_by:
            # As Wagtail: a fixed order keeps pages of results stable.
            queryset = queryset.order_by("-pk")
        return queryset[start:stop]


class TitleWeightedSQLiteQueryCompiler(
    SQLiteSafeQueryMixin, MatchFirstMixin, RankedIdsMixin, SQLiteSearchQueryCompiler
):
    def _build_rank_expression(self, vectors, config):
        # One weighted bm25() for the whole query replaces Wagtail's sum of unweighted ones.
        return WeightedBM25()


class RankedSQLiteAutocompleteQueryCompiler(
    SQLiteSafeQueryMixin, MatchFirstMixin, RankedIdsMixin, SQLiteAutocompleteQueryCompiler
):
    # Prefixes match unstemmed words, as PostgreSQL's "simple" autocomplete configuration does
    # (search.models.AutocompleteIndexEntry says why). Wagtail's own path (match-all and negated
    # queries) still reads Wagtail's table.
    fts_model = AutocompleteIndexEntry
    match_expression_class = AutocompleteMatchExpression

    def _build_rank_expression(self, vectors, config):
        return AutocompleteBM25()


# Keys a summary lists in result order: five pages of twelve results, so that paging through them
# costs only the statement for the page's rows.
SUMMARY_HEAD = 60
# ``_summarise``'s statement around Django's SQL for the ordered matches (their keys and
# positions, materialised once) and the facets' SQL; values are all parameters. SQLite's
# aggregates keep no order before 3.44, so the head carries its positions and is sorted in Python.
_SUMMARY_SQL = (
    'WITH "site_search_matches" AS {materialized}({matches}) SELECT '
    '(SELECT count(*) FROM "site_search_matches"), '
    '(SELECT json_group_array(json_array("_match_pk", "_position")) FROM (SELECT "_match_pk", "_position" '
    'FROM "site_search_matches" ORDER BY "_position" LIMIT %s)){facets}'
)
# The hint (SQLite 3.35+) that runs the match once for the count, the keys and the facets; without
# it (older SQLite, which Django 5.2 still supports) the statement gives the same answer.
_MATERIALIZED = "MATERIALIZED " if sqlite3.sqlite_version_info >= (3, 35) else ""
_FACET_SQL = (
    ', (SELECT json_group_array(json_array("facet".{column}, "facet"."_facet_count")) FROM ({counts}) AS "facet")'
)


@dataclass
class Summary:
    """What one ``_summarise`` statement found: ``total`` matches, the primary keys of the first
    ``len(head)`` of them in result order (all of them when ``complete``), and counts per value
    for each faceted field (``{field_name: OrderedDict(value -> count)}``, largest first; values
    as JSON gives them: numbers, strings, None)."""

    total: int
    head: list
    facets: dict

    @property
    def complete(self) -> bool:
        return len(self.head) >= self.total


def _positioned(compiler, config):
    """A ``values("_match_pk", "_position")`` queryset of every match in result order, or None
    where Wagtail's own path serves (match-all and negated queries ranked by relevance)."""
    pk_field = compiler.queryset.model._meta.pk
    if compiler.order_by_relevance:
        ranked = compiler.ranked_matches(config) if isinstance(compiler, RankedIdsMixin) else None
        if ranked is None:
            return None
        key, order = Cast("index_entry__object_id", output_field=pk_field), list(compiler.RANK_ORDER)
        return (
            ranked.order_by()
            .annotate(_match_pk=key, _position=Window(RowNumber(), order_by=order))
            .values("_match_pk", "_position")
        )
    ordered = compiler.search(config, None, None)
    return (
        ordered.order_by()
        .annotate(_match_pk=F("pk"), _position=Window(RowNumber(), order_by=ordered.query.order_by))
        .values("_match_pk", "_position")
    )


def _summarise(compiler, backend, facet_fields=()) -> Summary | None:
    """Count ``compiler``'s matches, list the first SUMMARY_HEAD primary keys in result order and
    count the matches per value of each of ``facet_fields``, in one statement (None: see
    ``_positioned``). Where Wagtail's backend takes one statement for each, and compiles the
    search's filters (site, privacy, expiry) into each of them."""
    positioned = _positioned(compiler, compiler.get_config(backend))
    if positioned is None:
        return None
    model = compiler.queryset.model
    connection = connections[compiler.queryset.db]
    matches_sql, params = positioned.query.get_compiler(connection=connection).as_sql()
    facet_columns, facet_params = facets_sql(model, facet_fields, connection, _FACET_SQL)
    with connection.cursor() as cursor:
        cursor.execute(
            _SUMMARY_SQL.format(materialized=_MATERIALIZED, matches=matches_sql, facets=facet_columns),
            [*params, SUMMARY_HEAD, *facet_params],
        )
        total, head, *facet_rows = cursor.fetchone()
    to_pk = model._meta.pk.to_python
    head = [to_pk(pk) for pk, _position in sorted(json.loads(head), key=lambda pair: pair[1])]
    facets = {
        name: OrderedDict(sorted((tuple(pair) for pair in json.loads(rows)), key=lambda pair: -pair[1]))
        for name, rows in zip(facet_fields, facet_rows, strict=True)
    }
    return Summary(total=total, head=head, facets=facets)


def _summary(compiler, backend, facet_fields=()) -> Summary | None:
    """``compiler``'s summary with the counts for ``facet_fields``, memoised on the compiler (which
    the clones made by slicing and counting share): summarised again only for a facet not counted
    yet. None: see ``_positioned``."""
    summary = getattr(compiler, "_site_search_summary", None)
    if summary is not None and all(name in summary.facets for name in facet_fields):
        return summary
    facets = list(dict.fromkeys([*(summary.facets if summary else ()), *facet_fields]))
    summary = _summarise(compiler, backend, facets)
    compiler._site_search_summary = summary
    return summary


class TitleWeightedSQLiteSearchResults(SQLiteSearchResults):
    def _do_search(self):
        # Each result carries the text indexed for it (``search.backends.with_indexed_text``).
        compiler = self.query_compiler
        queryset, compiler.queryset = compiler.queryset, with_indexed_text(compiler.queryset, "body")
        try:
            return self._ranked_or_wagtails_search()
        finally:
            compiler.queryset = queryset

    def _ranked_or_wagtails_search(self):
        compiler = self.query_compiler
        summary = getattr(compiler, "_site_search_summary", None)
        start, stop = self.start or 0, self.stop
        if (
            summary is not None
            and self._score_field is None
            and (summary.complete or (stop is not None and stop <= len(summary.head)))
        ):
            # Counted first (the search page counts and facets before it pages): the page's keys
            # are known, one statement for its rows.
            page = summary.head[start:stop]
            objects = by_pk(compiler.queryset.order_by().filter(pk__in=page))
            return [objects[pk] for pk in page if pk in objects]
        if not (isinstance(compiler, RankedIdsMixin) and compiler.order_by_relevance and self._score_field is None):
            return super()._do_search()
        ids = compiler.ranked_ids(compiler.get_config(self.backend), self.start, self.stop)
        if ids is None:
            return super()._do_search()
        objects = by_pk(compiler.queryset.filter(pk__in=ids))
        return [objects[pk] for pk in ids if pk in objects]

    def _do_count(self):
        summary = _summary(self.query_compiler, self.backend)
        if summary is not None:
            return summary.total
        # Counting needs no ranking: Wagtail's queryset without the score annotation.
        compiler = self.query_compiler
        relevance, compiler.order_by_relevance = compiler.order_by_relevance, False
        try:
            return compiler.search(compiler.get_config(self.backend), None, None).count()
        finally:
            compiler.order_by_relevance = relevance

    def facet(self, field_name):
        """Counts of the matches per value of ``field_name`` (a FilterField), largest first.
        Computed with the count and the first keys in one statement (``_summarise``)."""
        compiler = self.query_compiler
        if not is_filter_field(compiler.queryset.model, field_name):
            return super().facet(field_name)  # Wagtail's FilterFieldError
        summary = _summary(compiler, self.backend, facet_fields=[field_name])
        if summary is not None:
            return summary.facets[field_name]
        # Counts per value need no ranking either.
        relevance, compiler.order_by_relevance = compiler.order_by_relevance, False
        try:
            return super().facet(field_name)
        finally:
            compiler.order_by_relevance = relevance


class TitleWeightedSQLiteSearchBackend(NulFreeQueryMixin, BoundedQueryMixin, SQLiteSearchBackend):
    query_compiler_class = TitleWeightedSQLiteQueryCompiler
    autocomplete_query_compiler_class = RankedSQLiteAutocompleteQueryCompiler
    results_class = TitleWeightedSQLiteSearchResults

    def indexed_texts(self, model, pks) -> dict:
        """``{pk: text}``: the plain text indexed for the non-title search fields of the ``model``
        objects with ``pks`` (see ``search.postgres_backend``); one query."""
        return indexed_texts(model, pks, "body")
