"""Dashboard panels for editors (added by the ``construct_homepage_panels`` hook in wagtail_hooks.py).

"Awaiting my review" is Wagtail's own panel (``WorkflowObjectsToModeratePanel``, "Awaiting your
review"), which is already on the dashboard; these panels sit after it. Each panel lists at most
``PANEL_LIMIT`` articles the user may edit, in two or three queries whatever the number of rows
("Returned to you", which also lists authors, a few more, still fixed).
"""

from datetime import timedelta

from django.contrib.contenttypes.models import ContentType
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.timezone import localtime

from wagtail.admin.ui.components import Component
from wagtail.models import Page, TaskState, WorkflowState

from . import editorial_status as status
from .review_messages import go_live_text, person_name

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


class ReviewPanel(Component):
    """A dashboard table of review items; subclasses set ``name``, ``heading``, ``order``,
    ``columns`` (two headings after the title), ``empty_text`` and implement ``get_rows(user)``
    returning ``[(title, edit_url, first_cell, second_cell), ...]``."""

    template_name = "blog/admin/review_panel.html"
    columns = ("", "")
    empty_text = "Nothing here."

    def get_rows(self, user):
        raise NotImplementedError

    def get_context_data(self, parent_context):
        return {
            "panel_id": self.name.replace("_", "-"),
            "heading": self.heading,
            "columns": self.columns,
            "empty_text": self.empty_text,
            "rows": self.get_rows(parent_context["request"].user),
        }


class InReviewPanel(ReviewPanel):
    """Articles waiting for a moderator: who submitted each and when it is to go live."""

    name = "in_review"
    heading = "In review"
    order = 225
    columns = ("Submitted by", "Goes live")
    empty_text = "No article is waiting for review."

    def get_rows(self, user):
        articles = list(
            status.editorial_articles(user)
            .filter(in_review=True)
            .select_related("latest_revision")
            .order_by("-latest_revision_created_at", "-pk")[:PANEL_LIMIT]
        )
        page_type = ContentType.objects.get_for_model(Page)
        states = WorkflowState.objects.filter(
            base_content_type=page_type,
            object_id__in=[str(article.pk) for article in articles],
            status=WorkflowState.STATUS_IN_PROGRESS,
        ).select_related("requested_by")
        submitters = {int(state.object_id): (state.requested_by, state.created_at) for state in states}
        rows = []
        for article in articles:
            submitter, submitted_at = submitters.get(article.pk, (None, None))
            submitted = f"{person_name(submitter)}, {date_format(localtime(submitted_at), 'Y-m-d H:i')}"
            rows.append(
                (
                    article.draft_title,
                    reverse("wagtailadmin_pages:edit", args=(article.pk,)),
                    submitted,
                    go_live_text(user, article, article.latest_revision),
                )
            )
        return rows


class ReturnedToMePanel(ReviewPanel):
    """What moderators sent back to the user, with who asked and their comment (until resubmitted)."""

    name = "returned_to_me"
    heading = "Returned to you"
    order = 222
    columns = ("Asked by", "Comment")
    empty_text = "Nothing has been returned to you."

    def get_rows(self, user):
        from .models import Author

        states = list(
            WorkflowState.objects.filter(status=WorkflowState.STATUS_NEEDS_CHANGES, requested_by=user)
            .select_related("base_content_type")
            .order_by("-created_at")[:PANEL_LIMIT]
        )
        rejections = {}
        for task_state in (
            TaskState.objects.filter(workflow_state__in=states, status=TaskState.STATUS_REJECTED)
            .select_related("finished_by")
            .order_by("finished_at")
        ):
            rejections[task_state.workflow_state_id] = task_state  # the latest wins
        ids = {Page: [], Author: []}
        for state in states:
            model = state.base_content_type.model_class()
            if model in ids:
                ids[model].append(state.object_id)
        pages = Page.objects.in_bulk(ids[Page])
        authors = Author.objects.in_bulk(ids[Author])
        rows = []
        for state in states:
            model = state.base_content_type.model_class()
            if model is Page and int(state.object_id) in pages:
                page = pages[int(state.object_id)]
                title, url = page.draft_title, reverse("wagtailadmin_pages:edit", args=(page.pk,))
            elif model is Author and int(state.object_id) in authors:
                author = authors[int(state.object_id)]
                title, url = str(author), reverse("wagtailsnippets_blog_author:edit", args=(author.pk,))
            else:
                continue
            rejection = rejections.get(state.pk)
            asked_by = person_name(rejection.finished_by) if rejection else "someone"
            rows.append((title, url, asked_by, (rejection.comment if rejection else "") or "(no comment)"))
        return rows


def editorial_panels():
    """New instances of the editorial dashboard panels, in dashboard order."""
    return [
        ReturnedToMePanel(),
        InReviewPanel(),
        MyDraftsPanel(),
        ScheduledSoonPanel(),
        RecentlyPublishedPanel(),
        StaleDraftsPanel(),
    ]
