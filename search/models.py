"""What the search log keeps beyond Wagtail's own: queries that found nothing."""

from django.db import models
from django.db.models import F
from django.utils import timezone

from wagtail.contrib.search_promotions.models import Query


class ZeroResultQuery(models.Model):
    """A query (Wagtail's ``Query``, already normalised) that found no article or topic.

    ``hits`` counts the searches that found nothing; ``last_seen_at`` is the latest of them.
    The row stays when later searches for the query find something: editors see it was a gap.
    Listed in the admin under Reports → Searches with no results.
    """

    query = models.OneToOneField(Query, on_delete=models.CASCADE, related_name="zero_result")
    hits = models.PositiveIntegerField(default=0)
    first_seen_at = models.DateTimeField(default=timezone.now)
    last_seen_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        verbose_name = "search with no results"
        verbose_name_plural = "searches with no results"

    def __str__(self) -> str:
        return self.query.query_string

    @classmethod
    def record(cls, query: Query) -> None:
        """Count one more fruitless search for ``query`` (one UPDATE, or an INSERT the first time)."""
        now = timezone.now()
        row, _created = cls.objects.get_or_create(query=query)
        cls.objects.filter(pk=row.pk).update(hits=F("hits") + 1, last_seen_at=now)
