"""Admin: the "Searches with no results" report, next to Wagtail's "Search terms" report."""

from django.urls import include, path, reverse

from wagtail import hooks
from wagtail.admin.menu import AdminOnlyMenuItem

from .admin_views import ZeroResultQueriesReportView

report_urls = (
    [
        path("", ZeroResultQueriesReportView.as_view(), name="zero_results"),
        path("results/", ZeroResultQueriesReportView.as_view(results_only=True), name="zero_results_results"),
    ],
    "site_search_reports",
)


@hooks.register("register_admin_urls")
def register_admin_urls():
    return [path("reports/searches-with-no-results/", include(report_urls))]


@hooks.register("register_reports_menu_item")
def register_zero_results_menu_item():
    return AdminOnlyMenuItem(
        "Searches with no results",
        reverse("site_search_reports:zero_results"),
        name="searches-with-no-results",
        icon_name="search",
        order=1310,
    )
