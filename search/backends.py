"""Wagtail's database search backend, with the page title weighted on SQLite too.

Use as ``WAGTAILSEARCH_BACKENDS["default"]["BACKEND"] = "search.backends"``. On MySQL, or SQLite
without FTS5, this is exactly Wagtail's ``wagtail.search.backends.database``; on PostgreSQL it is
Wagtail's, with NUL bytes taken out of query strings (PostgreSQL text cannot hold them: a
``DataError``, so a 500 for ``?q=%00`` in any admin search box or ``?search=%00`` in the API).
On SQLite with FTS5, Wagtail ranks with ``bm25()`` over the whole row, so the ``boost`` of the
title field has no effect and an article mentioning a word three times in its body outranks
one with the word in its title. Here ``bm25()`` gets per-column weights instead, and any user
text becomes a valid FTS5 query (``search.sqlite_backend.SafeQueryMixin``). Switching to
Elasticsearch/OpenSearch stays a settings change.
"""

from wagtail.search.backends.database import SearchBackend as DatabaseSearchBackend


def SearchBackend(params):  # noqa: N802 - the name Wagtail looks up in a backend module
    """Wagtail's database backend for the default database; on SQLite FTS5, title-weighted."""
    backend = DatabaseSearchBackend(params)
    if type(backend).__name__ == "SQLiteSearchBackend":
        from .sqlite_backend import TitleWeightedSQLiteSearchBackend

        return TitleWeightedSQLiteSearchBackend(params)
    if type(backend).__name__ == "PostgresSearchBackend":
        from wagtail.search.backends.database.postgres.postgres import PostgresSearchBackend

        class NulFreePostgresSearchBackend(PostgresSearchBackend):
            def _search(self, query_compiler_class, query, model_or_queryset, **kwargs):
                if isinstance(query, str):  # "" after this is Wagtail's empty result
                    query = query.replace("\x00", " ").strip()
                return super()._search(query_compiler_class, query, model_or_queryset, **kwargs)

        return NulFreePostgresSearchBackend(params)
    return backend
