"""Shared fixtures: media in a temporary folder, the demo site loaded once per session, and
Debian's Chromium for Playwright browser tests."""

import io
import os
import shutil

from django.core.management import call_command
from django.test import override_settings

import pytest

# Playwright's sync API runs an event loop in the test thread; Django's ORM calls from that
# thread are still synchronous (see shared/TOOLING.md).
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

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


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    """Run live-server (transactional) tests last: they empty the database when they finish,
    which would remove the session's demo content from under the tests after them."""
    items.sort(key=lambda item: "live_server" in getattr(item, "fixturenames", ()))
