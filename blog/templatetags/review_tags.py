"""``{% review_summary %}`` for the workflow e-mails (templates/wagtailadmin/notifications/):
the article or author, what was done and by whom, the comment, the go-live time and absolute
links, for the page and snippet cases alike."""

from django import template

from wagtail.admin.admin_url_finder import AdminURLFinder
from wagtail.admin.utils import get_admin_base_url
from wagtail.models import Page, TaskState, WorkflowState

from blog.review_messages import go_live_text, person_name

register = template.Library()


@register.simple_tag
def review_summary(instance, recipient) -> dict:
    """What the e-mail to ``recipient`` about ``instance`` (a page or snippet in a workflow) says.

    ``{"title", "kind", "requested_by", "acted_by", "comment", "go_live", "edit_url",
    "view_url"}``: ``acted_by``/``comment`` come from the last finished task (empty before any),
    ``go_live`` is in the recipient's time zone (``go_live_text``), URLs are absolute (the admin's
    ``WAGTAILADMIN_BASE_URL``; ``view_url`` is the live page's URL, or "").
    """
    if isinstance(instance, Page):
        instance = instance.specific
    workflow_state = WorkflowState.objects.for_instance(instance).order_by("-created_at").first()
    finished = (
        TaskState.objects.filter(workflow_state=workflow_state, finished_at__isnull=False)
        .select_related("finished_by")
        .order_by("-finished_at")
        .first()
        if workflow_state
        else None
    )
    current = workflow_state.current_task_state if workflow_state else None
    revision = current.revision if current else None
    edit_url = AdminURLFinder(recipient).get_edit_url(instance) or ""
    view_url = ""
    if isinstance(instance, Page) and instance.live:
        view_url = instance.get_full_url() or ""
    return {
        "title": instance.get_admin_display_title() if isinstance(instance, Page) else str(instance),
        "kind": instance._meta.verbose_name,
        "requested_by": person_name(workflow_state.requested_by) if workflow_state else "",
        "acted_by": person_name(finished.finished_by) if finished else "",
        "comment": (finished.comment if finished else "").strip(),
        "go_live": go_live_text(recipient, instance, revision),
        "edit_url": get_admin_base_url() + edit_url if edit_url else "",
        "view_url": view_url,
    }
