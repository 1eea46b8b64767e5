"""Scheduled go-lives and expiries, one at a time: a revision that cannot be published never
stops the others.

This is the loop of Wagtail's ``publish_scheduled`` command (wagtail/management/commands/
publish_scheduled.py: unpublish everything live whose ``expire_at`` has passed, then publish
every revision whose ``approved_go_live_at`` has passed), with each object's change in its own
transaction (a savepoint inside the scheduler's lock on SQLite). Wagtail's command stops at the
first exception, so one article whose slug was taken meanwhile would hold back every later
go-live for good. Here a failed revision is rolled back, keeps its schedule (it is retried on
every run), is recorded as a ``ScheduledPublishFailure`` and, once, e-mailed to the moderators;
the dashboard panel and ``/readyz`` list the recorded failures.
"""

import logging
from dataclasses import dataclass, field

from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import InterfaceError, OperationalError, transaction
from django.utils import timezone

from wagtail.admin.mail import send_mail
from wagtail.models import DraftStateMixin, Page, Revision

from ..publish_checks import problems_of
from .models import ScheduledPublishFailure

logger = logging.getLogger(__name__)

# Wagtail's default group of users who approve and publish (blog.roles gives it the rights).
MODERATORS_GROUP = "Moderators"


class UnpublishableRevision(Exception):
    """A due revision that must not go live as things stand (e.g. its parent page is not live)."""


@dataclass
class ScheduleRun:
    """What one run did: lists of the objects unpublished and the revisions published, and
    ``(object or revision, error text)`` pairs for the changes that failed."""

    unpublished: list = field(default_factory=list)
    published: list = field(default_factory=list)
    failed_expiries: list = field(default_factory=list)
    failed_go_lives: list = field(default_factory=list)


def scheduled_models() -> list:
    """Page and every other model with scheduled publishing (Wagtail's DraftStateMixin)."""
    others = [m for m in apps.get_models() if issubclass(m, DraftStateMixin) and not issubclass(m, Page)]
    return [Page, *others]


def describe_error(error: Exception) -> str:
    """Editor-readable text for why a change failed: validation messages by field, else the
    exception's class and message."""
    if isinstance(error, ValidationError):
        if hasattr(error, "error_dict"):
            return "; ".join(f"{name}: {' '.join(messages)}" for name, messages in error.message_dict.items())
        return " ".join(error.messages)
    if isinstance(error, UnpublishableRevision):
        return str(error)
    return f"{error.__class__.__name__}: {error}"


def check_publishable(revision: Revision) -> None:
    """Raise UnpublishableRevision if the revision must not go live as things stand now:

    - its page sits under a page that is not live (Wagtail would mark it live, but readers could
      not reach it and it would appear nowhere);
    - its content fails the checks the editor runs before publishing (``home.publish_checks``:
      the model's validation and, for an article, the publish gates). The revision was checked
      when it was approved, but what it points to may have changed by its go-live: its only
      topic or author deleted, its card image deleted. Wagtail's ``publish_scheduled`` publishes
      it regardless (docs/upstream.md, "Wagtail: publishing without the editor validates
      nothing"); the message names each problem in the editor's words.
    """
    page = revision.content_object
    if isinstance(page, Page):
        parent = page.get_parent()
        # The tree's root (depth 1) is never served, so its own state does not matter.
        if parent is not None and parent.depth > 1 and not parent.live:
            raise UnpublishableRevision(f"Its parent page “{parent.title}” is not published.")
    problems = problems_of(revision.as_object())
    if problems:
        raise UnpublishableRevision(" ".join(problems))


def publish_due_changes(now=None) -> ScheduleRun:
    """Carry out every expiry and go-live due before ``now`` (default: the current time).

    Each change commits or rolls back alone. Losing the database connection is not a property
    of one revision: OperationalError and InterfaceError abort the run (the scheduler retries).
    """
    now = now or timezone.now()
    run = ScheduleRun()
    for model in scheduled_models():
        for obj in list(model.objects.filter(live=True, expire_at__lt=now).order_by("expire_at")):
            try:
                with transaction.atomic():
                    obj.unpublish(set_expired=True, log_action="wagtail.unpublish.scheduled")
            except (OperationalError, InterfaceError):
                raise
            except Exception as error:  # noqa: BLE001 - one object must not stop the others
                logger.exception("Scheduled expiry of %r failed", obj)
                run.failed_expiries.append((obj, describe_error(error)))
            else:
                run.unpublished.append(obj)
    due = Revision.objects.filter(approved_go_live_at__lt=now).order_by("approved_go_live_at", "pk")
    for revision in list(due):
        try:
            with transaction.atomic():
                check_publishable(revision)
                revision.publish(log_action="wagtail.publish.scheduled")
        except (OperationalError, InterfaceError):
            raise
        except Exception as error:  # noqa: BLE001 - one revision must not stop the others
            text = describe_error(error)
            logger.warning("Scheduled revision %s (%s) could not be published: %s", revision.pk, revision, text)
            record_failure(revision, text, now)
            run.failed_go_lives.append((revision, text))
        else:
            ScheduledPublishFailure.objects.filter(revision=revision).delete()
            run.published.append(revision)
    notify_moderators()
    return run


def record_failure(revision: Revision, error: str, now) -> ScheduledPublishFailure:
    """Create or update the failure row of ``revision`` (attempt count, latest error)."""
    failure, created = ScheduledPublishFailure.objects.get_or_create(
        revision=revision, defaults={"error": error, "first_failed_at": now, "last_failed_at": now}
    )
    if not created:
        failure.error = error
        failure.last_failed_at = now
        failure.attempts += 1
        failure.save(update_fields=["error", "last_failed_at", "attempts"])
    return failure


def current_failures():
    """Recorded failures whose revision is still scheduled, oldest first."""
    return ScheduledPublishFailure.objects.filter(revision__approved_go_live_at__isnull=False).select_related(
        "revision"
    )


def moderator_addresses() -> list[str]:
    """E-mail addresses of the active members of the Moderators group."""
    users = get_user_model().objects.filter(is_active=True, groups__name=MODERATORS_GROUP).exclude(email="")
    return sorted(set(users.values_list("email", flat=True)))


def notify_moderators() -> int:
    """E-mail the moderators once about every failure they have not been told of; returns how
    many failures the message covered (0 if none, or if sending failed: it is retried next run)."""
    pending = list(current_failures().filter(moderators_notified_at__isnull=True))
    recipients = moderator_addresses()
    if not pending or not recipients:
        return 0
    lines = [
        f"- {failure.revision.object_str} (scheduled for {failure.revision.approved_go_live_at:%Y-%m-%d %H:%M} UTC): "
        f"{failure.error}"
        for failure in pending
    ]
    body = (
        "These scheduled changes could not be published. They stay scheduled and are retried every "
        "minute; fix them in the editor (or reschedule them) and they go live on the next run.\n\n" + "\n".join(lines)
    )
    subject = f"{len(pending)} scheduled change(s) could not be published"
    try:
        send_mail(subject, body, recipients)
    except Exception:  # noqa: BLE001 - a mail outage must not stop publishing
        logger.exception("Could not e-mail the moderators about failed scheduled revisions")
        return 0
    notified = ScheduledPublishFailure.objects.filter(pk__in=[failure.pk for failure in pending])
    notified.update(moderators_notified_at=timezone.now())
    return len(pending)
