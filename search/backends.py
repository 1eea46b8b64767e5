"""Wagtail's database search backend, with the page title weighted on SQLite too.

Use as ``WAGTAILSEARCH_BACKENDS["default"]["BACKEND"] = "search.backends"``. On PostgreSQL
(and MySQL, or SQLite without FTS5) this is exactly Wagtail's ``wagtail.search.backends.database``.
On SQLite with FTS5, Wagtail ranks with ``bm25()`` over the whole row, so the ``boost`` of the
title field has no effect and an article mentioning a word three times in its body outranks
one with the word in its title. Here ``bm25()`` gets per-column weights instead. Switching to
Elasticsearch/OpenSearch stays a settings change.
"""

from wagtail.search.backends.database import SearchBackend as DatabaseSearchBackend


def SearchBackend(params):  # noqa: N802 - the name Wagtail looks up in a backend module
    """Wagtail's database backend for the default database; on SQLite FTS5, title-weighted."""
    backend = DatabaseSearchBackend(params)
    if type(backend).__name__ == "SQLiteSearchBackend":
        from .sqlite_backend import TitleWeightedSQLiteSearchBackend

        return TitleWeightedSQLiteSearchBackend(params)
    return backend
