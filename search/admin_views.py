"""Admin report of searches that found nothing (Reports → Searches with no results)."""

from wagtail.admin.auth import permission_denied
from wagtail.admin.ui.tables import Column, DateColumn, NumberColumn
from wagtail.admin.views.reports import ReportView

from .models import ZeroResultQuery


class ZeroResultQueriesReportView(ReportView):
    """Queries readers searched for that found no article or topic, most frequent first.

    Superusers only, like Wagtail's own "Search terms" report (popular queries) beside it.
    """

    page_title = "Searches with no results"
    header_icon = "search"
    is_searchable = True
    search_fields = ["query__query_string"]
    default_ordering = "-hits"
    index_url_name = "site_search_reports:zero_results"
    index_results_url_name = "site_search_reports:zero_results_results"
    columns = [
        Column("query", label="Search term(s)", accessor="query.query_string", sort_key="query__query_string"),
        NumberColumn("hits", label="Searches with no results", sort_key="hits"),
        DateColumn("last_seen_at", label="Last searched", sort_key="last_seen_at"),
    ]
    list_export = ["query", "hits", "first_seen_at", "last_seen_at"]
    export_headings = {
        "query": "Search term(s)",
        "hits": "Searches with no results",
        "first_seen_at": "First searched",
        "last_seen_at": "Last searched",
    }

    def get_base_queryset(self):
        return ZeroResultQuery.objects.select_related("query")

    def dispatch(self, request, *args, **kwargs):
        if not request.user.is_superuser:
            return permission_denied(request)
        return super().dispatch(request, *args, **kwargs)
