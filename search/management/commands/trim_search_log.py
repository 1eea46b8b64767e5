"""``manage.py trim_search_log``: apply the search log's retention limits (``search.retention``)."""

from django.core.management.base import BaseCommand

from search.retention import max_age_days, max_queries, trim_search_log


class Command(BaseCommand):
    help = (
        "Delete search-log records past their age or count limit: per-day query counts older than "
        "WAGTAILSEARCH_HITS_MAX_AGE days, queries left without counts or editors' picks, zero-result "
        "records not seen for as long, and the least recently searched queries beyond "
        "SEARCH_LOG_MAX_QUERIES."
    )

    def handle(self, *args, **options):
        trimmed = trim_search_log()
        self.stdout.write(
            f"Search log trimmed (keeping {max_age_days()} days, at most {max_queries()} queries): "
            f"{trimmed.queries} queries, {trimmed.daily_hits} daily counts, "
            f"{trimmed.zero_result_queries} zero-result records deleted."
        )
