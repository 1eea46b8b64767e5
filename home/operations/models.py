"""What the scheduler could not do: scheduled revisions that failed to publish."""

from django.db import models

from wagtail.models import Revision


class ScheduledPublishFailure(models.Model):
    """A scheduled revision whose go-live time has passed but which could not be published.

    The revision keeps its ``approved_go_live_at`` (it stays scheduled and is retried on every
    scheduler run); this row says why it failed, since when, and whether the moderators were told.
    It is deleted when the revision is published, and ignored once the revision is no longer
    scheduled (an editor published, rescheduled or cancelled it).
    """

    revision = models.OneToOneField(Revision, on_delete=models.CASCADE, related_name="scheduled_publish_failure")
    error = models.TextField(help_text="Why publishing failed, as editors are shown it.")
    first_failed_at = models.DateTimeField()
    last_failed_at = models.DateTimeField()
    attempts = models.PositiveIntegerField(default=1)
    moderators_notified_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["first_failed_at", "pk"]

    def __str__(self) -> str:
        return f"{self.revision.object_str}: {self.error}"
