"""Backups restore into an empty database with the same pages, revisions, images and media."""

import io
import sqlite3
import uuid
from pathlib import Path

from django.core.management import CommandError, call_command
from django.db import connection

import psycopg
import pytest

from home.operations.backups import BackupError, content_counts, create_backup, restore_backup

pytestmark = pytest.mark.django_db

TABLES = {"pages": "wagtailcore_page", "revisions": "wagtailcore_revision", "images": "home_siteimage"}


def titles_sql():
    return "SELECT title FROM wagtailcore_page WHERE depth > 1 ORDER BY path"


def test_backup_and_restore_round_trip(tmp_path, demo, media_root):
    backup_dir = tmp_path / "backup"
    manifest = create_backup(backup_dir)
    assert manifest["counts"] == content_counts()
    assert manifest["counts"]["pages"] >= 25 and manifest["counts"]["images"] >= 20
    expected_titles = [row[0] for row in _query(connection, titles_sql())]
    restored_media = tmp_path / "restored-media"

    if connection.vendor == "sqlite":
        target = tmp_path / "restored.sqlite3"
        restore_backup(
            backup_dir,
            database={"ENGINE": "django.db.backends.sqlite3", "NAME": str(target)},
            media_root=restored_media,
        )
        with sqlite3.connect(target) as restored:
            counts = {
                name: restored.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]  # noqa: S608
                for name, table in TABLES.items()
            }
            titles = [row[0] for row in restored.execute(titles_sql())]
            # The full-text index comes back too, so site search works on the restored copy.
            fts_sql = "SELECT COUNT(*) FROM wagtailsearch_indexentry_fts"
            assert restored.execute(fts_sql).fetchone()[0] == _query(connection, fts_sql)[0][0] > 0
    else:
        db = connection.settings_dict
        name = f"restore_{uuid.uuid4().hex[:10]}"
        admin_dsn = f"host={db['HOST']} port={db['PORT'] or 5432} user={db['USER']} dbname=postgres"
        with psycopg.connect(admin_dsn, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        try:
            restore_backup(backup_dir, database={**db, "NAME": name}, media_root=restored_media)
            with psycopg.connect(admin_dsn.replace("dbname=postgres", f"dbname={name}")) as restored:
                counts = {
                    name_: restored.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]  # noqa: S608
                    for name_, table in TABLES.items()
                }
                titles = [row[0] for row in restored.execute(titles_sql())]
        finally:
            with psycopg.connect(admin_dsn, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    assert counts == {key: manifest["counts"][key] for key in TABLES}
    assert titles == expected_titles
    originals = sorted(
        p.relative_to(media_root) for p in Path(media_root).rglob("*.png") if "original_images" in str(p)
    )
    restored_files = sorted(
        p.relative_to(restored_media) for p in restored_media.rglob("*.png") if "original_images" in str(p)
    )
    assert originals and restored_files == originals


def _query(conn, sql):
    with conn.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchall()


def test_backup_refuses_an_existing_folder(tmp_path):
    with pytest.raises(BackupError, match="already exists"):
        create_backup(tmp_path)


def test_restore_refuses_a_non_empty_sqlite_target(tmp_path, demo):
    backup_dir = tmp_path / "backup"
    create_backup(backup_dir)
    if connection.vendor != "sqlite":
        pytest.skip("SQLite target check")
    target = tmp_path / "existing.sqlite3"
    target.write_bytes(b"not empty")
    with pytest.raises(BackupError, match="exists"):
        restore_backup(backup_dir, database={"ENGINE": "django.db.backends.sqlite3", "NAME": str(target)})


def test_restore_command_reports_a_missing_folder(tmp_path):
    with pytest.raises(CommandError, match="not a backup folder"):
        call_command("restore_site", str(tmp_path / "nope"), stdout=io.StringIO())
