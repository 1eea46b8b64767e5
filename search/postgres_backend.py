"""Wagtail's PostgreSQL search backend with one full-text pass per search (see ``search.backends``).

Measured with 10,000 articles (benchmarks/search_latency.py, EXPLAIN ANALYZE in the README):
Wagtail's backend runs the full-text match once for the page of results, again for the count
and again for each facet, and each run evaluates ``(title || body) @@ query`` row by row: every
row's body tsvector (about 5 KB, stored out of line) is fetched and concatenated with its title,
0.5 s per run however few rows match. Here:

- the expression GIN index on ``title || body`` (migration ``0002``) finds the matches, and
- one query fetches the primary keys of every match in result order; the count, the page of
  results and the facet counts all come from that list.

The SQL is still Wagtail's (``PostgresSearchQueryCompiler.search``); only how often it runs and
the plan differ, so search still moves to Elasticsearch/OpenSearch by configuration alone.
"""

from collections import OrderedDict
from contextlib import contextmanager

from django.db import connections, router, transaction
from django.db.models import Count, F
from django.db.models.lookups import Lookup

from wagtail.search.backends.base import FilterFieldError
from wagtail.search.backends.database.postgres.postgres import (
    PostgresSearchBackend,
    PostgresSearchResults,
)
from wagtail.search.query import PlainText

from .backends import indexed_texts

# Relevance for more matches than this is ranked in two steps (see ``_ranked_in_two_steps``).
FULL_RANK_LIMIT = 500


@contextmanager
def _prefer_indexes(model):
    """Run the enclosed queries with sequential scans discouraged (``enable_seqscan = off``).

    Our own SQL, a planner setting: the planner does not know that evaluating the match row by
    row fetches each body vector from TOAST storage, so for a word found in most articles it
    prefers a sequential scan (0.57 s) to the GIN index (11 ms for the same 10,000 rows, no body
    fetched). Scans stay possible where no index serves.
    """
    alias = router.db_for_read(model)
    # One statement: SET LOCAL lasts until the transaction ends (or is undone with it). Inside an
    # outer transaction (a test, ATOMIC_REQUESTS) it lasts until that one ends, which changes
    # only how later statements are planned, not what they return; no savepoint is made for it.
    nested = connections[alias].in_atomic_block
    with transaction.atomic(using=alias, savepoint=not nested), connections[alias].cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        yield


def _ranked_in_two_steps(compiler, config, backend) -> list:
    """Every match's primary key, best first, ranking in full only the FULL_RANK_LIMIT likeliest.

    Wagtail's rank is ``ts_rank(title) * title_norm + ts_rank(body)``; the body's vector is
    stored out of line, and fetching it for each of 10,000 matches is most of a 0.4 s query.
    The title's weight is a hundred times the body's (``search_fields`` boosts), so a title
    match outranks a body-only one. Step 1 orders every match by the title's rank alone, then
    newest first (title vectors are small and stored in the row: milliseconds); step 2 ranks
    the first FULL_RANK_LIMIT of that order with Wagtail's full expression and puts them first.
    Matches past the limit keep step 1's order. Exact for up to FULL_RANK_LIMIT matches (Wagtail's
    own query then); for more, a body-only match outside the newest FULL_RANK_LIMIT can rank
    below where Wagtail would put it.
    """
    unranked = compiler.order_by_relevance
    compiler.order_by_relevance = False
    try:
        matching = compiler.search(config, None, None, backend=backend)
    finally:
        compiler.order_by_relevance = unranked
    title_rank = compiler.build_tsrank(F("index_entries__title"), compiler.query, config=config) * F(
        "index_entries__title_norm"
    )
    # Pages: newest first after the title's rank; other models: newest row first.
    is_page = any(field.name == "first_published_at" for field in matching.model._meta.get_fields())
    newest = [F("first_published_at").desc(nulls_last=True), "-pk"] if is_page else ["-pk"]
    step_one = list(
        matching.annotate(_title_rank=title_rank).order_by("-_title_rank", *newest).values_list("pk", flat=True)
    )
    if len(step_one) <= FULL_RANK_LIMIT:
        return list(compiler.search(config, None, None, backend=backend).values_list("pk", flat=True))
    head = set(step_one[:FULL_RANK_LIMIT])
    compiler_queryset = compiler.queryset
    compiler.queryset = compiler_queryset.filter(pk__in=head)
    try:
        ranked_head = list(compiler.search(config, None, None, backend=backend).values_list("pk", flat=True))
    finally:
        compiler.queryset = compiler_queryset
    return ranked_head + step_one[FULL_RANK_LIMIT:]


class _EqualsAny(Lookup):
    """``<lhs> = ANY(%s)`` with a Python list as one array parameter.

    Django's ``__in`` sends 10,000 keys as 10,000 parameters (binding and parsing them took
    longer than the count), and ``IN (SELECT unnest(...))`` was planned as 10,000 index lookups
    (104 ms against 11 ms for ``= ANY``, which PostgreSQL checks with a hash table).
    """

    lookup_name = "equals_any"
    prepare_rhs = False

    def get_prep_lookup(self):
        return list(self.rhs)

    def as_sql(self, compiler, connection):
        lhs, params = self.process_lhs(compiler, connection)
        return f"{lhs} = ANY(%s)", (*params, self.rhs)


def _all_matches(compiler, backend) -> list:
    """Primary keys of every match of ``compiler``'s search, in result order (relevance, or the
    queryset's own order); memoised on the compiler, which the clones made by slicing and
    counting share."""
    cached = getattr(compiler, "_site_search_matches", None)
    if cached is not None:
        return cached
    config = compiler.get_config(backend)
    with _prefer_indexes(compiler.queryset.model):
        if compiler.order_by_relevance and isinstance(compiler.query, PlainText) and compiler.fields is None:
            matches = _ranked_in_two_steps(compiler, config, backend)
        else:
            queryset = compiler.search(config, None, None, backend=backend)
            matches = list(queryset.values_list("pk", flat=True))
    compiler._site_search_matches = matches
    return matches


class OnePassPostgresSearchResults(PostgresSearchResults):
    def _do_search(self):
        compiler = self.query_compiler
        if self._score_field is not None or (
            self.stop is not None and getattr(compiler, "_site_search_matches", None) is None
        ):
            # A first slice with nothing counted yet (the view's five topic pages): Wagtail's
            # own query with a LIMIT is one statement.
            return super()._do_search()
        page = _all_matches(compiler, self.backend)[self.start : self.stop]
        objects = compiler.queryset.order_by().in_bulk(page)
        return [objects[pk] for pk in page if pk in objects]

    def _do_count(self):
        return len(_all_matches(self.query_compiler, self.backend))

    def facet(self, field_name):
        """Counts of the matches per value of ``field_name`` (a FilterField), largest first."""
        compiler = self.query_compiler
        if compiler._get_filterable_field(field_name) is None:
            raise FilterFieldError(
                f'Cannot facet search results with field "{field_name}". Please add '
                f"index.FilterField('{field_name}') to {compiler.queryset.model.__name__}.search_fields.",
                field_name=field_name,
            )
        matches = _all_matches(compiler, self.backend)
        counts = (
            compiler.queryset.model._default_manager.filter(_EqualsAny(F("pk"), matches))
            .values(field_name)
            .annotate(count=Count("pk"))
            .order_by("-count")
        )
        return OrderedDict((row[field_name], row["count"]) for row in counts)


class OnePassPostgresSearchBackend(PostgresSearchBackend):
    results_class = OnePassPostgresSearchResults

    def _search(self, query_compiler_class, query, model_or_queryset, **kwargs):
        if isinstance(query, str):  # PostgreSQL text cannot hold NUL; "" is Wagtail's empty result
            query = query.replace("\x00", " ").strip()
        return super()._search(query_compiler_class, query, model_or_queryset, **kwargs)

    def indexed_texts(self, model, pks) -> dict:
        """``{pk: text}``: the plain text indexed for the non-title search fields of the ``model``
        objects with ``pks`` (for articles: summary, body blocks, topic and author names, joined
        by spaces in ``search_fields`` order). One query; objects not indexed are left out."""
        return indexed_texts(model, pks, "body_text")
