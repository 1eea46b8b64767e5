"""``manage.py run_scheduler``: carry out scheduled go-lives and expiries every minute, one run at a time.

Each run does what Wagtail's ``publish_scheduled`` does, one change per transaction
(``home.operations.scheduled_publishing``): a revision that cannot be published is reported and
retried, and never holds back the others.

A run reads the due revisions, then publishes them one by one; two copies running at
once (two ``make run``s, a cron entry beside the loop, a redeploy overlapping the old process)
could both read the same revision and publish it twice. Each run here therefore holds a
database-wide lock:

- PostgreSQL: a session advisory lock (``pg_try_advisory_lock``). A run that cannot take it
  skips this minute instead of queueing behind the other.
- SQLite: the run is one ``BEGIN IMMEDIATE`` transaction (see ``config/settings/base.py``), which
  holds SQLite's single write lock; a second run waits for it (up to the 20 s busy timeout) and
  then finds nothing left to publish.

After each run it calls, once a day, the maintenance other apps registered with
``home.operations.maintenance.register_daily`` (search trims its log).
"""

import datetime
import time
from contextlib import contextmanager

from django.core.management.base import BaseCommand
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.utils import timezone

from home.caching.generation import rewrite_if_due

from ...maintenance import daily_tasks
from ...scheduled_publishing import publish_due_changes

# Any fixed 64-bit number, the same in every process of this site: "cedana" in ASCII.
ADVISORY_LOCK_KEY = 0x636564616E61


@contextmanager
def scheduler_lock(using: str = DEFAULT_DB_ALIAS):
    """Hold the site-wide scheduled-publishing lock; yields True if held, False if another run has it.

    On PostgreSQL the lock is released on exit (or when the connection closes, if the process
    dies). On other databases the body runs in one transaction and always yields True.
    """
    connection = connections[using]
    if connection.vendor != "postgresql":
        with transaction.atomic(using=using):
            yield True
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [ADVISORY_LOCK_KEY])
        acquired = cursor.fetchone()[0]
    try:
        yield acquired
    finally:
        if acquired:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [ADVISORY_LOCK_KEY])


class Command(BaseCommand):
    help = (
        "Publish due revisions and unpublish expired pages (as Wagtail's publish_scheduled, one "
        "change at a time: a failing revision is reported and retried) every "
        "--interval seconds until stopped, and run the apps' daily maintenance (the search log's "
        "trim) once a day. Safe to run twice: runs take a database lock."
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._daily_done_on: dict[str, datetime.date] = {}

    def add_arguments(self, parser):
        parser.add_argument("--interval", type=int, default=60, help="Seconds between runs (default 60).")
        parser.add_argument("--once", action="store_true", help="Run once and exit (e.g. from cron).")

    def run_once(self) -> bool:
        """One run of ``publish_due_changes`` under the lock; False if another scheduler held it."""
        with scheduler_lock() as acquired:
            if not acquired:
                self.stdout.write("Another scheduler is publishing; skipping this run.")
                return False
            run = publish_due_changes()
        # A page-cache token this process wrote while Redis did not answer: written again, now
        # that it may (home/caching/generation.py); web processes do so on their next request.
        rewrite_if_due()
        for obj in run.unpublished:
            self.stdout.write(f"Unpublished (expired): {obj}")
        for revision in run.published:
            self.stdout.write(f"Published: {revision.object_str}")
        for item, error in run.failed_expiries + run.failed_go_lives:
            self.stderr.write(f"Could not carry out the scheduled change of {item}: {error}")
        return True

    def run_daily_tasks(self) -> None:
        """Call each task other apps registered with ``home.operations.maintenance.register_daily``
        once a day (the search log's age limit: searches trim the count limit themselves, but only
        a search can, so a quiet site needs this). A task that fails is tried again next run."""
        today = timezone.now().date()
        for name, task in daily_tasks().items():
            if self._daily_done_on.get(name) == today:
                continue
            try:
                task()
                self._daily_done_on[name] = today
            except Exception as error:  # noqa: BLE001 - a failed task must not stop publishing
                self.stderr.write(f"{name} failed: {error!r}")

    def handle(self, *args, interval: int, once: bool, **options):
        if interval < 1:
            interval = 1
        while True:
            started = time.monotonic()
            try:
                self.run_once()
            except Exception as error:  # noqa: BLE001 - a failed run must not stop the loop
                self.stderr.write(f"publish_scheduled failed: {error!r}; retrying in {interval}s")
            self.run_daily_tasks()
            if once:
                return
            time.sleep(max(0.0, interval - (time.monotonic() - started)))
