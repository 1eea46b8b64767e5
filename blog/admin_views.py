"""The editorial calendar: a month of published, scheduled, in-review and draft articles, linking
into the editor, with a "New article" link per coming day and a form to move a schedule."""

import calendar
import re
from datetime import date, datetime, time

from django.contrib import messages
from django.db.models import Q
from django.db.models.functions import Coalesce
from django.http import HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST
from django.views.generic import TemplateView

from wagtail.admin.views.generic.base import WagtailAdminTemplateMixin
from wagtail.permission_policies.pages import PagePermissionPolicy

from . import editorial_status as status
from .calendar_scheduling import MoveForm, MoveRefused, move_schedule

# The entry kinds, in the order a day lists them at the same time; the slug names the CSS class.
KINDS = {"Published": "published", "Scheduled": "scheduled", "In review": "in-review", "Draft": "draft"}

_MONTH = re.compile(r"([0-9]{4})-(0[1-9]|1[0-2])", re.ASCII)
# Months outside this range are refused: they are typos, and the far ends of datetime's range
# overflow when converted between time zones.
MIN_YEAR, MAX_YEAR = 1970, 2999


def parse_month(raw: str | None) -> date | None:
    """``"YYYY-MM"`` -> the first day of that month; None for anything else (or a year out of range)."""
    match = _MONTH.fullmatch(raw or "")
    if not match:
        return None
    year, month = int(match.group(1)), int(match.group(2))
    if not MIN_YEAR <= year <= MAX_YEAR:
        return None
    return date(year, month, 1)


def shift_month(first: date, months: int) -> date | None:
    """The first day of the month ``months`` away from ``first``, or None outside MIN_YEAR..MAX_YEAR."""
    index = first.year * 12 + first.month - 1 + months
    year, month = divmod(index, 12)
    if not MIN_YEAR <= year <= MAX_YEAR:
        return None
    return date(year, month + 1, 1)


class EditorialCalendarView(WagtailAdminTemplateMixin, TemplateView):
    """``/admin/calendar/?month=YYYY-MM``: a month grid (Monday first) of the articles the user may edit.

    Each day lists articles first published that day ("Published"), articles whose approved
    revision goes live that day ("Scheduled"), and unpublished work: drafts ("Draft") and
    articles in a workflow ("In review") on their planned go-live day, or the day of their
    latest revision when they have none; all in the current time zone. A missing ``month`` means
    this month; a malformed or out-of-range one falls back to this month with a warning.
    """

    template_name = "blog/admin/calendar.html"
    page_title = "Editorial calendar"
    header_icon = "date"

    def get_breadcrumbs_items(self):
        return [*super().get_breadcrumbs_items(), {"url": "", "label": self.page_title}]

    def get_month(self) -> date:
        today = timezone.localdate()
        raw = self.request.GET.get("month")
        if raw is None:
            return today.replace(day=1)
        month = parse_month(raw)
        if month is None:
            messages.warning(
                self.request,
                f"Choose a month as YYYY-MM from {MIN_YEAR}-01 to {MAX_YEAR}-12 (for example 2026-11); "
                "showing this month instead.",
            )
            return today.replace(day=1)
        return month

    def get_entries(self, first: date, last: date):
        """``{date: [entry, ...]}`` for the month; entry = ``{"article", "kind", "at", "status"}``."""
        tz = timezone.get_current_timezone()
        start = timezone.make_aware(datetime.combine(first, time.min), tz)
        end = timezone.make_aware(datetime.combine(last, time.max), tz)
        unpublished = Q(status_rank__in=(status.DRAFT, status.IN_REVIEW))
        articles = (
            status.editorial_articles(self.request.user)
            .annotate(planned_at=Coalesce("go_live_at", "latest_revision_created_at"))
            .filter(
                Q(date_published__range=(start, end))
                | Q(scheduled_at__range=(start, end))
                | (unpublished & Q(planned_at__range=(start, end)))
            )
        )
        publishable = set(
            PagePermissionPolicy()
            .instances_user_has_permission_for(self.request.user, "publish")
            .values_list("pk", flat=True)
        )
        entries = {}
        for article in articles:
            label = status.status_label(article)
            unpublished_kind = {status.DRAFT: "Draft", status.IN_REVIEW: "In review"}.get(article.status_rank)
            # A draft's publication date is only a plan: "Published" needs a first publication.
            published = article.date_published if article.first_published_at else None
            moments = [("Published", published), ("Scheduled", article.scheduled_at)]
            if unpublished_kind:
                moments.append((unpublished_kind, article.planned_at))
            for kind, moment in moments:
                if moment is not None and start <= moment <= end:
                    local = timezone.localtime(moment, tz)
                    entries.setdefault(local.date(), []).append(
                        {
                            "article": article,
                            "kind": kind,
                            "css": KINDS[kind],
                            "at": local,
                            "status": label,
                            "movable": kind == "Scheduled" and article.pk in publishable,
                        }
                    )
        for day_entries in entries.values():
            day_entries.sort(key=lambda entry: (entry["at"], entry["article"].pk))
        return entries

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        first = self.get_month()
        weeks = calendar.Calendar(firstweekday=calendar.MONDAY).monthdatescalendar(first.year, first.month)
        last = first.replace(day=calendar.monthrange(first.year, first.month)[1])
        entries = self.get_entries(first, last)
        previous_month, next_month = shift_month(first, -1), shift_month(first, 1)
        today = timezone.localdate()
        context.update(
            {
                "month": first,
                "today": today,
                "new_article_url": new_article_url(self.request.user),
                "time_zone": timezone.get_current_timezone_name(),
                "weekdays": [calendar.day_abbr[(calendar.MONDAY + i) % 7] for i in range(7)],
                "weeks": [
                    [
                        {
                            "date": day,
                            "in_month": day.month == first.month,
                            "upcoming": day >= today,
                            "entries": entries.get(day, []),
                        }
                        for day in week
                    ]
                    for week in weeks
                ],
                "entry_count": sum(len(day_entries) for day_entries in entries.values()),
                "previous_month": previous_month.strftime("%Y-%m") if previous_month else None,
                "next_month": next_month.strftime("%Y-%m") if next_month else None,
            }
        )
        return context


def new_article_url(user) -> str | None:
    """Wagtail's add-page URL for an article under the blog index, or None if ``user`` may not add one.

    The calendar appends ``?go_live_at=YYYY-MM-DD`` (see ``blog.calendar_scheduling``).
    """
    from .models import ArticlePage, BlogIndexPage

    blog = BlogIndexPage.objects.first()
    if blog is None or not blog.permissions_for_user(user).can_add_subpage():
        return None
    meta = ArticlePage._meta
    return reverse("wagtailadmin_pages:add", args=(meta.app_label, meta.model_name, blog.pk))


@require_POST
def move_scheduled(request):
    """``POST /admin/calendar/move/``: move a scheduled article to another day (``page``, ``day``, ``month``).

    A non-numeric ``page`` is a 400 and an unknown article a 404. A user who may not publish it
    gets Wagtail's answer to ``PermissionDenied`` in the admin (``require_admin_access``): back to
    the dashboard with its permission message (a 403 with ``X-Requested-With: XMLHttpRequest``).
    A malformed day, or a move ``move_schedule`` refuses, returns to the calendar with the reason
    as an error message and changes nothing. ``month`` (YYYY-MM) is the month to return to.
    """
    from .models import ArticlePage

    form = MoveForm(request.POST)
    if form.has_error("page"):
        return HttpResponseBadRequest("The article to move is missing or not a number.")
    back = reverse("editorial_calendar")
    month = parse_month(request.POST.get("month"))
    if month:
        back += f"?month={month:%Y-%m}"
    if not form.is_valid():
        messages.error(request, "Choose the new day as a date (YYYY-MM-DD).")
        return redirect(back)
    page = get_object_or_404(ArticlePage, pk=form.cleaned_data["page"])
    try:
        revision = move_schedule(page, form.cleaned_data["day"], request.user)
    except MoveRefused as refusal:
        messages.error(request, refusal.message)
        return redirect(back)
    moved_to = timezone.localtime(revision.approved_go_live_at)
    messages.success(request, f"“{page.draft_title}” now goes live on {moved_to:%Y-%m-%d at %H:%M}.")
    return redirect(f"{reverse('editorial_calendar')}?month={moved_to:%Y-%m}")
