"""``manage.py run_scheduler``: run Wagtail's ``publish_scheduled`` every minute, in one process."""

import time

from django.core.management import call_command
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = (
        "Publish due revisions and unpublish expired pages (Wagtail's publish_scheduled) every "
        "--interval seconds until stopped. Run exactly one per site, or use a cron entry instead."
    )

    def add_arguments(self, parser):
        parser.add_argument("--interval", type=int, default=60, help="Seconds between runs (default 60).")
        parser.add_argument("--once", action="store_true", help="Run once and exit.")

    def handle(self, *args, interval: int, once: bool, **options):
        if interval < 1:
            interval = 1
        while True:
            started = time.monotonic()
            try:
                call_command("publish_scheduled", stdout=self.stdout, stderr=self.stderr)
            except Exception as error:  # noqa: BLE001 - a failed run must not stop the loop
                self.stderr.write(f"publish_scheduled failed: {error!r}; retrying in {interval}s")
            if once:
                return
            time.sleep(max(0.0, interval - (time.monotonic() - started)))
