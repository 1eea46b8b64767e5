"""Shared fixtures: media in a temporary folder, the demo site loaded once per session, and
Debian's Chromium for Playwright browser tests."""

import io
import os
import shutil

from django.core.management import call_command
from django.test import override_settings

import pytest

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
def _fresh_site_chrome():
    """Each test starts with an empty site chrome memo (home/site_chrome.py): a rolled-back test
    replaces no cache generation, so what it remembered must not reach the next test."""
    from home import site_chrome

    site_chrome.generation_changed()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker, media_root):
    """Load the demo content once; each test then runs in a transaction rolled back after it."""
    with django_db_blocker.unblock():
        call_command("load_demo", "--no-users", stdout=io.StringIO())


@pytest.fixture
def demo(db):
    """The demo site's pages: ``demo.home``, ``demo.blog``, ``demo.topics[slug]``, ``demo.articles``."""
    from blog.models import ArticlePage, BlogIndexPage, TopicPage
    from home.models import HomePage

    class Demo:
        home = HomePage.objects.get()
        blog = BlogIndexPage.objects.get()
        topics = {topic.slug: topic for topic in TopicPage.objects.all()}
        articles = list(ArticlePage.objects.order_by("-date_published"))

    return Demo


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


@pytest.fixture
def demo_live_server(live_server, django_db_blocker):
    """A live server over the demo content (transactional tests start from an emptied database)."""
    from home.models import HomePage

    with django_db_blocker.unblock():
        if not HomePage.objects.exists():
            restore_wagtail_base()
            call_command("load_demo", "--no-users", stdout=io.StringIO())
    return live_server


def _user_in_group(django_user_model, username: str, group_name: str):
    from django.contrib.auth.models import Group

    user = django_user_model.objects.create_user(
        username, f"{username}@example.com", "a-long-test-password", first_name=username.title()
    )
    user.groups.add(Group.objects.get(name=group_name))
    return user


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


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    """Run the tests that empty the database last (a stable sort keeps the rest in order)."""
    items.sort(key=_empties_the_database)
