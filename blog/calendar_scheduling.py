"""What the editorial calendar changes: a new article's go-live from a day, and moving a schedule.

- ``?go_live_at=YYYY-MM-DD`` on Wagtail's own add-page view pre-fills the new article's go-live
  time (09:00 that day in the editor's time zone, Wagtail's admin zone) when the editor's form
  will accept it: still ahead, and a time every zone can show (``home.page_forms.is_showable``);
  otherwise the field stays empty and a warning says why (``go_live_for_day``). Wagtail's create
  view offers no initial values from the query string, so ``before_create_page`` (which sees the
  request) parses the day and Wagtail's documented ``init_new_page`` signal (which sees the new
  page, not the request) sets it; a context variable carries the value between the two, set and
  consumed in one request.
- ``move_schedule`` moves an article's approved, scheduled revision to another day: it saves a
  new revision with the new go-live time and publishes it through Wagtail's
  ``Revision.publish`` (``PublishRevisionAction``: the publish permission check, scheduling,
  unscheduling the old revision and the "scheduled" history entry), after the same checks the
  editor applies on publish (``ArticlePage.publish_problems``: the publish gates and the model's
  own validation).
"""

from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date, datetime, time

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from wagtail.locks import ScheduledForPublishLock
from wagtail.signals import init_new_page

from home.page_forms import LATEST_SHOWABLE, UNSHOWABLE_TIME, is_showable

from .admin_listing_query import shown

# The time of day a new article from the calendar goes live, in the site's time zone.
NEW_ARTICLE_TIME = time(9, 0)

_pending_go_live: ContextVar[datetime | None] = ContextVar("calendar_pending_go_live", default=None)


def day_start(day: date, at: time = NEW_ARTICLE_TIME) -> datetime:
    """The aware datetime of ``day`` at ``at`` in the current (site) time zone."""
    return timezone.make_aware(datetime.combine(day, at), timezone.get_current_timezone())


class DayForm(forms.Form):
    """``go_live_at=YYYY-MM-DD`` on the add-page URL."""

    go_live_at = forms.DateField(input_formats=["%Y-%m-%d"])


def go_live_for_day(raw: str) -> tuple[datetime | None, str | None]:
    """The go-live time to pre-fill for ``raw`` (``?go_live_at=``), or None and why not.

    ``NEW_ARTICLE_TIME`` that day in the current (editor's) time zone, if the editor's form will
    accept it: a time some zone cannot show is refused there (``home.page_forms``), and a time
    already past publishes the article as soon as it is approved, which the form refuses too
    (``SitePageForm``, "Go-live is in the past"). So a past day, or today once 09:00 has gone,
    leaves the field empty, as when the editor starts an article from the page tree: the editor
    knows best what later time they mean, and guessing one (the next hour?) would schedule the
    article for a time nobody chose.
    """
    form = DayForm({"go_live_at": raw})
    if not form.is_valid():
        if not raw.strip():
            return None, "the link gave no date. Choose a day in the calendar."
        return None, f"“{shown(raw)}” is not a date written YYYY-MM-DD (for example 2031-03-14)."
    day = form.cleaned_data["go_live_at"]
    go_live_at = day_start(day)
    if day < timezone.localdate():
        return None, f"{day.isoformat()} has passed. Choose today or a later day."
    if not is_showable(go_live_at):
        return None, f"{day.isoformat()} is too far ahead. {UNSHOWABLE_TIME}"
    if go_live_at <= timezone.now():
        return None, (
            f"{NEW_ARTICLE_TIME:%H:%M} today has passed. Set a later time in the Settings tab, "
            "or leave it empty to publish the article as soon as it is approved."
        )
    return go_live_at, None


def prefill_go_live(request, parent_page, page_class):
    """``before_create_page`` hook: remember the go-live time asked for by ``?go_live_at=``.

    Only for GET requests of page types with a ``go_live_at`` field; a day ``go_live_for_day``
    gives no time for is ignored with a warning, and the editor gets an empty go-live field as usual.
    """
    _pending_go_live.set(None)
    if request.method != "GET" or "go_live_at" not in request.GET:
        return None
    go_live_at, problem = go_live_for_day(request.GET["go_live_at"])
    if problem:
        messages.warning(request, f"The go-live date was not filled in: {problem}")
        return None
    _pending_go_live.set(go_live_at)
    return None


def apply_pending_go_live(sender, page, parent, **kwargs):
    """``init_new_page`` receiver: give the new page the go-live time ``prefill_go_live`` parsed."""
    go_live_at = _pending_go_live.get()
    _pending_go_live.set(None)
    if go_live_at is not None:
        page.go_live_at = go_live_at


init_new_page.connect(apply_pending_go_live, dispatch_uid="blog_calendar_go_live")


class MoveForm(forms.Form):
    """The calendar's move form: ``page`` (an article id) and ``day`` (YYYY-MM-DD)."""

    page = forms.IntegerField(min_value=1, max_value=2**31 - 1)
    day = forms.DateField(input_formats=["%Y-%m-%d"])


@dataclass
class MoveRefused(Exception):
    """Why a schedule could not be moved, in words for the moderator."""

    message: str


def move_schedule(page, day: date, user):
    """Move ``page``'s scheduled revision to ``day``, keeping its time of day; returns the new revision.

    ``page`` is the specific page, ``day`` a date in the site's time zone, ``user`` the moderator.
    Raises ``PermissionDenied`` unless the user may publish the page, and ``MoveRefused`` when
    the page has no schedule, has a newer draft or a lock, the new time is not in the future or
    not before the page's expiry, or the publish checks fail (``ArticlePage.publish_problems``).
    """
    if not page.permissions_for_user(user).can_publish():
        raise PermissionDenied
    scheduled = page.revisions.filter(approved_go_live_at__isnull=False).order_by("-approved_go_live_at").first()
    if scheduled is None:
        raise MoveRefused(f"“{page.draft_title}” is not scheduled, so there is nothing to move.")
    if page.latest_revision_id != scheduled.pk:
        # Saving the scheduled content as the newest revision would bury the newer draft.
        raise MoveRefused(
            f"“{page.draft_title}” has a newer draft than its schedule: open it in the editor to schedule that draft."
        )
    lock = page.get_lock()
    # The schedule's own lock (Wagtail locks scheduled pages) is what a move replaces; an
    # editor's lock or a workflow's still stops it.
    if lock and not isinstance(lock, ScheduledForPublishLock) and lock.for_user(user):
        raise MoveRefused(f"“{page.draft_title}” is locked: {lock.get_message(user)}")
    current = timezone.localtime(scheduled.approved_go_live_at)
    go_live_at = day_start(day, current.time())
    if go_live_at <= timezone.now():
        raise MoveRefused("Choose a day in the future: a schedule in the past would publish at once.")
    if go_live_at >= LATEST_SHOWABLE:
        raise MoveRefused(
            "Choose an earlier day: a time at the end of the calendar cannot be shown in every time zone."
        )
    draft = scheduled.as_object()
    if draft.expire_at and draft.expire_at <= go_live_at:
        raise MoveRefused(
            f"“{page.draft_title}” expires on {timezone.localtime(draft.expire_at):%Y-%m-%d %H:%M}: "
            "choose an earlier day or change its expiry in the editor."
        )
    problems = draft.publish_problems()
    if problems:
        raise MoveRefused(" ".join(problems))
    draft.go_live_at = go_live_at
    try:
        revision = draft.save_revision(user=user, log_action=True)
    except ValidationError as error:
        raise MoveRefused(" ".join(error.messages)) from error
    revision.publish(user=user)
    return revision
