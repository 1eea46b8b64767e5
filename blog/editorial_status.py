"""Which articles an editor may work on, and where each is in its life.

The status is computed in the database so listings can filter and sort by it.

One status per article, using Wagtail's own state fields (``live``, ``expired``,
``has_unpublished_changes``, ``expire_at``), the approved schedule on a revision
(``Revision.approved_go_live_at``) and in-progress workflow states. Precedence follows
Wagtail's ``status_string``: expired, then scheduled, then in review, then the live states.
"""

from django.contrib.contenttypes.models import ContentType
from django.db.models import (
    BooleanField,
    Case,
    CharField,
    Exists,
    IntegerField,
    OuterRef,
    Q,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Cast
from django.utils import timezone

from wagtail.models import Page, Revision, WorkflowState
from wagtail.permission_policies.pages import PagePermissionPolicy

DRAFT = 0
IN_REVIEW = 1
SCHEDULED = 2
LIVE = 3
LIVE_WITH_DRAFT = 4
EXPIRED = 5

# (rank, URL value, label). The URL value is what ``?status=`` takes in the Articles listing.
STATUSES = [
    (DRAFT, "draft", "Draft"),
    (IN_REVIEW, "in-review", "In review"),
    (SCHEDULED, "scheduled", "Scheduled"),
    (LIVE, "live", "Live"),
    (LIVE_WITH_DRAFT, "live-draft", "Live with newer draft"),
    (EXPIRED, "expired", "Expired"),
]
LABELS = {rank: label for rank, _slug, label in STATUSES}
RANK_BY_SLUG = {slug: rank for rank, slug, _label in STATUSES}


def _page_object_id():
    # Revision and WorkflowState store object ids as strings (they serve any model).
    return Cast(OuterRef("pk"), output_field=CharField())


def annotate_editorial_status(queryset, now=None):
    """Annotate a page queryset with ``status_rank`` (int, one of the ranks above) and ``scheduled_at``.

    ``scheduled_at`` is the approved go-live time of the revision waiting to be published (or
    None); ``in_review`` is True while a workflow is in progress. Three subqueries, no extra
    queries per row; works the same on SQLite and PostgreSQL.
    """
    now = now or timezone.now()
    page_type = ContentType.objects.get_for_model(Page)
    scheduled = Revision.objects.filter(
        base_content_type=page_type, object_id=_page_object_id(), approved_go_live_at__isnull=False
    ).order_by("-approved_go_live_at")
    in_review = WorkflowState.objects.filter(
        base_content_type=page_type, object_id=_page_object_id(), status=WorkflowState.STATUS_IN_PROGRESS
    )
    return queryset.annotate(
        scheduled_at=Subquery(scheduled.values("approved_go_live_at")[:1]),
        in_review=Exists(in_review, output_field=BooleanField()),
    ).annotate(
        status_rank=Case(
            When(Q(live=False, expired=True) | Q(live=True, expire_at__lte=now), then=Value(EXPIRED)),
            When(scheduled_at__isnull=False, then=Value(SCHEDULED)),
            When(in_review=True, then=Value(IN_REVIEW)),
            When(live=True, has_unpublished_changes=True, then=Value(LIVE_WITH_DRAFT)),
            When(live=True, then=Value(LIVE)),
            default=Value(DRAFT),
            output_field=IntegerField(),
        )
    )


def status_label(page) -> str:
    """The label for a page annotated by ``annotate_editorial_status`` ("Draft", "In review", ...)."""
    return LABELS[page.status_rank]


def articles_for_user(user):
    """``ArticlePage`` queryset of the articles ``user`` may edit or publish (all for superusers).

    Editors with only "add" permission see the articles they own, as Wagtail's own explorer does.
    """
    from .models import ArticlePage

    pages = PagePermissionPolicy().instances_user_has_any_permission_for(user, {"change", "publish"})
    return ArticlePage.objects.filter(pk__in=pages.values("pk"))


def editorial_articles(user, now=None):
    """The articles ``user`` may work on, annotated with their status (see ``annotate_editorial_status``)."""
    return annotate_editorial_status(articles_for_user(user), now=now)
