"""``manage.py backup_site``: back up the database and media into a new folder."""

from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from home.operations.backups import BackupError, create_backup


class Command(BaseCommand):
    help = (
        "Back up the database (pg_dump, or SQLite's online backup) and the media storage (local or "
        "object storage) into a new folder, with a manifest of counts (django-dbbackup does the copying)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--output",
            type=Path,
            help="Folder to create (default: var/backups/<UTC timestamp>).",
        )

    def handle(self, *args, output: Path | None, **options):
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        destination = output or Path(settings.BASE_DIR) / "var" / "backups" / stamp
        try:
            manifest = create_backup(destination)
        except BackupError as error:
            raise CommandError(str(error)) from error
        counts = ", ".join(f"{value} {name}" for name, value in manifest["counts"].items())
        self.stdout.write(
            self.style.SUCCESS(
                f"Backup written to {destination} ({manifest['engine']}; {counts}; "
                f"{manifest['media_files']} media files)."
            )
        )
