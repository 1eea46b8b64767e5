"""The editorial calendar: a month of scheduled and published articles, linking into the editor."""

import calendar
import re
from datetime import date, datetime, time

from django.contrib import messages
from django.db.models import Q
from django.utils import timezone
from django.views.generic import TemplateView

from wagtail.admin.views.generic.base import WagtailAdminTemplateMixin

from . import editorial_status as status

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

    Each day lists articles first published that day ("Published") and articles whose approved
    revision goes live that day ("Scheduled"), in the current time zone. A missing ``month`` means
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
                self.request, "Choose a month as YYYY-MM (for example 2026-11); showing this month instead."
            )
            return today.replace(day=1)
        return month

    def get_entries(self, first: date, last: date):
        """``{date: [entry, ...]}`` for the month; entry = ``{"article", "kind", "at", "status"}``."""
        tz = timezone.get_current_timezone()
        start = timezone.make_aware(datetime.combine(first, time.min), tz)
        end = timezone.make_aware(datetime.combine(last, time.max), tz)
        articles = status.editorial_articles(self.request.user).filter(
            Q(date_published__range=(start, end)) | Q(scheduled_at__range=(start, end))
        )
        entries = {}
        for article in articles:
            label = status.status_label(article)
            for kind, moment in (("Published", article.date_published), ("Scheduled", article.scheduled_at)):
                if moment is not None and start <= moment <= end:
                    local = timezone.localtime(moment, tz)
                    entries.setdefault(local.date(), []).append(
                        {"article": article, "kind": kind, "at": local, "status": label}
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
        context.update(
            {
                "month": first,
                "today": timezone.localdate(),
                "time_zone": timezone.get_current_timezone_name(),
                "weekdays": [calendar.day_abbr[(calendar.MONDAY + i) % 7] for i in range(7)],
                "weeks": [
                    [
                        {"date": day, "in_month": day.month == first.month, "entries": entries.get(day, [])}
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
