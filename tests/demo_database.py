"""The database the suite starts from: migrated, with the demo content and every rendition the
reader pages ask for, built once per version of the code and reused by later sessions.

Why our own: pytest-django's ``--reuse-db`` keeps a database whatever changed since, and
builds it again only when asked, which is how stale test data goes unnoticed; here the copy is
keyed by what made it. Loading the demo (98 articles) and making its ~1,000 renditions takes
minutes; without the renditions every test that shows a listing made a dozen cards' AVIF, WebP
and PNG files again (about 10 s), because its rollback forgot the rows of the last test's.

``prepare(media_root)`` is called by ``tests/conftest.py``'s ``django_db_setup``. The copy is
keyed by the database engine (and PostgreSQL server) and a hash of every file under ``home/``,
``blog/``, ``search/``, ``config/`` and ``requirements/`` except templates and static files, and of this module:
change any of them and the next session builds a new copy. The copies live in ``CEDANA_TEST_CACHE_DIR`` (default
``~/.cache/cedana-blog/test-databases``): an SQLite file and a folder of media per key, and on
PostgreSQL a template database ``cedana_testcache_<key>`` beside the test database. A lock file
makes parallel sessions (pytest-xdist workers) build once and wait for it.
``CEDANA_TEST_DB_CACHE=off`` builds a fresh database every session and keeps nothing;
``CEDANA_TEST_DB_KEY=<name>`` uses that key instead of the hash, for quick iterations on code
that does not change stored content (new migrations are still applied on top).

``python -m tests.demo_database`` builds the copy for the configured database (``DATABASE_URL``)
outside a pytest session, or does nothing when it is there: ``.ci/run`` builds the SQLite and
the PostgreSQL copies side by side before its passes, one core each.
"""

import fcntl
import hashlib
import io
import os
import shutil
import sys
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.db import connection, connections
from django.test.utils import setup_databases

SOURCES = ("home", "blog", "search", "config", "requirements")
TEMPLATE_PREFIX = "cedana_testcache_"
# The filter of the thumbnails in Wagtail's image listings and choosers (wagtailimages templates).
ADMIN_THUMBNAIL = "max-165x165"
# Kept per engine: the newest few keys (a branch switch back and forth reuses its copy).
KEPT_COPIES = 4


def cache_root() -> Path:
    configured = os.environ.get("CEDANA_TEST_CACHE_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "cedana-blog" / "test-databases"


def cache_key() -> str:
    """A 16-hex-digit key for the database engine, its server and the sources that build the demo."""
    db = connection.settings_dict
    # The cache folder too: PostgreSQL's template database is named by the key alone, and two
    # folders (CEDANA_TEST_CACHE_DIR) sharing one template would pair it with the other's media.
    digest = hashlib.sha256(
        repr((db["ENGINE"], db.get("HOST"), db.get("PORT"), sys.version_info[:2], str(cache_root()))).encode()
    )
    base = Path(settings.BASE_DIR)
    digest.update(Path(__file__).read_bytes())  # what this module stores
    for folder in SOURCES:
        for path in sorted((base / folder).rglob("*")):
            # Templates and static files shape pages, not the stored content.
            if path.is_file() and not {"__pycache__", "templates", "static"} & set(path.parts):
                digest.update(str(path.relative_to(base)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def is_prepared() -> bool:
    """Whether the copy for the configured database and the current sources is complete."""
    folder = cache_root() / (os.environ.get("CEDANA_TEST_DB_KEY") or cache_key())
    store = _PostgresCopy(folder.name) if connection.vendor == "postgresql" else _SqliteCopy(folder)
    return (folder / "complete").exists() and store.exists()


def prepare(media_root: Path, verbosity: int = 0):
    """Make the test database (``connection``'s TEST settings) hold the prepared demo content and
    fill ``media_root`` with its files. Returns ``setup_databases``' configuration (for
    ``teardown_databases``) and whether the copy was reused (for the session's header)."""
    if os.environ.get("CEDANA_TEST_DB_CACHE", "").lower() in ("off", "0", "false"):
        config = _setup(keepdb=False, verbosity=verbosity)
        _load_demo()
        return config, False
    global _prepared
    key = os.environ.get("CEDANA_TEST_DB_KEY") or cache_key()
    folder = cache_root() / key
    folder.mkdir(parents=True, exist_ok=True)
    store = _PostgresCopy(key) if connection.vendor == "postgresql" else _SqliteCopy(folder)
    with _locked(folder / "lock"):
        if (folder / "complete").exists() and store.exists():
            store.restore()
            _copy_tree(folder / "media", media_root)
            _prepared = store
            return _setup(keepdb=True, verbosity=verbosity), True
        config = _setup(keepdb=False, verbosity=verbosity)
        _load_demo()
        shutil.rmtree(folder / "media", ignore_errors=True)
        _copy_tree(media_root, folder / "media")
        store.save()
        (folder / "complete").touch()
    _prepared = store
    _forget_old_copies(store)
    return config, False


def reload() -> None:
    """Put the prepared content back into the test database after a transactional test emptied
    it (its media files are still in MEDIA_ROOT), or load the demo again where nothing was
    prepared (``CEDANA_TEST_DB_CACHE=off``)."""
    from tests.conftest import restore_wagtail_base

    if _prepared is not None and _prepared.exists():
        _prepared.reload()
    else:  # nothing prepared, or another session's clean-up removed the copy since
        restore_wagtail_base()
        _load_demo()


_prepared = None


def _setup(*, keepdb: bool, verbosity: int):
    return setup_databases(
        verbosity=verbosity, interactive=False, keepdb=keepdb, aliases={"default"}, serialized_aliases=set()
    )


def _load_demo():
    """The demo site, and the card, hero, social and figure renditions of every article image."""
    from wagtail.images import get_image_model

    from blog.models import ArticlePage
    from blog.renditions import figure_image_ids, make_article_renditions

    call_command("load_demo", "--no-users", stdout=io.StringIO())
    cards, figures = set(), set()
    for article in ArticlePage.objects.all():
        cards.update(pk for pk in (article.image_id, article.social_image_id) if pk)
        figures.update(figure_image_ids(article.body))
    make_article_renditions.call(sorted(cards), sorted(figures))
    # The thumbnail Wagtail's image library and image chooser show of each image (its templates'
    # ``max-165x165``): otherwise each admin test that lists images made some thirty again.
    for image in get_image_model().objects.all():
        image.get_rendition(ADMIN_THUMBNAIL)


@contextmanager
def _locked(path: Path):
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _copy_tree(source: Path, target: Path):
    """Copy a media folder, hard-linking where the file system allows (files are never edited in
    place: a test that changes a file writes a new one)."""

    def link_or_copy(src, dst):
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    shutil.copytree(source, target, copy_function=link_or_copy, dirs_exist_ok=True)


def _forget_old_copies(store):
    """Delete all but the newest ``KEPT_COPIES`` complete copies for this engine."""
    root = cache_root()
    complete = sorted(
        (marker.stat().st_mtime, marker.parent) for marker in root.glob("*/complete") if store.owns(marker.parent)
    )
    for _, folder in complete[:-KEPT_COPIES]:
        store.forget(folder.name)
        shutil.rmtree(folder, ignore_errors=True)


class _SqliteCopy:
    """The test database as a file: ``TEST["NAME"]`` must be a file (tests/conftest.py sets it)."""

    def __init__(self, folder: Path):
        self.file = folder / "db.sqlite3"

    @property
    def test_file(self) -> Path:
        return Path(connection.settings_dict["TEST"]["NAME"])

    def exists(self) -> bool:
        return self.file.exists()

    def save(self):
        self.file.unlink(missing_ok=True)
        with connection.cursor() as cursor:  # one consistent file, the write-ahead log folded in
            cursor.execute("VACUUM INTO %s", [str(self.file)])
        (self.file.parent / "sqlite").touch()

    def restore(self):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.test_file}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(self.file, self.test_file)

    def reload(self):
        # SQLite's backup API writes the copy into the open database, so the live server's own
        # connections see it too (swapping the file would leave them on the old one).
        import sqlite3

        connection.ensure_connection()
        source = sqlite3.connect(self.file)
        try:
            source.backup(connection.connection)
        finally:
            source.close()

    def owns(self, folder: Path) -> bool:
        return (folder / "sqlite").exists()

    def forget(self, key: str):
        pass


class _PostgresCopy:
    """The test database copied as a template database on the same server (a file copy)."""

    def __init__(self, key: str):
        self.template = f"{TEMPLATE_PREFIX}{key}"
        # Made before the test database is set up, while NAME is still the configured one.
        db = connection.settings_dict
        self.test_name = db["TEST"]["NAME"] or f"test_{db['NAME']}"

    def _admin(self):
        import psycopg

        db = connection.settings_dict
        return psycopg.connect(
            host=db.get("HOST") or None,
            port=db.get("PORT") or None,
            user=db.get("USER") or None,
            password=db.get("PASSWORD") or None,
            dbname="postgres",
            autocommit=True,
        )

    def exists(self) -> bool:
        with self._admin() as admin:
            found = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [self.template]).fetchone()
        return found is not None

    def save(self):
        connections.close_all()
        with self._admin() as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{self.template}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{self.template}" TEMPLATE "{self.test_name}"')

    def restore(self):
        with self._admin() as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{self.test_name}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{self.test_name}" TEMPLATE "{self.template}"')

    def reload(self):
        # The live server's connections are ended by FORCE; Django's health checks
        # (CONN_HEALTH_CHECKS) open new ones on their next request.
        connections.close_all()
        self.restore()

    def owns(self, folder: Path) -> bool:
        return not (folder / "sqlite").exists()

    def forget(self, key: str):
        with self._admin() as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{TEMPLATE_PREFIX}{key}" WITH (FORCE)')


def main() -> int:
    """Build the prepared copy for ``DATABASE_URL`` (SQLite by default) unless it is there, in a
    scratch test database that is dropped afterwards. Prints one line; exit status 0 or an error."""
    import tempfile
    import time

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    django.setup()
    from django.test.utils import override_settings, setup_test_environment, teardown_databases

    started = time.monotonic()
    if os.environ.get("CEDANA_TEST_DB_CACHE", "").lower() in ("off", "0", "false"):
        sys.stdout.write("demo database: CEDANA_TEST_DB_CACHE is off, nothing to prepare\n")
        return 0
    if is_prepared():
        sys.stdout.write(f"demo database ({connection.vendor}): already prepared\n")
        return 0
    setup_test_environment()
    database = settings.DATABASES["default"]
    with tempfile.TemporaryDirectory(prefix="cedana-prepare-") as scratch:
        # A test database of its own, beside any session's (test_<name>, test_<name>_gw0...).
        database.setdefault("TEST", {})["NAME"] = (
            f"{scratch}/prepare.sqlite3" if connection.vendor == "sqlite" else f"test_{database['NAME']}_prepare"
        )
        media_root = Path(scratch) / "media"
        media_root.mkdir()
        with override_settings(MEDIA_ROOT=str(media_root)):
            config, reused = prepare(media_root)
            teardown_databases(config, verbosity=0, keepdb=False)
    state = "found ready" if reused else "built"
    sys.stdout.write(f"demo database ({connection.vendor}): {state} in {time.monotonic() - started:.0f} s\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
