"""Admin report "Unavailable links": pages whose rich text or link blocks point at a page or
document readers cannot open (deleted, unpublished, expired, private or outside every site),
so editors can fix them. Readers see such links as plain text (``home.rich_text_links``).

A Wagtail page report (``wagtail.admin.views.reports.PageReportView``) under Reports, for users
who may edit pages; the list is read from the pages' current (saved) content.
"""

from django.urls import path, reverse

from wagtail.admin.menu import MenuItem
from wagtail.admin.views.reports import PageReportView

from .rich_text_links import pages_with_unavailable_links


class UnavailableLinksReportView(PageReportView):
    """The pages the signed-in user may edit that link to something readers cannot open."""

    page_title = "Unavailable links"
    header_icon = "link"
    index_url_name = "unavailable_links_report"
    index_results_url_name = "unavailable_links_report_results"
    any_permission_required = ["add", "change", "publish"]

    def get_queryset(self):
        editable = self.permission_policy.instances_user_has_permission_for(self.request.user, "change")
        self.queryset = editable.filter(pk__in=pages_with_unavailable_links()).specific(defer=True).order_by("title")
        return super().get_queryset()


def urls() -> list:
    """The report's admin URLs (``register_admin_urls``)."""
    return [
        path("reports/unavailable-links/", UnavailableLinksReportView.as_view(), name="unavailable_links_report"),
        path(
            "reports/unavailable-links/results/",
            UnavailableLinksReportView.as_view(results_only=True),
            name="unavailable_links_report_results",
        ),
    ]


def menu_item() -> MenuItem:
    """The report's entry under Reports (``register_reports_menu_item``)."""
    return MenuItem("Unavailable links", reverse("unavailable_links_report"), icon_name="link", order=750)
