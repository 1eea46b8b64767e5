"""Shared fixtures: media in a temporary folder, the demo site loaded once per session, and
Debian's Chromium for Playwright browser tests."""

import gc
import os
import shutil
from collections.abc import Sequence
from types import SimpleNamespace

from django.test import override_settings

import pytest
from _pytest.runner import runtestprotocol
from hypothesis import settings as hypothesis_settings

from home.upstream.cpython import call_in_one_stack_chunk

# Property tests run derandomised in CI (the same examples on every run, so a failure there is
# reproducible and never a flake of the draw); locally they explore new examples each run.
# Neither writes an example database into the work tree.
hypothesis_settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
hypothesis_settings.register_profile("dev", database=None)
hypothesis_settings.load_profile("ci" if os.environ.get("CI") else "dev")

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def pytest_configure(config):
    gc.set_threshold(50_000, 20, 100)  # see pytest_collection_finish


def pytest_collection_finish(session):
    """Once the modules are imported and the tests collected (in each xdist worker), move every
    object alive into the garbage collector's permanent generation; from the start, collect less
    often.

    A Django test allocates many short-lived objects, and CPython's defaults (a collection every
    700 allocations net, a full one every 100 of those) kept walking the loaded Django, Wagtail
    and test modules: on five admin, listing and feed test files (278 tests, one process,
    SQLite) user CPU went from 34.2-37.8 s to 28.3-30.4 s, resident memory from 256-271 to
    288-291 MB (docs/testing.md, "Garbage collection"). Reference cycles are still freed, later.
    """
    gc.collect()
    gc.freeze()


def _run_test_protocol(item, nextitem) -> bool:
    # What pytest's own pytest_runtest_protocol does (as pytest-rerunfailures and other plugins
    # call it); only the frame stack it runs on differs.
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    runtestprotocol(item, nextitem=nextitem)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    """Run each test (set-up, call, tear-down) in one frame-stack chunk: CPython 3.11 otherwise
    maps and unmaps a 16 KiB chunk each time a call crosses a chunk's end (home/upstream/cpython.py).
    Five admin, listing and feed test files, one process: 3.7-4.3 s of system time to 0.9-1.2 s,
    34.8-35.8 s wall against 36.5-40.2 s."""
    return call_in_one_stack_chunk(_run_test_protocol, item, nextitem)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Launch Debian's Chromium (never a downloaded browser); keeps --headed/--slowmo working."""
    # Playwright's sync API runs an event loop in the test thread; Django's ORM calls from that
    # thread are still synchronous (see shared/TOOLING.md). Set here, not at import, so that
    # subprocesses of other tests (e.g. ``check --deploy``) do not inherit it.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    if not shutil.which(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"Chromium not found at {CHROMIUM}; .ci/run installs Debian's chromium package")
        pytest.skip(f"Chromium not found at {CHROMIUM} (apt-get install chromium to run browser tests)")
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": [*browser_type_launch_args.get("args", []), *CHROMIUM_FLAGS],
    }


@pytest.fixture(scope="session")
def media_root(tmp_path_factory):
    """Every file the suite writes goes to a temporary MEDIA_ROOT, never to var/media."""
    path = tmp_path_factory.mktemp("media")
    with override_settings(MEDIA_ROOT=str(path)):
        yield path


@pytest.fixture(autouse=True)
def _media_in_tmp(media_root):
    yield


@pytest.fixture(autouse=True)
def _fresh_generation():
    """Each test starts in a new page-cache generation, with an empty memo
    (home/caching/memo.py): a rolled-back test replaces no generation, so what it remembered or
    cached for the generation (fragments, search results) must not reach the next test. The
    test cache (local memory) is emptied first: what a rolled-back test cached (Wagtail's list of
    sites, the host-to-site mapping of the page cache) would otherwise outlive its rows."""
    from django.core.cache import cache

    from home.caching.page_cache import bump_generation

    cache.clear()
    bump_generation()


@pytest.fixture
def forget_sites_afterwards():
    """For tests that make a Site: empty Wagtail's cached list of sites when they end. A site a
    rolled-back test made sends no delete signal, and with two sites in that list every later
    test's page ``url`` would be a full URL."""
    from wagtail.models import Site

    yield
    Site.clear_site_root_paths_cache()


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, tmp_path_factory):
    """On SQLite the test database is a file in the session's temporary folder (one per xdist
    worker), so that the prepared copy can be put in its place (``tests/demo_database.py``)."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3":
        database.setdefault("TEST", {})["NAME"] = str(tmp_path_factory.getbasetemp() / "test-database.sqlite3")


@pytest.fixture(scope="session")
def django_db_setup(request, django_test_environment, django_db_blocker, django_db_modify_db_settings, media_root):
    """The demo content with its renditions, prepared once per version of the code
    (``tests/demo_database.py``); each test then runs in a transaction rolled back after it."""
    from django.test.utils import teardown_databases

    from tests.demo_database import prepare

    with django_db_blocker.unblock():
        config, _reused = prepare(media_root, verbosity=request.config.option.verbose)
    yield
    with django_db_blocker.unblock():
        teardown_databases(config, verbosity=request.config.option.verbose, keepdb=True)


class DemoArticles(Sequence):
    """The demo's articles in a fixed order, each read from the database the first time a test
    asks for it: most tests use one or two, and reading all 98 with their bodies cost more than
    the rest of the ``demo`` fixture. Iterating reads the ones not read yet in one query."""

    def __init__(self, ids: list[int]):
        self.ids = ids
        self.pages = {}

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, index):
        from blog.models import ArticlePage

        if isinstance(index, slice):
            return list(self._read(self.ids[index]))
        pk = self.ids[index]
        if pk not in self.pages:
            self.pages[pk] = ArticlePage.objects.get(pk=pk)
        return self.pages[pk]

    def __iter__(self):
        return self._read(self.ids)

    def _read(self, ids):
        from blog.models import ArticlePage

        self.pages.update(ArticlePage.objects.in_bulk([pk for pk in ids if pk not in self.pages]))
        return (self.pages[pk] for pk in ids if pk in self.pages)


@pytest.fixture
def demo(db):
    """The demo site's pages: ``demo.home``, ``demo.blog``, ``demo.topics[slug]``, ``demo.articles``
    (the articles at the start of the test, newest first: ``DemoArticles``)."""
    from blog.models import ArticlePage, BlogIndexPage, TopicPage
    from home.models import HomePage

    class Demo:
        home = HomePage.objects.get()
        blog = BlogIndexPage.objects.get()
        topics = {topic.slug: topic for topic in TopicPage.objects.all()}
        articles = DemoArticles(list(ArticlePage.objects.order_by("-date_published").values_list("pk", flat=True)))

    return Demo()


def restore_wagtail_base():
    """Recreate what Wagtail's data migrations made (locale, root collection, root page), which
    a transactional test's flush deletes; idempotent."""
    from django.conf import settings

    from wagtail.models import Collection, Locale, Page

    locale, _ = Locale.objects.get_or_create(language_code=settings.LANGUAGE_CODE)
    if not Collection.objects.exists():
        Collection.add_root(name="Root")
    if not Page.objects.exists():
        Page.add_root(instance=Page(title="Root", slug="root", locale=locale))


class _OneRequestAtATime:
    """WSGI wrapper that lets one request at a time reach Django (connections are still accepted
    in parallel): with an in-memory SQLite database every thread of the live server shares the
    test's single connection, and two requests using it at once fail with "cannot start a
    transaction within a transaction" (the Wagtail editor sends autosave, preview and
    editing-session requests together). The lock is released when the server closes the
    response, after Django's request_finished handlers."""

    def __init__(self, application, lock):
        self.application = application
        self.lock = lock

    def __call__(self, environ, start_response):
        self.lock.acquire()
        try:
            result = self.application(environ, start_response)
        except BaseException:
            self.lock.release()
            raise
        return _ReleaseOnClose(result, self.lock)


class _ReleaseOnClose:
    def __init__(self, result, lock):
        self.result = result
        self.lock = lock

    def __iter__(self):
        return iter(self.result)

    def close(self):
        try:
            if hasattr(self.result, "close"):
                self.result.close()
        finally:
            self.lock.release()


@pytest.fixture(scope="session")
def live_server(request):
    """pytest-django's live server, serving one request at a time on in-memory SQLite (see
    ``_OneRequestAtATime``); unchanged on PostgreSQL, where each thread has its own connection."""
    import threading

    from pytest_django.live_server_helper import LiveServer

    addr = request.config.getvalue("liveserver") or os.getenv("DJANGO_LIVE_TEST_SERVER_ADDRESS") or "localhost"
    server = LiveServer(addr, start=False)
    if server.thread.connections_override:
        static_handler, lock = server.thread.static_handler, threading.Lock()
        server.thread.static_handler = lambda application: _OneRequestAtATime(static_handler(application), lock)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def demo_live_server(live_server, django_db_blocker):
    """A live server over the demo content (transactional tests start from an emptied database)."""
    from home.models import HomePage
    from tests.demo_database import reload

    with django_db_blocker.unblock():
        if not HomePage.objects.exists():
            reload()
    return live_server


def _user_in_group(django_user_model, username: str, group_name: str):
    from django.contrib.auth.models import Group

    user = django_user_model.objects.create_user(
        username, f"{username}@example.com", "a-long-test-password", first_name=username.title()
    )
    user.groups.add(Group.objects.get(name=group_name))
    return user


@pytest.fixture
def hidden_articles(demo):
    """Articles in the gpu-costs topic that no reader listing may show, and one that must show.

    ``hidden_articles.hidden``: a draft, a private (Editors-only) article, an expired one and one
    scheduled for tomorrow; ``hidden_articles.visible``: a live public article made after them.
    Listings, feeds, the sitemap and the API use it to prove they leave the hidden ones out.
    """
    from datetime import timedelta

    from django.contrib.auth.models import Group
    from django.utils import timezone

    from wagtail.models import PageViewRestriction

    from tests.factories import ArticlePageFactory

    now = timezone.now()
    topic = demo.topics["gpu-costs"]

    def new(title, **kwargs):
        return ArticlePageFactory(parent=demo.blog, topics=[topic], title=title, **kwargs)

    hidden = [
        new("Draft only article", live=False),
        new("Private article"),
        new("Expired article", expire_at=now - timedelta(minutes=1)),
        new("Future article", live=False, go_live_at=now + timedelta(days=1)),
    ]
    PageViewRestriction.objects.create(page=hidden[1], restriction_type="groups").groups.set(
        [Group.objects.get(name="Editors")]
    )

    return SimpleNamespace(hidden=hidden, visible=new("Visible new article"))


@pytest.fixture
def editor(db, django_user_model):
    """A user in the Editors group (see ``blog.roles``)."""
    return _user_in_group(django_user_model, "edna", "Editors")


@pytest.fixture
def moderator(db, django_user_model):
    """A user in the Moderators group (see ``blog.roles``)."""
    return _user_in_group(django_user_model, "mona", "Moderators")


def _empties_the_database(item) -> bool:
    """Transactional tests (live server, ``django_db(transaction=True)``) flush every table when
    they finish, taking the session's demo content with them."""
    marker = item.get_closest_marker("django_db")
    transactional = bool(marker and (marker.kwargs.get("transaction") or (marker.args and marker.args[0])))
    fixtures = getattr(item, "fixturenames", ())
    return transactional or "live_server" in fixtures or "transactional_db" in fixtures


# Fixtures through which a test reaches the database (pytest-django's, and so every fixture
# built on them: ``demo``, ``editor``, ``live_server``...).
DATABASE_FIXTURES = {
    "db",
    "transactional_db",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
    "live_server",
}


def uses_a_database(item) -> bool:
    """Whether ``item`` can reach the database: a ``django_db`` mark, a database fixture, or the
    ``every_database`` mark of a module whose subprocesses inherit ``DATABASE_URL``."""
    if item.get_closest_marker("django_db") or item.get_closest_marker("every_database"):
        return True
    return bool(DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Run the tests that empty the database last (a stable sort keeps the rest in order).

    With ``CEDANA_DATABASE_TESTS_ONLY=1`` (``.ci/run``'s PostgreSQL pass) the tests that never
    reach a database are deselected: the SQLite pass ran them, and they cannot answer otherwise
    on another database."""
    if os.environ.get("CEDANA_DATABASE_TESTS_ONLY") == "1":
        kept = [item for item in items if uses_a_database(item)]
        if len(kept) < len(items):
            config.hook.pytest_deselected(items=[item for item in items if not uses_a_database(item)])
            items[:] = kept
    items.sort(key=_empties_the_database)
