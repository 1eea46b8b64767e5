"""The dashboard panel "Scheduled changes that could not be published"."""

from wagtail.admin.ui.components import Component

from .scheduled_publishing import current_failures

PANEL_LIMIT = 20


class ScheduledPublishFailuresPanel(Component):
    """Lists up to PANEL_LIMIT recorded scheduled-publish failures (title linking to the page
    editor where it is a page, go-live time, error); renders nothing when there are none, so the
    dashboard only shows it when something needs fixing."""

    name = "scheduled_publish_failures"
    order = 90  # above Wagtail's own panels: it is the one that needs action
    template_name = "operations/scheduled_publish_failures_panel.html"

    def render_html(self, parent_context=None):
        if not current_failures().exists():
            return ""
        return super().render_html(parent_context)

    def get_context_data(self, parent_context):
        rows = []
        for failure in current_failures().select_related("revision__base_content_type")[:PANEL_LIMIT]:
            revision = failure.revision
            is_page = revision.base_content_type.model == "page"
            rows.append({"failure": failure, "revision": revision, "page_id": revision.object_id if is_page else None})
        return {"rows": rows}
