"""Backups restore into an empty database with the same pages, revisions, images and media.

``backup_site`` and ``restore_site`` run as an operator runs them, each in its own process
(``manage.py`` with the development settings and DATABASE_URL, MEDIA_ROOT or the bucket from the
environment): django-dbbackup's commands close the database connection when they finish, which
inside a test's transaction would end it. The backup reads the test database, whose demo content
is committed; nothing here writes rows before a backup.
"""

import io
import json
import os
import sqlite3
import subprocess
import sys
import uuid
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command
from django.db import connection

import psycopg
import pytest

from home.operations.backups import (
    FORMAT,
    MANIFEST_FILE,
    BackupError,
    content_counts,
    create_backup,
    read_manifest,
    restore_backup,
)

from . import test_media_remote_storage as remote_storage
from .test_media_remote_storage import BUCKET, bucket_keys

# The moto S3 server and the bucket-backed default storage of tests/test_media_remote_storage.py.
s3 = remote_storage.s3
remote_media = remote_storage.remote_media

pytestmark = pytest.mark.django_db

TABLES = {"pages": "wagtailcore_page", "revisions": "wagtailcore_revision", "images": "home_siteimage"}


def titles_sql():
    return "SELECT title FROM wagtailcore_page WHERE depth > 1 ORDER BY path"


def database_url(name: str | None = None) -> str:
    """DATABASE_URL of the test database, or of database ``name`` on the same server (PostgreSQL)
    or file ``name`` (SQLite)."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{name or db['NAME']}"
    password = f":{quote(db['PASSWORD'], safe='')}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{name or db['NAME']}"


def manage(tmp_path, *args, database: str, media_root, env: dict | None = None) -> subprocess.CompletedProcess:
    """``manage.py *args`` in a new process on ``database`` (a DATABASE_URL) and ``media_root``."""
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.dev",
        "DATABASE_URL": database,
        "MEDIA_ROOT": str(media_root),
        "CACHE_DIR": str(tmp_path / "cache"),
        **(env or {}),
    }
    return subprocess.run(  # noqa: S603 - our own manage.py, fixed arguments
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


@contextmanager
def empty_database(tmp_path):
    """(DATABASE_URL, ``query(sql) -> rows``) of a new empty database, dropped afterwards."""
    if connection.vendor == "sqlite":
        target = tmp_path / f"restored-{uuid.uuid4().hex[:8]}.sqlite3"

        def query(sql):
            with sqlite3.connect(target) as restored:
                return restored.execute(sql).fetchall()

        yield database_url(str(target)), query
        return
    db = connection.settings_dict
    name = f"restore_{uuid.uuid4().hex[:10]}"
    admin_dsn = f"host={db['HOST'] or '127.0.0.1'} port={db['PORT'] or 5432} user={db['USER']} dbname=postgres"
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')

    def query(sql):
        with psycopg.connect(admin_dsn.replace("dbname=postgres", f"dbname={name}")) as restored:
            return restored.execute(sql).fetchall()

    try:
        yield database_url(name), query
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def backup(tmp_path, media_root, env: dict | None = None) -> tuple[Path, dict]:
    folder = tmp_path / "backup"
    result = manage(
        tmp_path, "backup_site", "--output", str(folder), database=database_url(), media_root=media_root, env=env
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return folder, read_manifest(folder)


def restored_counts(query) -> dict:
    return {name: query(f"SELECT COUNT(*) FROM {table}")[0][0] for name, table in TABLES.items()}  # noqa: S608


def test_backup_and_restore_round_trip(tmp_path, demo, media_root):
    backup_dir, manifest = backup(tmp_path, media_root)
    assert manifest["counts"] == content_counts()
    assert manifest["counts"]["pages"] >= 25 and manifest["counts"]["images"] >= 20
    assert manifest["media_storage"] == "django.core.files.storage.FileSystemStorage"
    expected_titles = [row[0] for row in _query(connection, titles_sql())]
    restored_media = tmp_path / "restored-media"

    with empty_database(tmp_path) as (url, query):
        result = manage(tmp_path, "restore_site", str(backup_dir), database=url, media_root=restored_media)
        assert result.returncode == 0, result.stderr[-3000:]
        assert "Restored" in result.stdout
        counts = restored_counts(query)
        titles = [row[0] for row in query(titles_sql())]
        if connection.vendor == "sqlite":
            # The full-text index comes back too, so site search works on the restored copy.
            fts_sql = "SELECT COUNT(*) FROM wagtailsearch_indexentry_fts"
            assert query(fts_sql)[0][0] == _query(connection, fts_sql)[0][0] > 0

    assert counts == {key: manifest["counts"][key] for key in TABLES}
    assert titles == expected_titles
    originals = sorted(
        p.relative_to(media_root) for p in Path(media_root).rglob("*.png") if "original_images" in str(p)
    )
    restored_files = sorted(
        p.relative_to(restored_media) for p in restored_media.rglob("*.png") if "original_images" in str(p)
    )
    assert originals and restored_files == originals
    assert manifest["media_files"] == sum(1 for p in restored_media.rglob("*") if p.is_file())


@pytest.mark.xdist_group("remote-storage")
def test_media_in_object_storage_is_backed_up_and_restored(tmp_path, demo, remote_media):
    """With media in an S3 bucket, the backup holds the bucket's files (through Django's storage
    API) and a restore puts them into another, empty bucket; the database comes back as well."""
    s3 = remote_media
    names = [
        default_storage.save("original_images/backup-probe.png", ContentFile(b"\x89PNG probe", name="p.png")),
        default_storage.save("documents/backup-probe.txt", ContentFile(b"a document", name="d.txt")),
    ]
    try:
        local_media = tmp_path / "unused-local-media"  # nothing may come from or go to local disk
        backup_dir, manifest = backup(tmp_path, local_media)
        assert manifest["media_storage"] == "storages.backends.s3.S3Storage"
        assert manifest["media_files"] == len(bucket_keys(s3, "media/")) >= 2

        second_bucket = f"{BUCKET}-restored-{uuid.uuid4().hex[:6]}"
        s3.client.create_bucket(Bucket=second_bucket)
        with empty_database(tmp_path) as (url, query):
            result = manage(
                tmp_path,
                "restore_site",
                str(backup_dir),
                database=url,
                media_root=local_media,
                env={"AWS_STORAGE_BUCKET_NAME": second_bucket},
            )
            assert result.returncode == 0, result.stderr[-3000:]
            assert restored_counts(query) == {key: manifest["counts"][key] for key in TABLES}
        listing = s3.client.list_objects_v2(Bucket=second_bucket, Prefix="media/")
        restored = {item["Key"] for item in listing.get("Contents", [])}
        assert restored == bucket_keys(s3, "media/")
        assert {f"media/{name}" for name in names} <= restored
        probe = s3.client.get_object(Bucket=second_bucket, Key=f"media/{names[0]}")["Body"].read()
        assert probe == b"\x89PNG probe"
        assert not local_media.exists()
    finally:
        for name in names:
            default_storage.delete(name)


def _query(conn, sql):
    with conn.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchall()


def test_backup_refuses_an_existing_folder(tmp_path):
    with pytest.raises(BackupError, match="already exists"):
        create_backup(tmp_path)


def test_restore_refuses_a_database_in_use(tmp_path, demo):
    # A manifest this version restores, for this engine: the refusal comes before anything of the
    # backup is read (the round trip above makes a whole backup).
    backup_dir = tmp_path / "backup"
    backup_dir.mkdir()
    (backup_dir / MANIFEST_FILE).write_text(json.dumps({"format": FORMAT, "engine": connection.vendor}))
    if connection.vendor == "sqlite":
        target = tmp_path / "existing.sqlite3"
        target.write_bytes(b"not empty")
        url, message = database_url(str(target)), "exists; restore into a new file"
    else:
        url, message = database_url(), "has tables; restore into an empty database"
    result = manage(tmp_path, "restore_site", str(backup_dir), database=url, media_root=tmp_path / "media")
    assert result.returncode != 0
    assert message in result.stderr
    assert not (tmp_path / "media").exists()
    if connection.vendor == "sqlite":
        assert target.read_bytes() == b"not empty"


def test_restore_refuses_a_backup_from_the_other_engine(tmp_path):
    folder = tmp_path / "backup"
    folder.mkdir()
    other = "postgresql" if connection.vendor == "sqlite" else "sqlite"
    (folder / "manifest.json").write_text(json.dumps({"format": 2, "engine": other}))
    with pytest.raises(BackupError, match=f"This backup is from {other}"):
        restore_backup(folder)


def test_restore_refuses_a_folder_from_the_previous_backup_site(tmp_path):
    (tmp_path / "manifest.json").write_text(json.dumps({"engine": "sqlite", "media": True, "counts": {}}))
    with pytest.raises(BackupError, match="older backup_site"):
        restore_backup(tmp_path)


def test_restore_command_reports_a_missing_folder(tmp_path):
    with pytest.raises(CommandError, match="not a backup folder"):
        call_command("restore_site", str(tmp_path / "nope"), stdout=io.StringIO())
