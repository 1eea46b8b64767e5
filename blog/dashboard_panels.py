"""Dashboard panels for editors (added by the ``construct_homepage_panels`` hook in wagtail_hooks.py).

"Awaiting my review" is Wagtail's own panel (``WorkflowObjectsToModeratePanel``, "Awaiting your
review"), which is already on the dashboard; these panels sit after it. Each panel lists at most
``PANEL_LIMIT`` articles the user may edit, in two or three queries whatever the number of rows.
"""

from datetime import timedelta

from django.db.models import Q
from django.utils import timezone

from wagtail.admin.ui.components import Component

from . import editorial_status as status

PANEL_LIMIT = 10
SCHEDULE_WINDOW = timedelta(days=14)
STALE_AFTER = timedelta(days=30)


class ArticlePanel(Component):
    """A dashboard table of articles: title (linking to the editor), status and one date column.

    Subclasses set ``name``, ``heading``, ``order``, ``date_heading``, ``empty_text`` and implement
    ``get_articles(queryset, user, now)`` returning ``[(article, date), ...]``.
    """

    template_name = "blog/admin/dashboard_panel.html"
    date_heading = "Date"
    empty_text = "Nothing here."

    def get_articles(self, queryset, user, now):
        raise NotImplementedError

    def get_context_data(self, parent_context):
        request = parent_context["request"]
        now = timezone.now()
        queryset = status.editorial_articles(request.user, now=now)
        rows = [
            (article, date, status.status_label(article))
            for article, date in self.get_articles(queryset, request.user, now)
        ]
        return {
            "panel_id": self.name.replace("_", "-"),
            "heading": self.heading,
            "date_heading": self.date_heading,
            "empty_text": self.empty_text,
            "rows": rows,
        }


class MyDraftsPanel(ArticlePanel):
    name = "my_drafts"
    heading = "My drafts"
    order = 230
    date_heading = "Last edited"
    empty_text = "You have no unpublished changes."

    def get_articles(self, queryset, user, now):
        drafts = (
            queryset.filter(Q(owner=user) | Q(latest_revision__user=user))
            .filter(status_rank__in=[status.DRAFT, status.LIVE_WITH_DRAFT])
            .order_by("-latest_revision_created_at", "-pk")[:PANEL_LIMIT]
        )
        return [(article, article.latest_revision_created_at) for article in drafts]


class ScheduledSoonPanel(ArticlePanel):
    name = "scheduled_soon"
    heading = "Scheduled in the next 14 days"
    order = 235
    date_heading = "Goes live"
    empty_text = "Nothing is scheduled for the next 14 days."

    def get_articles(self, queryset, user, now):
        scheduled = queryset.filter(
            status_rank=status.SCHEDULED, scheduled_at__gte=now, scheduled_at__lte=now + SCHEDULE_WINDOW
        ).order_by("scheduled_at", "pk")[:PANEL_LIMIT]
        return [(article, article.scheduled_at) for article in scheduled]


class RecentlyPublishedPanel(ArticlePanel):
    name = "recently_published"
    heading = "Recently published"
    order = 240
    date_heading = "Published"
    empty_text = "No articles are live yet."

    def get_articles(self, queryset, user, now):
        published = queryset.filter(live=True, last_published_at__isnull=False).order_by("-last_published_at", "-pk")
        return [(article, article.last_published_at) for article in published[:PANEL_LIMIT]]


class StaleDraftsPanel(ArticlePanel):
    name = "stale_drafts"
    heading = "Stale drafts (untouched for 30 days)"
    order = 245
    date_heading = "Last edited"
    empty_text = "No draft has been left untouched for 30 days."

    def get_articles(self, queryset, user, now):
        stale = queryset.filter(
            status_rank__in=[status.DRAFT, status.LIVE_WITH_DRAFT], latest_revision_created_at__lte=now - STALE_AFTER
        ).order_by("latest_revision_created_at", "pk")[:PANEL_LIMIT]
        return [(article, article.latest_revision_created_at) for article in stale]


def editorial_panels():
    """New instances of the editorial dashboard panels, in dashboard order."""
    return [MyDraftsPanel(), ScheduledSoonPanel(), RecentlyPublishedPanel(), StaleDraftsPanel()]
