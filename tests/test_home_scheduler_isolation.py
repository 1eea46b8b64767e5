"""Scheduler isolation: a scheduled revision that cannot be published is rolled back, stays
scheduled, is reported (dashboard, moderators' e-mail, /readyz) and holds back nothing else."""

import io
from datetime import UTC, datetime, timedelta

from django.core import mail
from django.core.management import call_command

import pytest
import time_machine

from blog.models import ArticlePage, BlogIndexPage
from home.operations.models import ScheduledPublishFailure

from .factories import ArticlePageFactory, AuthorFactory, TopicPageFactory

pytestmark = pytest.mark.django_db

SCHEDULED_AT = datetime(2031, 3, 4, 9, 0, tzinfo=UTC)
FAILING_GO_LIVE = SCHEDULED_AT + timedelta(days=1)  # due first, so it is tried before the others
HEALTHY_GO_LIVE = FAILING_GO_LIVE + timedelta(minutes=1)
EXPIRY = FAILING_GO_LIVE + timedelta(minutes=2)
RUN_AT = FAILING_GO_LIVE + timedelta(minutes=10)


def run_scheduler() -> str:
    out = io.StringIO()
    call_command("run_scheduler", "--once", stdout=out, stderr=out)
    return out.getvalue()


def new_article(parent, live=True, **kwargs) -> ArticlePage:
    """An article under ``parent`` that the editor's checks let go live: published (with a live
    revision) or a draft."""
    article = ArticlePageFactory(parent=parent, live=live, publishable=True, **kwargs)
    if live:
        article.save_revision().publish()
    return article


def schedule(page, go_live_at, **changes):
    """Save a new revision of ``page`` with ``changes`` and approve it to go live at ``go_live_at``."""
    page = ArticlePage.objects.get(pk=page.pk)
    for name, value in changes.items():
        setattr(page, name, value)
    page.go_live_at = go_live_at
    revision = page.save_revision()
    revision.publish()
    revision.refresh_from_db()
    assert revision.approved_go_live_at == go_live_at
    return revision


def slug_taken_meanwhile(demo):
    article = new_article(demo.blog, slug="first-slug")
    revision = schedule(article, FAILING_GO_LIVE, slug="wanted-slug")
    new_article(demo.blog, slug="wanted-slug")
    return revision


def parent_unpublished_meanwhile(demo):
    second_blog = demo.home.add_child(instance=BlogIndexPage(title="Archive", slug="archive"))
    article = new_article(second_blog, live=False)
    revision = schedule(article, FAILING_GO_LIVE)
    second_blog.unpublish()
    return revision


def edited(field, value):
    def make(demo):
        revision = schedule(new_article(demo.blog, live=False), FAILING_GO_LIVE)
        revision.content[field] = value
        revision.save(update_fields=["content"])
        return revision

    return make


def only_one_gone_meanwhile(relation: str, how: str):
    """A kind of failure: the article's only topic (``relation`` "topics") or author ("authors")
    deleted (``how`` "delete") or unpublished ("unpublish") after its go-live was approved."""

    def make(demo):
        if relation == "topics":
            related = TopicPageFactory(parent=demo.blog, title="Short-lived topic")
        else:
            related = AuthorFactory(name="Short-lived Author")
        revision = schedule(new_article(demo.blog, live=False, **{relation: [related]}), FAILING_GO_LIVE)
        getattr(type(related).objects.get(pk=related.pk), how)()
        return revision

    return make


# What each kind of failure's report says, in the editor's words (where ours, not Django's).
REASONS = {
    "parent unpublished meanwhile": "is not published",
    "only topic deleted meanwhile": "Choose at least one topic",
    "only author deleted meanwhile": "Authors: This field cannot be blank.",
    "only topic unpublished meanwhile": "Choose at least one published topic",
    "only author unpublished meanwhile": "Choose at least one published author",
    "zero-width title": "Enter a title readers can see",
    "title of spaces": "Enter a title readers can see",
}

FAILURES = {
    "slug taken meanwhile": slug_taken_meanwhile,
    "parent unpublished meanwhile": parent_unpublished_meanwhile,
    "only topic deleted meanwhile": only_one_gone_meanwhile("topics", "delete"),
    "only author deleted meanwhile": only_one_gone_meanwhile("authors", "delete"),
    "only topic unpublished meanwhile": only_one_gone_meanwhile("topics", "unpublish"),
    "only author unpublished meanwhile": only_one_gone_meanwhile("authors", "unpublish"),
    "blank title": edited("title", ""),
    "zero-width title": edited("title", "\u200b\u200d"),
    "title of spaces": edited("title", "\u00a0 \u3000"),
    "summary over its limit": edited("summary", "x" * 5000),
    "slug with a space": edited("slug", "not a slug"),
}


@pytest.fixture
def scheduled(demo, moderator):
    """One failing go-live (per kind), one healthy go-live and one expiry, all due by RUN_AT."""

    def make(kind):
        with time_machine.travel(SCHEDULED_AT, tick=False):
            failing = FAILURES[kind](demo)
            healthy = new_article(demo.blog, live=False, title="Healthy go-live", date_published=None)
            schedule(healthy, HEALTHY_GO_LIVE)
            expiring = ArticlePage.objects.get(pk=demo.articles[0].pk)
            expiring.expire_at = EXPIRY
            expiring.save_revision().publish()
        return failing, healthy, expiring

    return make


@pytest.mark.parametrize("kind", FAILURES)
def test_a_failing_revision_holds_back_nothing_and_stays_scheduled(scheduled, kind):
    failing, healthy, expiring = scheduled(kind)
    with time_machine.travel(RUN_AT, tick=False):
        output = run_scheduler()
    healthy.refresh_from_db()
    expiring.refresh_from_db()
    failing.refresh_from_db()
    assert healthy.live and healthy.date_published == RUN_AT, kind
    assert not expiring.live and expiring.expired, kind
    # Rolled back and still scheduled: the next run tries again.
    assert failing.approved_go_live_at == FAILING_GO_LIVE, kind
    assert failing.content_object.live_revision_id != failing.pk, kind
    failure = ScheduledPublishFailure.objects.get(revision=failing)
    assert failure.error and failure.attempts == 1, kind
    assert REASONS.get(kind, "") in failure.error, (kind, failure.error)
    assert "Could not carry out the scheduled change" in output, kind


@pytest.mark.parametrize("kind", FAILURES)
def test_the_moderators_are_told_once(scheduled, moderator, kind):
    failing, _, _ = scheduled(kind)
    with time_machine.travel(RUN_AT, tick=False):
        run_scheduler()
    with time_machine.travel(RUN_AT + timedelta(minutes=1), tick=False):
        run_scheduler()
    assert len(mail.outbox) == 1, kind
    assert mail.outbox[0].to == [moderator.email]
    assert failing.object_str in mail.outbox[0].body
    assert ScheduledPublishFailure.objects.get(revision=failing).attempts == 2


@pytest.mark.parametrize("kind", ["slug taken meanwhile", "blank title"])
def test_readyz_lists_the_failure_and_stays_ready(client, scheduled, kind):
    failing, _, _ = scheduled(kind)
    with time_machine.travel(RUN_AT, tick=False):
        run_scheduler()
    with time_machine.travel(RUN_AT + timedelta(hours=1), tick=False):
        response = client.get("/readyz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["checks"]["scheduler"] == "ok"
    [listed] = body["scheduled_failures"]
    assert listed["revision"] == failing.pk
    assert listed["error"] == ScheduledPublishFailure.objects.get().error


@pytest.mark.parametrize("kind", ["parent unpublished meanwhile", "summary over its limit"])
def test_the_dashboard_shows_the_failure(admin_client, scheduled, kind):
    failing, _, _ = scheduled(kind)
    assert "could not be published" not in admin_client.get("/admin/").content.decode()
    with time_machine.travel(RUN_AT, tick=False):
        run_scheduler()
    page = admin_client.get("/admin/").content.decode()
    assert "Scheduled changes that could not be published" in page
    assert f"/admin/pages/{failing.object_id}/edit/" in page


def test_a_fixed_revision_goes_live_on_the_next_run_and_its_report_goes(demo, scheduled):
    failing, _, _ = scheduled("parent unpublished meanwhile")
    with time_machine.travel(RUN_AT, tick=False):
        run_scheduler()
    parent = failing.content_object.get_parent().specific
    parent.save_revision().publish()
    with time_machine.travel(RUN_AT + timedelta(minutes=1), tick=False):
        run_scheduler()
    article = ArticlePage.objects.get(pk=failing.object_id)
    assert article.live and article.live_revision_id == failing.pk
    assert not ScheduledPublishFailure.objects.exists()


def test_daily_maintenance_runs_once_a_day_and_a_failing_task_holds_back_nothing(monkeypatch):
    """Apps register their daily work with ``home.operations.maintenance`` (search trims its log);
    a task that raises is reported by name and tried again on the next run, the others still run."""
    from home.operations import maintenance
    from home.operations.management.commands.run_scheduler import Command

    calls = []
    failing = iter([RuntimeError("disk full"), None])

    def flaky():
        calls.append("flaky")
        if error := next(failing, None):
            raise error

    monkeypatch.setattr(maintenance, "_daily", {})
    maintenance.register_daily("flaky", flaky)
    maintenance.register_daily("steady", lambda: calls.append("steady"))
    out = io.StringIO()
    command = Command(stdout=out, stderr=out)
    with time_machine.travel(RUN_AT, tick=False):
        command.run_daily_tasks()
    assert calls == ["flaky", "steady"]
    assert "flaky failed: RuntimeError('disk full')" in out.getvalue()
    with time_machine.travel(RUN_AT + timedelta(minutes=1), tick=False):
        command.run_daily_tasks()
        command.run_daily_tasks()
    assert calls == ["flaky", "steady", "flaky"]  # retried once, then done for the day
    with time_machine.travel(RUN_AT + timedelta(days=1), tick=False):
        command.run_daily_tasks()
    assert calls == ["flaky", "steady", "flaky", "flaky", "steady"]
