"""What the search log keeps beyond Wagtail's own (queries that found nothing), and the SQLite
autocomplete index."""

from django.db import models
from django.db.models import F
from django.utils import timezone

from wagtail.contrib.search_promotions.models import Query
from wagtail.search.models import IndexEntry


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


class AutocompleteIndexEntry(models.Model):
    """A row of ``site_search_autocomplete_fts``, the FTS5 table autocomplete matches on SQLite.

    Wagtail's FTS5 table stems its words (``porter``, migration 0003), but FTS5 stems a prefix
    query too: "capy" became "capi" and no longer completed "capybara", "runn" missed "running".
    PostgreSQL completes with the unstemmed ``simple`` configuration; this table does the same on
    SQLite: the ``autocomplete`` text of each ``IndexEntry`` (same rowid), kept by triggers and
    tokenized with FTS5's default ``unicode61``. The table exists only on SQLite with FTS5;
    ``search.sqlite_backend`` reads it, nothing writes it but the triggers.
    """

    index_entry = models.OneToOneField(
        IndexEntry, primary_key=True, on_delete=models.DO_NOTHING, db_column="rowid", related_name="+"
    )
    autocomplete = models.TextField(null=True)

    class Meta:
        managed = False
        db_table = "site_search_autocomplete_fts"

    def __str__(self) -> str:
        return self.autocomplete or ""
