"""Shared fixtures: media in a temporary folder, and the demo site loaded once per session."""

import io

from django.core.management import call_command
from django.test import override_settings

import pytest


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


def _user_in_group(username, group_name):
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    user = get_user_model().objects.create_user(username=username, password="x", email=f"{username}@example.com")
    user.groups.add(Group.objects.get(name=group_name))
    return user


@pytest.fixture
def editor(db):
    """A user in Wagtail's default "Editors" group (add and edit pages, no publishing)."""
    return _user_in_group("eddie", "Editors")


@pytest.fixture
def moderator(db):
    """A user in Wagtail's default "Moderators" group (add, edit, publish, lock pages)."""
    return _user_in_group("mona", "Moderators")
