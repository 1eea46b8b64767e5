"""``manage.py restore_site FOLDER``: restore a backup_site folder into an empty database."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from home.operations.backups import BackupError, restore_backup


class Command(BaseCommand):
    help = (
        "Restore a backup folder made by backup_site into the (empty) database DATABASE_URL names, "
        "and its media into the media storage (MEDIA_ROOT or the bucket); then check the page, "
        "revision, image and document counts and the media files against the backup's manifest."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path)

    def handle(self, *args, folder: Path, **options):
        try:
            manifest = restore_backup(folder)
        except BackupError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(
            self.style.SUCCESS(f"Restored {folder}: {manifest['counts']}, {manifest['media_files']} media files.")
        )
