"""Telling people what happened in review (issue 16).

- ``ReviewOutcomeMiddleware``: after a moderator's **Approve** or **Request changes** (the
  workflow action view for pages and snippets, or the page editor's approve), a message says
  what happened: "Approved: goes live at <time in their zone>", "Approved and published" or
  "Returned to <editor> with your comment". Wagtail's workflow action view adds no message and
  has no hook after the action, so the middleware reads the task state the action finished.
- ``changes_requested``: the request for changes that an article or author is waiting on (until
  its editor submits again); the editor's banner and the dashboard's "Returned to you" show it.
"""

import zoneinfo

from django.contrib import messages
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from wagtail.models import Page, TaskState, WorkflowState
from wagtail.users.models import UserProfile


def person_name(user) -> str:
    """A user's full name, else their username; "someone" for a deleted user."""
    if user is None:
        return "someone"
    return user.get_full_name() or user.get_username()


def local_time(user, moment) -> str:
    """``moment`` in ``user``'s admin time zone (their profile's, else TIME_ZONE), e.g.
    "2026-12-02 09:30 CET"."""
    zone = zoneinfo.ZoneInfo(UserProfile.get_for_user(user).get_current_time_zone())
    return timezone.localtime(moment, zone).strftime("%Y-%m-%d %H:%M %Z")


def go_live_text(user, instance, revision=None) -> str:
    """When ``instance`` (a page or snippet) goes live, for ``user``: "<time in their zone>" for
    an approved schedule or a submitted ``revision``'s go-live time in the future, else
    "as soon as it is approved" (not yet approved) or "now" (live with nothing pending)."""
    now = timezone.now()
    scheduled = getattr(instance, "scheduled_revision", None)
    if scheduled is not None and scheduled.approved_go_live_at and scheduled.approved_go_live_at > now:
        return local_time(user, scheduled.approved_go_live_at)
    revision = revision or instance.get_latest_revision()
    go_live_at = parse_datetime((revision.content.get("go_live_at") if revision else None) or "")
    if go_live_at is not None and go_live_at > now:
        return local_time(user, go_live_at)
    if getattr(instance, "live", False) and not getattr(instance, "has_unpublished_changes", False):
        return "now"
    return "as soon as it is approved"


def outcome_message(task_state_id: int, user) -> str:
    """What ``user``'s action on the task state did, in one sentence ("" if they did not finish it)."""
    task_state = (
        TaskState.objects.select_related("workflow_state__requested_by", "finished_by")
        .filter(pk=task_state_id, finished_by=user)
        .first()
    )
    if task_state is None:
        return ""
    workflow_state = task_state.workflow_state
    title = str(workflow_state.content_object)
    if task_state.status == TaskState.STATUS_REJECTED:
        editor = person_name(workflow_state.requested_by)
        if task_state.comment:
            return f"Returned to {editor} with your comment: “{title}” is back in their drafts."
        return f"Returned to {editor} without a comment: “{title}” is back in their drafts."
    if task_state.status != TaskState.STATUS_APPROVED:
        return ""
    if workflow_state.status != WorkflowState.STATUS_APPROVED:
        return f"Approved: “{title}” moves on to the next review step."
    instance = workflow_state.content_object
    if isinstance(instance, Page):
        instance = instance.specific
    scheduled = getattr(instance, "scheduled_revision", None)
    if scheduled is not None and scheduled.approved_go_live_at and scheduled.approved_go_live_at > timezone.now():
        return f"Approved: “{title}” goes live at {local_time(user, scheduled.approved_go_live_at)}."
    return f"Approved and published: “{title}” is live."


def acted_on_task_state(request, view_kwargs) -> int | None:
    """The id of the task state a POST is about to approve or reject, or None."""
    match = request.resolver_match
    if request.method != "POST" or match is None:
        return None
    if match.url_name == "workflow_action" and view_kwargs.get("action_name") in ("approve", "reject"):
        return view_kwargs.get("task_state_id")
    if match.view_name == "wagtailadmin_pages:edit" and "action-workflow-action" in request.POST:
        page = Page.objects.filter(pk=view_kwargs.get("page_id")).first()
        task_state = page.current_workflow_task_state if page else None
        return task_state.pk if task_state else None
    return None


class ReviewOutcomeMiddleware:
    """Adds ``outcome_message`` to the moderator's messages after a workflow action (see the module
    docstring). Place after MessageMiddleware."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        task_state_id = getattr(request, "review_task_state_id", None)
        if task_state_id is not None and response.status_code < 400:
            message = outcome_message(task_state_id, request.user)
            if message:
                messages.success(request, message)
        return response

    def process_view(self, request, view_func, view_args, view_kwargs):
        request.review_task_state_id = acted_on_task_state(request, view_kwargs)


def changes_requested(instance):
    """The rejected task state ``instance`` (a page or snippet) waits on, or None.

    Set while its workflow needs changes, i.e. until the editor submits it again; the task
    state carries the moderator (``finished_by``) and their ``comment``.
    """
    workflow_state = WorkflowState.objects.for_instance(instance).order_by("-created_at").first()
    if workflow_state is None or workflow_state.status != WorkflowState.STATUS_NEEDS_CHANGES:
        return None
    return (
        TaskState.objects.filter(workflow_state=workflow_state, status=TaskState.STATUS_REJECTED)
        .select_related("finished_by")
        .order_by("-finished_at")
        .first()
    )


def changes_requested_text(task_state) -> str:
    """The banner text for a request for changes: who asked, and their comment."""
    who = person_name(task_state.finished_by)
    comment = task_state.comment.strip()
    said = f" with this comment: “{comment}”" if comment else " (no comment)"
    return f"Changes requested by {who}{said}. Make the changes, then submit for review again."


def show_changes_requested(request, instance):
    """``before_edit_page``/``before_edit_snippet`` hook: the editor opening ``instance`` sees the
    request for changes as a warning banner at the top of the editor."""
    if request.method != "GET":
        return None
    task_state = changes_requested(instance)
    if task_state is not None:
        messages.warning(request, changes_requested_text(task_state))
    return None
