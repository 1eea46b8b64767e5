"""Dashboard panels: my drafts, scheduled in the next 14 days, recently published, stale drafts,
and Wagtail's own "Awaiting your review"."""

import re
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from wagtail.models import Workflow

import pytest
import time_machine

from .factories import ArticlePageFactory

pytestmark = pytest.mark.django_db


def panel(html, panel_id):
    """The HTML of one dashboard panel (Wagtail's {% panel %} wraps it in <section id=...>)."""
    match = re.search(rf'<section[^>]*id="{panel_id}-section"(.*?)</section>', html, re.S)
    assert match, f"no panel {panel_id}"
    return match.group(1)


@pytest.mark.parametrize("user_fixture", ["editor", "moderator"])
def test_dashboard_shows_the_editorial_panels(client, demo, request, user_fixture):
    client.force_login(request.getfixturevalue(user_fixture))
    response = client.get("/admin/")
    assert response.status_code == 200
    html = response.content.decode()
    for panel_id, heading in [
        ("my-drafts", "My drafts"),
        ("scheduled-soon", "Scheduled in the next 14 days"),
        ("recently-published", "Recently published"),
        ("stale-drafts", "Stale drafts (untouched for 30 days)"),
    ]:
        assert heading in panel(html, panel_id)
    newest = max(demo.articles, key=lambda a: a.last_published_at)
    assert f'href="/admin/pages/{newest.pk}/edit/"' in panel(html, "recently-published")


def test_my_drafts_lists_only_my_unpublished_work(client, demo, editor):
    topic = demo.topics["gpu-costs"]
    mine = ArticlePageFactory(parent=demo.blog, title="Eddie's draft", live=False, owner=editor, topics=[topic])
    mine.save_revision(user=editor)
    other = ArticlePageFactory(parent=demo.blog, title="Someone else's draft", live=False, topics=[topic])
    other.save_revision()
    client.force_login(editor)
    html = panel(client.get("/admin/").content.decode(), "my-drafts")
    assert "Eddie&#x27;s draft" in html
    assert "Someone else" not in html


def test_scheduled_panel_shows_the_next_14_days_only(client, demo, moderator):
    topic = demo.topics["gpu-costs"]
    soon = ArticlePageFactory(parent=demo.blog, title="Goes live soon", live=False, topics=[topic])
    soon.go_live_at = timezone.now() + timedelta(days=3)
    soon.save_revision().publish()
    later = ArticlePageFactory(parent=demo.blog, title="Goes live later", live=False, topics=[topic])
    later.go_live_at = timezone.now() + timedelta(days=20)
    later.save_revision().publish()
    client.force_login(moderator)
    html = panel(client.get("/admin/").content.decode(), "scheduled-soon")
    assert "Goes live soon" in html
    assert "Goes live later" not in html


def test_stale_drafts_are_those_untouched_for_30_days(client, demo, moderator):
    topic = demo.topics["gpu-costs"]
    with time_machine.travel(timezone.now() - timedelta(days=45), tick=False):
        old = ArticlePageFactory(parent=demo.blog, title="Forgotten draft", live=False, topics=[topic])
        old.save_revision()
    fresh = ArticlePageFactory(parent=demo.blog, title="Fresh draft", live=False, topics=[topic])
    fresh.save_revision()
    client.force_login(moderator)
    html = panel(client.get("/admin/").content.decode(), "stale-drafts")
    assert "Forgotten draft" in html
    assert "Fresh draft" not in html


def test_awaiting_review_uses_wagtails_panel_for_moderators(client, demo, moderator, editor):
    article = ArticlePageFactory(parent=demo.blog, title="Please review me", live=False, owner=editor)
    article.save_revision(user=editor)
    Workflow.objects.get(name="Moderators approval").start(article, user=editor)
    client.force_login(moderator)
    html = client.get("/admin/").content.decode()
    assert "Awaiting your review" in html and "Please review me" in html
    client.force_login(editor)
    html = client.get("/admin/").content.decode()
    assert "Please review me" in panel(html, "my-drafts") or "Please review me" in html


def test_panels_hide_articles_the_user_cannot_edit(client, demo):
    from django.contrib.auth.models import Group, Permission

    user = get_user_model().objects.create_user(username="viewer", password="x")
    group = Group.objects.create(name="Admin access only")
    group.permissions.add(Permission.objects.get(codename="access_admin"))
    user.groups.add(group)
    client.force_login(user)
    html = client.get("/admin/").content.decode()
    assert "No articles are live yet." in panel(html, "recently-published")


def test_dashboard_query_count_does_not_grow_with_articles(client, demo, moderator):
    topic = demo.topics["gpu-costs"]

    def add_draft(title):
        page = ArticlePageFactory(parent=demo.blog, title=title, live=False, owner=moderator, topics=[topic])
        page.save_revision(user=moderator)

    def count():
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/admin/").status_code == 200
        return len(queries)

    client.force_login(moderator)
    add_draft("Draft 0")
    count()  # each count after a warm request: saving pages empties what requests remember
    before = count()
    for i in range(1, 5):
        add_draft(f"Draft {i}")
    count()
    assert count() == before
