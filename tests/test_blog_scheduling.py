"""Scheduled publishing and expiry, with a travelled clock (time-machine)."""

import io
from datetime import UTC, datetime, timedelta

from django.core.management import call_command
from django.db import connection, connections
from django.urls import reverse

from wagtail.models import PageLogEntry

import pytest
import time_machine

from blog.models import ArticlePage
from home.operations.management.commands.run_scheduler import ADVISORY_LOCK_KEY

from .admin_forms import article_form_data
from .factories import ArticlePageFactory

pytestmark = pytest.mark.django_db

GO_LIVE = datetime(2031, 3, 4, 9, 0, tzinfo=UTC)


def run_scheduler() -> str:
    out = io.StringIO()
    call_command("run_scheduler", "--once", stdout=out, stderr=out)
    return out.getvalue()


def scheduled_publishes(page) -> int:
    return PageLogEntry.objects.filter(page=page, action="wagtail.publish.scheduled").count()


def schedule_new_article(demo, title="Scheduled for Tuesday", go_live_at=GO_LIVE) -> ArticlePage:
    """A draft article whose newest revision is approved to go live at ``go_live_at``."""
    article = ArticlePageFactory(
        parent=demo.blog, topics=[demo.topics["gpu-costs"]], title=title, live=False, publishable=True
    )
    article.go_live_at = go_live_at
    article.save_revision().publish()
    article.refresh_from_db()
    return article


def reader_sees(client, article) -> bool:
    listed = article.title in client.get("/blog/gpu-costs/").content.decode()
    return listed and client.get(article.url).status_code == 200


def test_scheduled_article_goes_live_on_the_first_run_after_its_time(client, demo):
    with time_machine.travel(GO_LIVE - timedelta(days=2), tick=False):
        article = schedule_new_article(demo)
        assert not article.live
        assert article.get_latest_revision().approved_go_live_at == GO_LIVE

    with time_machine.travel(GO_LIVE - timedelta(seconds=1), tick=False):
        run_scheduler()
        article.refresh_from_db()
        assert not article.live
        assert not reader_sees(client, article)

    # Wagtail publishes revisions whose time is strictly past, so a run at the exact second waits
    # for the next minute's run.
    with time_machine.travel(GO_LIVE, tick=False):
        run_scheduler()
        article.refresh_from_db()
        assert not article.live

    with time_machine.travel(GO_LIVE + timedelta(seconds=1), tick=False):
        run_scheduler()
        article.refresh_from_db()
        assert article.live
        assert article.first_published_at == GO_LIVE + timedelta(seconds=1)
        assert reader_sees(client, article)
    assert scheduled_publishes(article) == 1


def test_expired_article_leaves_every_listing_and_search(client, demo):
    article = demo.articles[0]
    expires = datetime(2031, 6, 1, 12, 0, tzinfo=UTC)
    article.expire_at = expires
    article.save_revision().publish()
    word = article.title.split()[-1]

    with time_machine.travel(expires - timedelta(minutes=1), tick=False):
        for url in ("/", "/blog/", article.topics.first().url):
            assert article.title in client.get(url).content.decode(), url

    with time_machine.travel(expires + timedelta(seconds=30), tick=False):
        # Listings hide it at once, before the scheduler has run.
        for url in ("/", "/blog/", article.topics.first().url):
            assert article.title not in client.get(url).content.decode(), url
        run_scheduler()
        article.refresh_from_db()
        assert not article.live and article.expired
        assert client.get(article.url).status_code == 404
        assert article.title not in client.get("/search/", {"query": word}).content.decode()


def test_two_runs_publish_a_due_revision_once(demo):
    with time_machine.travel(GO_LIVE - timedelta(hours=1), tick=False):
        article = schedule_new_article(demo)
    with time_machine.travel(GO_LIVE + timedelta(minutes=1), tick=False):
        run_scheduler()
        run_scheduler()
    assert scheduled_publishes(article) == 1
    assert article.revisions.count() == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="advisory locks are PostgreSQL's")
def test_a_run_skips_while_another_scheduler_holds_the_lock(demo):
    with time_machine.travel(GO_LIVE - timedelta(hours=1), tick=False):
        article = schedule_new_article(demo)
    other = connections.create_connection("default")  # a second scheduler's own session
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [ADVISORY_LOCK_KEY])
            assert cursor.fetchone()[0] is True
        with time_machine.travel(GO_LIVE + timedelta(minutes=1), tick=False):
            assert "skipping this run" in run_scheduler()
            article.refresh_from_db()
            assert not article.live
            with other.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [ADVISORY_LOCK_KEY])
            run_scheduler()
        article.refresh_from_db()
        assert article.live
        assert scheduled_publishes(article) == 1
    finally:
        other.close()


# Approval through the admin ------------------------------------------------------------------


def submit_scheduled(client, demo, editor, go_live_at: datetime) -> ArticlePage:
    client.force_login(editor)
    data = article_form_data("scheduled-review", action="submit", go_live_at=go_live_at.strftime("%Y-%m-%d %H:%M"))
    response = client.post(reverse("wagtailadmin_pages:add", args=("blog", "articlepage", demo.blog.pk)), data)
    assert response.status_code == 302, response.content.decode()[:3000]
    return ArticlePage.objects.get(slug="scheduled-review")


def approve(client, moderator, article):
    client.force_login(moderator)
    article = ArticlePage.objects.get(pk=article.pk)
    task_state = article.current_workflow_task_state
    url = reverse("wagtailadmin_pages:workflow_action", args=(article.pk, "approve", task_state.pk))
    assert client.post(url, {"comment": ""}).status_code == 302


def test_approval_before_go_live_waits_for_the_go_live_time(client, demo, editor, moderator):
    with time_machine.travel(GO_LIVE - timedelta(days=1), tick=False):
        article = submit_scheduled(client, demo, editor, GO_LIVE)
        approve(client, moderator, article)
        article.refresh_from_db()
        assert not article.live
        assert article.get_latest_revision().approved_go_live_at == GO_LIVE
        run_scheduler()
        article.refresh_from_db()
        assert not article.live
    with time_machine.travel(GO_LIVE + timedelta(seconds=30), tick=False):
        run_scheduler()
        article.refresh_from_db()
        assert article.live


def test_approval_after_go_live_publishes_at_once(client, demo, editor, moderator):
    with time_machine.travel(GO_LIVE - timedelta(days=1), tick=False):
        article = submit_scheduled(client, demo, editor, GO_LIVE)
    with time_machine.travel(GO_LIVE + timedelta(hours=3), tick=False):
        approve(client, moderator, article)
        article.refresh_from_db()
        assert article.live
        assert article.first_published_at == GO_LIVE + timedelta(hours=3)


# Time zones -----------------------------------------------------------------------------------


def test_go_live_is_stored_in_utc_and_shown_in_the_editors_time_zone_across_dst(client, demo, editor, moderator):
    from wagtail.users.models import UserProfile

    profile = UserProfile.get_for_user(editor)
    profile.current_time_zone = "Europe/Berlin"
    profile.save()
    add = reverse("wagtailadmin_pages:add", args=("blog", "articlepage", demo.blog.pk))
    # Berlin moves from CET (UTC+1) to CEST (UTC+2) at 02:00 on 28 March 2027.
    cases = {
        "before-dst": ("2027-03-27 03:30", datetime(2027, 3, 27, 2, 30, tzinfo=UTC)),
        "after-dst": ("2027-03-28 03:30", datetime(2027, 3, 28, 1, 30, tzinfo=UTC)),
    }
    with time_machine.travel(datetime(2027, 3, 1, tzinfo=UTC), tick=False):
        client.force_login(editor)  # inside the travel, so the session has not expired
        for slug, (local, utc) in cases.items():
            response = client.post(add, article_form_data(slug, go_live_at=local))
            assert response.status_code == 302, response.content.decode()[:2000]
            page = ArticlePage.objects.get(slug=slug)
            assert page.go_live_at == utc
            # The editor sees the local time they typed back.
            html = client.get(reverse("wagtailadmin_pages:edit", args=(page.pk,))).content.decode()
            assert f'value="{local}"' in html
        # A moderator on UTC sees the same instant in UTC.
        client.force_login(moderator)
        page = ArticlePage.objects.get(slug="after-dst")
        html = client.get(reverse("wagtailadmin_pages:edit", args=(page.pk,))).content.decode()
        assert 'value="2027-03-28 01:30"' in html

        # 02:30 on the changeover night never happens in Berlin: a form error, not a guess or a 500.
        client.force_login(editor)
        response = client.post(add, article_form_data("no-such-time", go_live_at="2027-03-28 02:30"))
        assert response.status_code == 200
        assert "go_live_at" in response.context["form"].errors


# A go-live in the past (home/past_go_live.py): Wagtail publishes at once, so the editor's form
# refuses one on every action but "Save draft".

NOW = datetime(2031, 3, 4, 12, 0, tzinfo=UTC)
ADD_URL = "/admin/pages/add/blog/articlepage/{}/"
PAST_GO_LIVES = [
    "2020-01-01 10:00",
    "1970-01-01 00:00",
    "0001-01-02 00:00",  # the first time every zone can show
    "2031-03-03 23:59",
    "2031-03-04 11:59",
    "2031-03-04 12:00",  # now is not ahead
]
APPROVE = {"action-workflow-action": "on", "workflow-action-name": "approve", "workflow-action-extra-data": "{}"}


def edit_url(article) -> str:
    return reverse("wagtailadmin_pages:edit", args=(article.pk,))


def go_live_errors(response) -> list[str]:
    assert response.status_code == 200, response.status_code
    return response.context["form"].errors.get("go_live_at", [])


@pytest.mark.parametrize("value", PAST_GO_LIVES)
@pytest.mark.parametrize("action", ["submit", "publish"])
def test_submitting_or_publishing_with_a_past_go_live_is_refused(client, demo, editor, moderator, action, value):
    from home.past_go_live import PAST_GO_LIVE

    with time_machine.travel(NOW, tick=False):
        client.force_login(moderator if action == "publish" else editor)
        response = client.post(
            ADD_URL.format(demo.blog.pk), article_form_data("past", action=action, go_live_at=value)
        )
    assert go_live_errors(response) == [PAST_GO_LIVE]
    assert (
        "Go-live is in the past: leave it empty to publish now, or choose a future time." in response.content.decode()
    )
    assert not ArticlePage.objects.filter(slug="past").exists()


@pytest.mark.parametrize(
    "extra",
    [
        {"action-workflow-action": "on"},
        {"action-workflow-action": "1", "workflow-action-name": "approve"},
        APPROVE,
    ],
)
@pytest.mark.parametrize("action", ["submit", "publish"])
def test_naming_a_workflow_action_too_does_not_pass_a_past_go_live(client, demo, editor, moderator, action, extra):
    """The go-live kept on a moderator's Approve is kept for a post Wagtail reads as a workflow
    action: a submit or publish that also names ``action-workflow-action`` is still a submit or a
    publish (Wagtail takes the first button it finds set), and the past go-live is refused."""
    from home.past_go_live import PAST_GO_LIVE

    with time_machine.travel(NOW - timedelta(days=40), tick=False):
        client.force_login(editor)
        data = article_form_data("stray-field", go_live_at="2031-03-01 10:00")
        assert client.post(ADD_URL.format(demo.blog.pk), data).status_code == 302
    article = ArticlePage.objects.get(slug="stray-field")
    with time_machine.travel(NOW, tick=False):
        client.force_login(moderator if action == "publish" else editor)
        data = {**article_form_data("stray-field", action=action, go_live_at="2031-03-01 10:00"), **extra}
        assert go_live_errors(client.post(edit_url(article), data)) == [PAST_GO_LIVE]
    article = ArticlePage.objects.get(pk=article.pk)
    assert not article.live and article.current_workflow_state is None


@pytest.mark.parametrize("value", ["", "2031-03-04 12:01", "2031-03-05 09:00"])
def test_an_empty_or_future_go_live_is_accepted(client, demo, editor, value):
    with time_machine.travel(NOW, tick=False):
        client.force_login(editor)
        data = article_form_data("not-past", action="submit", go_live_at=value)
        response = client.post(ADD_URL.format(demo.blog.pk), data)
    assert response.status_code == 302, response.content.decode()[:2000]


def test_a_time_no_zone_can_show_gets_that_error_alone(client, demo, editor):
    with time_machine.travel(NOW, tick=False):
        client.force_login(editor)
        data = article_form_data("first-day", action="submit", go_live_at="0001-01-01 00:00")
        errors = go_live_errors(client.post(ADD_URL.format(demo.blog.pk), data))
    assert len(errors) == 1 and "cannot be shown in every time zone" in errors[0]


def test_a_draft_may_keep_a_past_go_live_until_it_is_submitted(client, demo, editor):
    from home.past_go_live import PAST_GO_LIVE

    with time_machine.travel(NOW, tick=False):
        client.force_login(editor)
        response = client.post(
            ADD_URL.format(demo.blog.pk), article_form_data("past-draft", go_live_at="2020-01-01 10:00")
        )
        assert response.status_code == 302, response.content.decode()[:2000]
        article = ArticlePage.objects.get(slug="past-draft")
        assert article.get_latest_revision_as_object().go_live_at == datetime(2020, 1, 1, 10, 0, tzinfo=UTC)
        # Submitted as it was (the field unchanged): refused, nothing in review.
        data = article_form_data("past-draft", action="submit", go_live_at="2020-01-01 10:00")
        assert go_live_errors(client.post(edit_url(article), data)) == [PAST_GO_LIVE]
        assert ArticlePage.objects.get(pk=article.pk).current_workflow_state is None
        # Cleared, it is submitted.
        data = article_form_data("past-draft", action="submit", go_live_at="")
        assert client.post(edit_url(article), data).status_code == 302
        assert ArticlePage.objects.get(pk=article.pk).current_workflow_state is not None


def test_a_go_live_the_page_has_gone_live_by_is_kept_on_later_edits(client, demo, editor, moderator):
    from home.past_go_live import PAST_GO_LIVE

    article = schedule_new_article(demo)
    with time_machine.travel(GO_LIVE + timedelta(seconds=30), tick=False):
        run_scheduler()
    article.refresh_from_db()
    assert article.live and article.go_live_at == GO_LIVE  # Wagtail keeps it
    with time_machine.travel(GO_LIVE + timedelta(days=10), tick=False):
        client.force_login(moderator)
        kept = article_form_data(article.slug, action="publish", go_live_at="2031-03-04 09:00", title="Republished")
        assert client.post(edit_url(article), kept).status_code == 302
        assert ArticlePage.objects.get(pk=article.pk).title == "Republished"
        client.force_login(editor)
        kept = article_form_data(article.slug, action="submit", go_live_at="2031-03-04 09:00", title="Resubmitted")
        assert client.post(edit_url(article), kept).status_code == 302
        # Moving it to another past time is a new go-live in the past.
        client.force_login(moderator)
        moved = article_form_data(article.slug, action="publish", go_live_at="2031-03-04 08:00")
        assert go_live_errors(client.post(edit_url(article), moved)) == [PAST_GO_LIVE]


def test_a_go_live_before_a_page_was_published_is_refused_if_it_never_went_live_by_it(client, demo, moderator):
    """An unpublished page's go-live that passed unpublished (never scheduled, never published since)."""
    from home.past_go_live import PAST_GO_LIVE

    article = ArticlePageFactory(parent=demo.blog, topics=[demo.topics["gpu-costs"]], live=False)
    article.go_live_at = GO_LIVE
    article.save_revision()
    with time_machine.travel(GO_LIVE + timedelta(days=1), tick=False):
        client.force_login(moderator)
        data = article_form_data(article.slug, action="publish", go_live_at="2031-03-04 09:00")
        assert go_live_errors(client.post(edit_url(article), data)) == [PAST_GO_LIVE]


@pytest.mark.parametrize(("go_live_at", "published"), [("2031-03-04 09:00", True), ("2031-03-04 10:00", False)])
def test_a_late_approval_in_the_editor_publishes_at_once_unless_the_go_live_is_moved(
    client, demo, editor, moderator, go_live_at, published
):
    """The editor asked for a time then ahead; approving after it (as from the dashboard)
    publishes at once. A moderator who types another past time while approving is refused."""
    from home.past_go_live import PAST_GO_LIVE

    with time_machine.travel(GO_LIVE - timedelta(days=1), tick=False):
        article = submit_scheduled(client, demo, editor, GO_LIVE)
    with time_machine.travel(GO_LIVE + timedelta(hours=3), tick=False):
        client.force_login(moderator)
        data = article_form_data(article.slug, go_live_at=go_live_at)
        data.update(APPROVE)
        response = client.post(edit_url(article), data)
        if published:
            assert response.status_code == 302, response.content.decode()[:2000]
        else:
            assert go_live_errors(response) == [PAST_GO_LIVE]
    article.refresh_from_db()
    assert article.live is published
