"""Site backups: the database and the media, in one folder with a manifest of what it holds.

The copying is django-dbbackup's: its ``dbbackup``/``dbrestore`` commands dump and restore the
database (PostgreSQL: ``pg_dump --format=custom`` and ``pg_restore``; SQLite: SQLite's online
backup, a consistent copy of the file with its full-text index), and ``mediabackup``/
``mediarestore`` copy the media through Django's storage API, so uploads kept in object storage
(S3, ``config.settings.base.media_storage``) are backed up and restored like local ones.

Ours is what those commands leave open: one folder per backup, and a manifest
(``manifest.json``: when, which engine, the page, revision, image and document counts and the
number of media files) that a restore is checked against, into an empty database only.

A backup folder holds ``database.dump`` (with django-dbbackup's ``database.dump.metadata``: the
engine and the connector that wrote it), ``media.tar.gz`` and ``manifest.json``.
"""

import io
import json
import tarfile
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command
from django.db import connection

from wagtail.documents import get_document_model
from wagtail.images import get_image_model
from wagtail.models import Page, Revision

from dbbackup.db.exceptions import CommandConnectorError

DATABASE_FILE = "database.dump"
MEDIA_FILE = "media.tar.gz"
MANIFEST_FILE = "manifest.json"
# The layout above; backups written before django-dbbackup (db.sql or db.dump with a media
# folder archive) have no "format" in their manifest.
FORMAT = 2


class BackupError(Exception):
    """A backup or restore could not be made; the message says why."""


def content_counts() -> dict[str, int]:
    """``{"pages", "revisions", "images", "documents"}`` counts of the current database."""
    return {
        "pages": Page.objects.count(),
        "revisions": Revision.objects.count(),
        "images": get_image_model().objects.count(),
        "documents": get_document_model().objects.count(),
    }


def _engine() -> str:
    vendor = connection.vendor
    if vendor not in {"postgresql", "sqlite"}:
        raise BackupError(f"Backups support PostgreSQL and SQLite, not {vendor}.")
    return vendor


def _run(command: str, **options) -> None:
    """Run one of django-dbbackup's commands quietly; its failures become BackupError."""
    try:
        call_command(command, interactive=False, quiet=True, stdout=io.StringIO(), **options)
    except (CommandError, CommandConnectorError, OSError, tarfile.TarError) as error:
        raise BackupError(f"{command} failed: {str(error).strip()[:500]}") from error


def _media_names(archive: Path) -> list[str]:
    """The storage names of the files in a ``mediabackup`` archive."""
    with tarfile.open(archive, "r:gz") as tar:
        return [member.name for member in tar.getmembers() if member.isfile()]


def create_backup(destination: Path) -> dict:
    """Write a backup of the database and the media storage into the new folder
    ``destination``; return its manifest (``created_at``, ``engine``, ``media_storage``,
    ``counts``, ``media_files``).

    Raises BackupError if ``destination`` exists or a dump fails.
    """
    engine = _engine()
    destination = Path(destination)
    if destination.exists():
        raise BackupError(f"{destination} already exists; choose a new folder.")
    destination.mkdir(parents=True)
    counts = content_counts()
    _run("dbbackup", output_path=str(destination / DATABASE_FILE))
    _run("mediabackup", output_path=str(destination / MEDIA_FILE), compress=True)
    manifest = {
        "format": FORMAT,
        "created_at": datetime.now(UTC).isoformat(),
        "engine": engine,
        "media_storage": settings.STORAGES["default"]["BACKEND"],
        "counts": counts,
        "media_files": len(_media_names(destination / MEDIA_FILE)),
    }
    (destination / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2))
    return manifest


def read_manifest(source: Path) -> dict:
    """The manifest of the backup folder ``source``; BackupError if it is not one this version
    restores."""
    source = Path(source)
    try:
        manifest = json.loads((source / MANIFEST_FILE).read_text())
    except (OSError, ValueError) as error:
        raise BackupError(f"{source} is not a backup folder: {error}") from error
    if manifest.get("format") != FORMAT:
        raise BackupError(
            f"{source} was written by an older backup_site (before django-dbbackup); "
            "restore it with that version of the site."
        )
    return manifest


def _refuse_a_database_in_use(engine: str) -> None:
    database = connection.settings_dict
    if engine == "sqlite":
        target = Path(database["NAME"])
        if target.exists() and target.stat().st_size > 0:
            raise BackupError(f"{target} exists; restore into a new file (or move it away first).")
        target.parent.mkdir(parents=True, exist_ok=True)
    elif connection.introspection.table_names():
        raise BackupError(f"The database {database['NAME']} has tables; restore into an empty database.")


def restore_backup(source: Path) -> dict:
    """Restore the backup folder ``source`` into the ``default`` database, which must be empty
    (PostgreSQL: no tables; SQLite: a file that does not exist yet), and its media into the
    default storage (MEDIA_ROOT or the bucket); then check that the restored page, revision,
    image and document counts and media files are the backup's. Return its manifest.

    Raises BackupError for a folder that is not a backup, an engine other than the backup's,
    a database in use, a failed restore or counts that differ.
    """
    source = Path(source)
    manifest = read_manifest(source)
    engine = _engine()
    if manifest["engine"] != engine:
        raise BackupError(
            f"This backup is from {manifest['engine']}; point DATABASE_URL at an empty {manifest['engine']} database."
        )
    _refuse_a_database_in_use(engine)
    _run("dbrestore", input_path=str(source / DATABASE_FILE))
    _run("mediarestore", input_path=str(source / MEDIA_FILE), uncompress=True)
    restored = content_counts()
    if restored != manifest["counts"]:
        raise BackupError(f"Restored counts {restored} differ from the backup's {manifest['counts']}.")
    names = _media_names(source / MEDIA_FILE)
    missing = [name for name in names if not default_storage.exists(name)]
    if missing or len(names) != manifest["media_files"]:
        raise BackupError(
            f"{len(names) - len(missing)} of the backup's {manifest['media_files']} media files were restored"
            + (f" (missing: {', '.join(missing[:5])})." if missing else ".")
        )
    return manifest
