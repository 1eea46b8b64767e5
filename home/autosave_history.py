"""Autosave without flooding History: consecutive autosaves by one person become one revision.

Wagtail 8's autosave already overwrites its own revision while the editor stays on the page
(the browser sends ``overwrite_revision_id`` after the first autosave). Each reload of the
editor starts afresh, though, so an editor who reopens an article every few minutes leaves a
revision per visit. Wagtail has no setting for this (only ``WAGTAIL_AUTOSAVE_INTERVAL``), so
the ``before_edit_page`` hook ``collapse_autosave`` asks Wagtail's own overwrite path to reuse
the latest revision when that revision is the same person's, at most ``COLLAPSE_WINDOW`` old and
nothing else depends on it. Wagtail then performs the overwrite with its own checks (latest
revision, same user) and groups the History entries.
"""

from datetime import timedelta

from django.utils import timezone

from wagtail.models import TaskState

# How close together two autosaves must be to share one revision.
COLLAPSE_WINDOW = timedelta(minutes=5)


def is_autosave(request) -> bool:
    """Wagtail's autosave posts the edit form asking for JSON (``EditView.expects_json_response``)."""
    return request.method == "POST" and not request.accepts("text/html")


def reusable_revision(page, request, now=None):
    """The latest revision of ``page`` an autosave from ``request`` may overwrite, or None.

    It must be the request user's, created within ``COLLAPSE_WINDOW``, the one the editor loaded
    (``loaded_revision_id`` and ``loaded_revision_created_at`` match, so Wagtail's conflict check
    stays in charge), and not a revision anything points at: not live, not scheduled, not
    submitted to a workflow task (its review history would change under the moderator).
    """
    now = now or timezone.now()
    revision = page.latest_revision
    if revision is None or revision.user_id != request.user.pk:
        return None
    if now - revision.created_at > COLLAPSE_WINDOW:
        return None
    if request.POST.get("loaded_revision_id") != str(revision.pk):
        return None
    if request.POST.get("loaded_revision_created_at") != revision.created_at.isoformat():
        return None
    if revision.pk == page.live_revision_id or revision.approved_go_live_at is not None:
        return None
    if TaskState.objects.filter(revision=revision).exists():
        return None
    return revision


def collapse_autosave(request, page):
    """``before_edit_page`` hook: let a first autosave of a visit overwrite the person's recent revision.

    Only autosaves (JSON posts) without an ``overwrite_revision_id`` of their own are touched;
    the id of ``reusable_revision`` is added to a copy of ``request.POST``. Returns None.
    """
    if not is_autosave(request) or request.POST.get("overwrite_revision_id"):
        return None
    revision = reusable_revision(page, request)
    if revision is not None:
        data = request.POST.copy()
        data["overwrite_revision_id"] = str(revision.pk)
        request.POST = data
    return None
