"""A go-live time in the past, refused where it would publish a page at once.

Wagtail reads a go-live time that has passed as "publish now": an editor who submitted an
article with go-live 2020-01-01 10:00 saw "submitted for moderation", and the moderator's
approval published it at once, though the editor had asked for a schedule. The calendar's Move
already refuses a day in the past for that reason ("a schedule in the past would publish at
once", ``blog.calendar_scheduling``), and its "+ New article" link never fills one in. The page
editor's form (``home.page_forms.SitePageForm``) now refuses one too, with the advice
``PAST_GO_LIVE`` on the go-live field, on every action that can publish or schedule: publish,
submit for review, a workflow action, restarting a workflow (Wagtail validates those fully).

A draft ("Save draft", autosave) may still be saved with a past go-live, as drafts may be
incomplete (the publish gates, ``blog.forms``): saving one publishes nothing, and submitting it
later is refused until the time is changed or cleared.

Two past go-live times are kept when left as they were (the field unchanged, to the minute):

- one the page has already gone live by: once a scheduled page is published, Wagtail leaves its
  go-live time in place, so every later edit of that page would otherwise be refused. It counts
  as done when the page was published at or after that time (as ``SitePageForm`` clears an
  expiry that has done its work);
- one that passed while the page waited for review, on a moderator's workflow action in the
  editor (Approve): the editor asked for a time then ahead, and a late approval publishes at
  once, as the editor guide promises and as approving from the dashboard (no form) does.
"""

from django.utils import timezone

from wagtail.models import Page

PAST_GO_LIVE = "Go-live is in the past: leave it empty to publish now, or choose a future time."


def past_go_live_problem(form) -> str | None:
    """``PAST_GO_LIVE`` if ``form`` (a page editor's form, cleaned) would publish, submit or
    schedule the page with a go-live time that has passed and is not one of the two the module
    keeps, else None."""
    go_live_at = form.cleaned_data.get("go_live_at")
    if go_live_at is None or go_live_at > timezone.now() or form.is_deferred_validation:
        return None
    if "go_live_at" in form.errors:
        return None
    if _left_as_it_was(form, go_live_at) and (_is_workflow_action(form.data) or _gone_live_by(form, go_live_at)):
        return None
    return PAST_GO_LIVE


# The buttons Wagtail's edit view acts on before a workflow action, in its order
# (``EditView.action_name_and_method``, Wagtail 8.0): a post naming one of them is that action,
# whatever else it names.
ACTIONS_BEFORE_A_WORKFLOW_ACTION = ("action-publish", "action-submit", "action-restart-workflow")


def _is_workflow_action(data) -> bool:
    """Whether the post is a moderator's workflow action (Approve...) as Wagtail reads it: the
    edit view names the button pressed as ``action-<name>`` and takes the first one it finds set,
    so a submit that also names ``action-workflow-action`` is still a submit."""
    return bool(data.get("action-workflow-action")) and not any(
        data.get(name) for name in ACTIONS_BEFORE_A_WORKFLOW_ACTION
    )


def _minute(value):
    return value.replace(second=0, microsecond=0)


def _left_as_it_was(form, go_live_at) -> bool:
    """Whether ``go_live_at`` is the page's go-live as the editor found it, to the minute (as the field shows it)."""
    initial = form.get_initial_for_field(form.fields["go_live_at"], "go_live_at")
    return initial is not None and form.instance.pk is not None and _minute(initial) == _minute(go_live_at)


def _gone_live_by(form, go_live_at) -> bool:
    """Whether the page was last published at or after ``go_live_at``."""
    last_published_at = Page.objects.filter(pk=form.instance.pk).values_list("last_published_at", flat=True).first()
    return last_published_at is not None and go_live_at <= last_published_at
