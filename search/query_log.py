"""Counting searches in Wagtail's search-terms log with as few statements as the database allows.

Wagtail's ``Query.get(query_string).add_hit()`` takes three statements per search (find or create
the ``Query``, find or create today's ``QueryDailyHits``, add one); the search page's query
budget (issue #8: at most 10 per public page) has no room for them. An upsert does the same
work in one statement on PostgreSQL and two on SQLite, on Wagtail's own tables, so the admin's
"Search terms" report, editors' picks and ``search.retention`` read them unchanged. Other
databases take Wagtail's path.
"""

from django.db import connection
from django.utils import timezone

from wagtail.contrib.search_promotions.models import Query, QueryDailyHits
from wagtail.search.utils import normalise_query_string

# One statement: the query row is inserted or (to return its id) rewritten in place; today's hits
# row is inserted with 1 or incremented. ``xmax = 0`` holds only for a row this statement
# inserted (an updated row carries the updating transaction's id): PostgreSQL's documented
# system column, the usual way to tell an upsert's insert from its update.
# The statement's own transaction commits asynchronously (``set_config(..., true)``: this
# transaction only): the search does not wait 2-4 ms for the WAL to reach the disk. A hit count
# is statistics, the case PostgreSQL's docs give for asynchronous commit ("Asynchronous
# Commit"): the database stays consistent, and only a crash of the PostgreSQL server itself can
# lose the hits of its last ~0.6 s (3 x wal_writer_delay). The CTE is joined so it is evaluated.
_POSTGRESQL_SQL = (
    "WITH asynchronous AS (SELECT set_config('synchronous_commit', 'off', true)), "
    "logged AS ("
    "INSERT INTO {queries} (query_string) VALUES (%s) "
    "ON CONFLICT (query_string) DO UPDATE SET query_string = EXCLUDED.query_string "
    "RETURNING id, (xmax = 0) AS created"
    "), counted AS ("
    "INSERT INTO {hits} (query_id, date, hits) SELECT id, %s, 1 FROM logged "
    "ON CONFLICT (query_id, date) DO UPDATE SET hits = {hits}.hits + 1"
    ") SELECT id, created FROM logged, asynchronous"
)
# SQLite has no data-modifying CTEs: insert the query if it is new (rowcount says whether), then
# count the hit ("WHERE" is required before an upsert's ON CONFLICT in INSERT ... SELECT).
_SQLITE_NEW_QUERY_SQL = "INSERT INTO {queries} (query_string) VALUES (%s) ON CONFLICT (query_string) DO NOTHING"
_SQLITE_HIT_SQL = (
    "INSERT INTO {hits} (query_id, date, hits) SELECT id, %s, 1 FROM {queries} WHERE query_string = %s "
    "ON CONFLICT (query_id, date) DO UPDATE SET hits = hits + 1 RETURNING query_id"
)


def record_search(query_string: str) -> tuple[Query, bool]:
    """Count one search for ``query_string`` (normalised as Wagtail does) today (UTC date, as
    ``Query.add_hit``). Returns the ``Query`` (only ``pk`` and ``query_string`` loaded) and
    whether it was created by this call."""
    normalised = normalise_query_string(query_string)
    today = timezone.now().date()
    tables = {
        "queries": connection.ops.quote_name(Query._meta.db_table),
        "hits": connection.ops.quote_name(QueryDailyHits._meta.db_table),
    }
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_POSTGRESQL_SQL.format(**tables), [normalised, today])
            query_id, created = cursor.fetchone()
    elif connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute(_SQLITE_NEW_QUERY_SQL.format(**tables), [normalised])
            created = cursor.rowcount == 1
            cursor.execute(_SQLITE_HIT_SQL.format(**tables), [today, normalised])
            (query_id,) = cursor.fetchone()
    else:
        logged, created = Query.objects.get_or_create(query_string=normalised)
        logged.add_hit(date=today)
        return logged, created
    return Query(pk=query_id, query_string=normalised), created
