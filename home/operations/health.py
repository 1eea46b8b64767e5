"""Health probes for load balancers and orchestrators: ``/healthz`` and ``/readyz``.

Both answer JSON, are never cached, and need no login. ``/readyz`` fails (503) when this app
server cannot do its job: the database or cache is unreachable, or scheduled publishing has
fallen behind (a due go-live or expiry more than ``SCHEDULE_GRACE`` old means no scheduler
is running). Scheduled revisions that the scheduler tried and could not publish are listed
under ``scheduled_failures`` without failing readiness: the scheduler is running, and taking
this server out of the load balancer would not help an editor fix a taken slug.
"""

from datetime import timedelta

from django.core.cache import cache
from django.db import DatabaseError, connection
from django.http import JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from wagtail.models import Page, Revision

from .scheduled_publishing import current_failures

# The scheduler runs every minute; five minutes allows for a slow run and a restart.
SCHEDULE_GRACE = timedelta(minutes=5)


@never_cache
@csrf_exempt  # read-only: another method gets its 405, not a CSRF 403
@require_safe
def healthz(request):
    """Liveness: the process answers. ``{"status": "ok"}`` with 200, touching nothing else."""
    return JsonResponse({"status": "ok"})


def overdue_schedule_count(now=None) -> int:
    """Scheduled go-lives and expiries due more than SCHEDULE_GRACE ago and not yet carried out,
    leaving out go-lives the scheduler tried and recorded as failed (``scheduled_failures``)."""
    cutoff = (now or timezone.now()) - SCHEDULE_GRACE
    go_lives = (
        Revision.page_revisions.filter(approved_go_live_at__lt=cutoff)
        .filter(scheduled_publish_failure__isnull=True)
        .count()
    )
    expiries = Page.objects.filter(live=True, expire_at__lt=cutoff).count()
    return go_lives + expiries


@never_cache
@csrf_exempt  # read-only: another method gets its 405, not a CSRF 403
@require_safe
def readyz(request):
    """Readiness: ``{"status": "ok"|"fail", "checks": {name: "ok" | error text},
    "scheduled_failures": [{"revision": id, "object": title, "scheduled_for": ISO time,
    "error": text, "attempts": n}]}``; 200 or 503 (failures alone never make it 503)."""
    checks = {}
    failures = []
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        checks["database"] = "ok"
    except DatabaseError as error:
        checks["database"] = f"unreachable: {error.__class__.__name__}"
    try:
        cache.set("readyz-probe", "1", 10)
        checks["cache"] = "ok" if cache.get("readyz-probe") == "1" else "not storing values"
    except Exception as error:  # noqa: BLE001 - any cache client error means "not ready"
        checks["cache"] = f"unreachable: {error.__class__.__name__}"
    if checks["database"] == "ok":
        overdue = overdue_schedule_count()
        checks["scheduler"] = "ok" if overdue == 0 else f"{overdue} scheduled change(s) overdue by more than 5 minutes"
        failures = [
            {
                "revision": failure.revision_id,
                "object": failure.revision.object_str,
                "scheduled_for": failure.revision.approved_go_live_at.isoformat(),
                "error": failure.error,
                "attempts": failure.attempts,
            }
            for failure in current_failures()
        ]
    else:
        checks["scheduler"] = "unknown (no database)"
    ready = all(value == "ok" for value in checks.values())
    body = {"status": "ok" if ready else "fail", "checks": checks, "scheduled_failures": failures}
    return JsonResponse(body, status=200 if ready else 503)
