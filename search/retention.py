"""Bounded retention for the search log: Wagtail's popular-query records (``Query`` with its
per-day ``QueryDailyHits``) and our ``ZeroResultQuery`` rows.

Every distinct search adds a ``Query`` row, so junk and floods of random queries would grow the
tables without end. Two limits bound them:

- Age: per-day counts older than ``WAGTAILSEARCH_HITS_MAX_AGE`` days (Wagtail's setting; 90 here)
  are dropped, then queries left with no counts (Wagtail's own garbage collection), and
  zero-result rows not seen for that long.
- Count: at most ``SEARCH_LOG_MAX_QUERIES`` queries (default 10,000). Past that, the least
  recently searched (then least searched) are deleted down to 90 % of the limit, so a flood
  trims once per thousand new queries rather than on every one.

Queries with editors' picks are never deleted (Wagtail's search promotions hang on them).
``trim_search_log()`` applies both; the site search calls ``trim_if_over_limit()`` whenever a new
query is logged, and ``manage.py trim_search_log`` and ``run_scheduler`` (once a day, registered in
``apps.py``) apply the age limit even when no one searches.
"""

import datetime
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Max, Sum
from django.utils import timezone

from wagtail.contrib.search_promotions.models import Query, QueryDailyHits

from .models import ZeroResultQuery

DEFAULT_MAX_AGE_DAYS = 90
DEFAULT_MAX_QUERIES = 10_000
# Trimming for the count limit goes down to this share of it.
TRIM_TO = 0.9
DELETE_BATCH = 500


def max_age_days() -> int:
    """Days the log keeps (``WAGTAILSEARCH_HITS_MAX_AGE``, default 90)."""
    return int(getattr(settings, "WAGTAILSEARCH_HITS_MAX_AGE", DEFAULT_MAX_AGE_DAYS))


def max_queries() -> int:
    """Most distinct queries the log keeps (``SEARCH_LOG_MAX_QUERIES``, default 10,000)."""
    return int(getattr(settings, "SEARCH_LOG_MAX_QUERIES", DEFAULT_MAX_QUERIES))


@dataclass
class Trimmed:
    """Rows deleted by one trim, per table."""

    daily_hits: int = 0
    queries: int = 0
    zero_result_queries: int = 0


def _delete_queries(pks: list[int], trimmed: Trimmed) -> None:
    for start in range(0, len(pks), DELETE_BATCH):
        _total, per_model = Query.objects.filter(pk__in=pks[start : start + DELETE_BATCH]).delete()
        trimmed.queries += per_model.get(Query._meta.label, 0)
        trimmed.daily_hits += per_model.get(QueryDailyHits._meta.label, 0)
        trimmed.zero_result_queries += per_model.get(ZeroResultQuery._meta.label, 0)


def trim_search_log(now: datetime.datetime | None = None) -> Trimmed:
    """Apply the age limit, then the count limit (see the module docstring). Returns what went."""
    now = now or timezone.now()
    trimmed = Trimmed()
    oldest_day = now.date() - datetime.timedelta(days=max_age_days())
    trimmed.daily_hits += QueryDailyHits.objects.filter(date__lt=oldest_day).delete()[0]
    trimmed.zero_result_queries += ZeroResultQuery.objects.filter(
        last_seen_at__lt=now - datetime.timedelta(days=max_age_days())
    ).delete()[0]
    # Wagtail's rule: a query with no counts left and no editors' picks goes.
    stale = Query.objects.filter(daily_hits__isnull=True, editors_picks__isnull=True)
    _delete_queries(list(stale.values_list("pk", flat=True)), trimmed)

    limit = max_queries()
    count = Query.objects.count()
    if count > limit:
        excess = count - int(limit * TRIM_TO)
        least_recent = (
            Query.objects.filter(editors_picks__isnull=True)
            .annotate(last_day=Max("daily_hits__date"), total=Sum("daily_hits__hits"))
            .order_by("last_day", "total", "pk")
            .values_list("pk", flat=True)[:excess]
        )
        _delete_queries(list(least_recent), trimmed)
    return trimmed


def trim_if_over_limit() -> Trimmed | None:
    """Trim when the log holds more than ``max_queries()`` queries (one COUNT otherwise)."""
    if Query.objects.count() > max_queries():
        return trim_search_log()
    return None
