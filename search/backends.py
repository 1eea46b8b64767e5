"""Wagtail's database search backend, with the page title weighted on SQLite too.

Use as ``WAGTAILSEARCH_BACKENDS["default"]["BACKEND"] = "search.backends"``. On MySQL, or SQLite
without FTS5, this is exactly Wagtail's ``wagtail.search.backends.database``.
On SQLite with FTS5, Wagtail ranks with ``bm25()`` over the whole row, so the ``boost`` of the
title field has no effect and an article mentioning a word three times in its body outranks
one with the word in its title. Here ``bm25()`` gets per-column weights instead, and any user
text becomes a valid FTS5 query (``home.upstream.modelsearch.SQLiteSafeQueryMixin``). On
PostgreSQL, Wagtail's backend with one full-text pass per search (``search.postgres_backend``).
Both also offer ``indexed_texts()``, the plain text they indexed, for result excerpts, and work
around modelsearch's defects with user text (``home.upstream.modelsearch``, docs/upstream.md):
NUL bytes become spaces (PostgreSQL text cannot hold them, a ``DataError``; SQLite's FTS5 stops
reading the query at one, "unterminated string": either way a 500 for ``?q=%00`` in any admin
search box or ``?search=%00`` in the API), and a query keeps at most ``MAX_QUERY_TERMS`` words
(a few hundred words exceed the recursion limit in modelsearch's query compilers). Switching to
Elasticsearch/OpenSearch stays a settings change.
"""

from functools import lru_cache

from wagtail.search.backends.database import SearchBackend as DatabaseSearchBackend


def SearchBackend(params):  # noqa: N802 - the name Wagtail looks up in a backend module
    """Wagtail's database backend for the default database: on SQLite FTS5 title-weighted
    (``search.sqlite_backend``), on PostgreSQL one full-text pass per search
    (``search.postgres_backend``)."""
    backend = DatabaseSearchBackend(params)
    if type(backend).__name__ == "SQLiteSearchBackend":
        from .sqlite_backend import TitleWeightedSQLiteSearchBackend

        return TitleWeightedSQLiteSearchBackend(params)
    if type(backend).__name__ == "PostgresSearchBackend":
        from .postgres_backend import OnePassPostgresSearchBackend

        return OnePassPostgresSearchBackend(params)
    return backend


def indexed_texts(model, pks, column: str) -> dict:
    """``{pk: text}`` from Wagtail's database index (``IndexEntry.<column>``) for the ``model``
    objects with ``pks``; one query. Used by the backends' ``indexed_texts`` methods."""
    from wagtail.search.models import IndexEntry
    from wagtail.search.utils import get_content_type_pk

    rows = IndexEntry.objects.filter(
        content_type_id=get_content_type_pk(model), object_id__in=[str(pk) for pk in pks]
    ).values_list("object_id", column)
    to_python = model._meta.pk.to_python
    return {to_python(object_id): text or "" for object_id, text in rows}


def facet_counts_sql(model, field_name, connection) -> tuple[str, tuple]:
    """SQL (with params) of ``(value, _facet_count)`` rows for ``field_name`` (a FilterField,
    a relation such as "topics" included) over the ``model`` objects whose keys are in the
    summary statement's ``site_search_matches`` (``search.postgres_backend``,
    ``search.sqlite_backend``): the counts Wagtail's ``facet()`` gives, inside that statement
    (a ``None`` value counts the matches with no related object).

    Nothing in it depends on the search, so it is compiled once per process and database
    (``_compiled_facet_counts_sql``): compiling it cost about a twentieth of a search's CPU."""
    return _compiled_facet_counts_sql(model, field_name, connection.alias, connection.vendor)


@lru_cache(maxsize=64)
def _compiled_facet_counts_sql(model, field_name: str, alias: str, vendor: str) -> tuple[str, tuple]:
    from django.core.exceptions import FieldDoesNotExist
    from django.db import connections
    from django.db.models import Count
    from django.db.models.expressions import RawSQL

    try:
        field = model._meta.get_field(field_name)
    except FieldDoesNotExist:
        field = None
    if field is not None and field.many_to_many and field.concrete:
        # A relation's counts come from its link table joined to the matches. Django's query
        # from ``model`` probed the model's own table once per match before the join: at 10,000
        # articles, 8,179 matches of "gpu", 16,466 buffer reads against 30 here (PostgreSQL 15,
        # 3 December 2026); with every page in memory the whole statement took only 0.1-0.4 ms
        # less (medians of 25), so the gain is in reads. Same rows, ``None`` included.
        # Only quoted names of the model's own relation (a FilterField's) go into it.
        quote = connections[alias].ops.quote_name
        link = quote("site_search_link")
        sql = (
            f"SELECT {link}.{quote(field.m2m_reverse_name())} AS {quote(field_name)}, "  # noqa: S608
            f'COUNT(*) AS "_facet_count" FROM "site_search_matches" '
            f"LEFT OUTER JOIN {quote(field.remote_field.through._meta.db_table)} AS {link} "
            f'ON {link}.{quote(field.m2m_column_name())} = "site_search_matches"."_match_pk" GROUP BY 1'
        )
        return sql, ()
    matches = RawSQL('SELECT "_match_pk" FROM "site_search_matches"', ())
    counts = (
        model._default_manager.filter(pk__in=matches).values(field_name).annotate(_facet_count=Count("pk")).order_by()
    )
    sql, params = counts.query.get_compiler(using=alias).as_sql()
    return sql, tuple(params)


def is_filter_field(model, field_name: str) -> bool:
    """Whether ``field_name`` (an attname, as ``facet()`` takes it) is one of ``model``'s
    ``index.FilterField`` search fields, read through the public ``get_filterable_search_fields``:
    only those can be faceted."""
    return any(field.get_attname(model) == field_name for field in model.get_filterable_search_fields())


def facets_sql(model, facet_fields, connection, template: str) -> tuple[str, list]:
    """The summary statement's facet columns, with their params: ``template`` (the database's
    JSON aggregate, with ``{column}`` and ``{counts}``) filled in for each of ``facet_fields``
    with ``facet_counts_sql``, one after the other."""
    sql, params = "", []
    for name in facet_fields:
        counts_sql, counts_params = facet_counts_sql(model, name, connection)
        sql += template.format(column=connection.ops.quote_name(name), counts=counts_sql)
        params.extend(counts_params)
    return sql, params


def by_pk(results) -> dict:
    """``{pk: result}`` of ``results``: model instances, or ``values()`` rows that include "pk"
    (the site search asks for card rows, ``blog.listings.card_rows``; Django's ``in_bulk`` takes
    no ``values()`` queryset)."""
    return {(result["pk"] if isinstance(result, dict) else result.pk): result for result in results}


# The attribute ``with_indexed_text`` gives each result: the text indexed for it, or None.
INDEXED_TEXT_ATTRIBUTE = "search_indexed_text"


def with_indexed_text(queryset, column: str):
    """``queryset`` with each object's indexed text (``IndexEntry.<column>``) as
    ``INDEXED_TEXT_ATTRIBUTE`` (a key of each row of a ``values()`` queryset; None for an object
    not indexed), read in the same statement as the objects through the search index's own
    relation (``index_entries``, one entry per object): the search page's excerpts then cost no
    query of their own. A statement that already joins the entries, as Wagtail's relevance order
    does, reuses its join, where a subquery per row cost a fifth more to build and compile."""
    from django.db.models import F

    return queryset.annotate(**{INDEXED_TEXT_ATTRIBUTE: F(f"index_entries__{column}")})
