"""Site backups: the database plus media, in one folder with a manifest of what it holds.

A backup folder contains ``db.dump`` (PostgreSQL, ``pg_dump --format=custom``) or
``db.sql`` (SQLite, an SQL dump read inside one transaction, so it is consistent),
``media.tar.gz`` (MEDIA_ROOT, when media is stored locally) and ``manifest.json`` (when, which
engine, and the page, revision, image and document counts used to check a restore).

We write this ourselves because the maintained tools each cover half (django-dbbackup has no
release for Django 5.2 here; pg_dump knows nothing of media); the heavy lifting stays with
pg_dump/pg_restore and SQLite's own dump (``iterdump``). SQLite's online backup API is not
used: it retries forever while another connection holds a lock (shared-cache databases).
"""

import json
import os
import sqlite3
import subprocess
import tarfile
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction

from wagtail.documents import get_document_model
from wagtail.images import get_image_model
from wagtail.models import Page, Revision


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


def _pg_env_and_args() -> tuple[dict, list[str]]:
    db = connection.settings_dict
    env = {**os.environ}
    if db.get("PASSWORD"):
        env["PGPASSWORD"] = db["PASSWORD"]
    args = ["--dbname", db["NAME"]]
    if db.get("HOST"):
        args += ["--host", db["HOST"]]
    if db.get("PORT"):
        args += ["--port", str(db["PORT"])]
    if db.get("USER"):
        args += ["--username", db["USER"]]
    return env, args


def _run(command: list[str], env: dict | None = None) -> None:
    try:
        subprocess.run(command, env=env, check=True, capture_output=True, text=True)  # noqa: S603 - fixed argv
    except FileNotFoundError as error:
        raise BackupError(f"{command[0]} is not installed (PostgreSQL client tools are needed).") from error
    except subprocess.CalledProcessError as error:
        raise BackupError(f"{command[0]} failed: {error.stderr.strip()[:500]}") from error


def _media_root() -> Path | None:
    """MEDIA_ROOT when uploads are stored on local disk, else None (object storage)."""
    backend = settings.STORAGES["default"]["BACKEND"]
    if backend != "django.core.files.storage.FileSystemStorage":
        return None
    return Path(settings.MEDIA_ROOT)


# FTS5 keeps a virtual table's data in shadow tables named after it; iterdump writes those in an
# order SQLite cannot load back. The dump instead recreates each virtual table and inserts its
# rows through it, so FTS5 rebuilds its own shadow tables.
_FTS_SHADOW_SUFFIXES = ("_data", "_idx", "_content", "_docsize", "_config")


def _dump_sqlite(raw_connection, out) -> None:
    """Write an SQL dump of ``raw_connection`` to ``out``, leaving out full-text search tables."""
    virtual = raw_connection.execute(
        "SELECT name, sql FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%'"
    ).fetchall()
    skipped = [name + suffix for name, _sql in virtual for suffix in ("", *_FTS_SHADOW_SUFFIXES)]
    for statement in raw_connection.iterdump():
        if "sqlite_master" in statement or "writable_schema" in statement:
            continue
        if any(f'"{name}"' in statement or f"'{name}'" in statement for name in skipped):
            continue
        out.write(f"{statement}\n")
    for name, sql in virtual:
        out.write(f"{sql};\n")
        columns = [row[1] for row in raw_connection.execute(f'PRAGMA table_info("{name}")')]
        values = " || ',' || ".join(f'quote("{column}")' for column in ["rowid", *columns])
        column_list = ",".join(["rowid", *(f'"{column}"' for column in columns)])
        rows = raw_connection.execute(
            f"SELECT 'INSERT INTO \"{name}\"({column_list}) VALUES(' || {values} || ');' FROM \"{name}\""  # noqa: S608
        )
        for (statement,) in rows:
            out.write(f"{statement}\n")


def create_backup(destination: Path) -> dict:
    """Write a backup into the new folder ``destination``; return its manifest.

    Raises BackupError if ``destination`` exists or a tool fails.
    """
    engine = _engine()
    destination = Path(destination)
    if destination.exists():
        raise BackupError(f"{destination} already exists; choose a new folder.")
    destination.mkdir(parents=True)
    if engine == "postgresql":
        env, args = _pg_env_and_args()
        _run(["pg_dump", "--format=custom", "--no-owner", "--file", str(destination / "db.dump"), *args], env)
    else:
        # One transaction (BEGIN IMMEDIATE here) holds writers off while the dump reads every table.
        with transaction.atomic(), (destination / "db.sql").open("w", encoding="utf-8") as dump:
            connection.ensure_connection()
            _dump_sqlite(connection.connection, dump)
    media = _media_root()
    if media is not None and media.exists():
        with tarfile.open(destination / "media.tar.gz", "w:gz") as archive:
            archive.add(media, arcname="media")
    manifest = {
        "created_at": datetime.now(UTC).isoformat(),
        "engine": engine,
        "media": media is not None,
        "counts": content_counts(),
    }
    (destination / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return manifest


def restore_backup(source: Path, *, database: dict | None = None, media_root: Path | None = None) -> dict:
    """Restore the backup folder ``source`` into an empty database; return its manifest.

    ``database`` defaults to the ``default`` connection's settings; ``media_root`` to
    MEDIA_ROOT. The target database must hold no tables (PostgreSQL) or not exist yet
    (SQLite), so a restore never mixes with live data. Raises BackupError otherwise.
    """
    source = Path(source)
    try:
        manifest = json.loads((source / "manifest.json").read_text())
    except (OSError, ValueError) as error:
        raise BackupError(f"{source} is not a backup folder: {error}") from error
    database = database or connection.settings_dict
    if manifest["engine"] == "postgresql":
        if "postgresql" not in database["ENGINE"]:
            raise BackupError("This backup is from PostgreSQL; point DATABASE_URL at an empty PostgreSQL database.")
        env = {**os.environ, **({"PGPASSWORD": database["PASSWORD"]} if database.get("PASSWORD") else {})}
        target = ["--dbname", database["NAME"]]
        for option, key in (("--host", "HOST"), ("--port", "PORT"), ("--username", "USER")):
            if database.get(key):
                target += [option, str(database[key])]
        _run(["pg_restore", "--no-owner", "--exit-on-error", *target, str(source / "db.dump")], env)
    else:
        if "sqlite3" not in database["ENGINE"]:
            raise BackupError("This backup is from SQLite; point DATABASE_URL at a new SQLite file.")
        target_file = Path(database["NAME"])
        if target_file.exists() and target_file.stat().st_size > 0:
            raise BackupError(f"{target_file} exists; restore into a new file (or move it away first).")
        target_file.parent.mkdir(parents=True, exist_ok=True)
        restored = sqlite3.connect(target_file)
        try:
            restored.executescript((source / "db.sql").read_text(encoding="utf-8"))
        finally:
            restored.close()
    archive_path = source / "media.tar.gz"
    if archive_path.exists():
        media_root = Path(media_root or settings.MEDIA_ROOT)
        media_root.mkdir(parents=True, exist_ok=True)
        with tarfile.open(archive_path, "r:gz") as archive:
            members = [m for m in archive.getmembers() if m.name.startswith("media/")]
            for member in members:
                member.name = member.name.removeprefix("media/")
            # The "data" filter refuses absolute paths, links out of the folder and devices.
            archive.extractall(media_root, members=[m for m in members if m.name], filter="data")
    return manifest
