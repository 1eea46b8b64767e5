"""Content states: copies are new articles, a scheduled article is dated when it goes live, and
an expired article can be edited and republished."""

import io
from datetime import UTC, datetime, timedelta

from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from wagtail.models import Page

import pytest
import time_machine

from blog.models import ArticlePage, ReviewerLink

from .admin_forms import article_form_data

pytestmark = pytest.mark.django_db

T0 = datetime(2031, 3, 4, 9, 0, tzinfo=UTC)


def run_scheduler():
    call_command("run_scheduler", "--once", stdout=io.StringIO(), stderr=io.StringIO())


def local_minutes(moment) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M")


# Copies ---------------------------------------------------------------------------------------


def published(article):
    return article


def scheduled_change(article):
    article.title = "A scheduled new title"
    article.go_live_at = T0 + timedelta(days=30)
    article.save_revision().publish()
    return article


def with_expiry(article):
    article.expire_at = T0 + timedelta(days=60)
    article.save_revision().publish()
    return article


def expired(article):
    article = with_expiry(article)
    with time_machine.travel(T0 + timedelta(days=61), tick=False):
        run_scheduler()
    article.refresh_from_db()
    assert article.expired
    return article


def with_reviewer_links(article):
    article.title = "A draft shared with reviewers"
    revision = article.save_revision()
    for _ in range(2):
        ReviewerLink.objects.create(page=article, revision=revision, expires_at=T0 + timedelta(days=7))
    return article


SOURCES = {
    "published": published,
    "live with a scheduled change": scheduled_change,
    "with an expiry time": with_expiry,
    "expired": expired,
    "with reviewer links": with_reviewer_links,
}


@pytest.fixture
def source(demo):
    def make(kind):
        with time_machine.travel(T0, tick=False):
            return SOURCES[kind](ArticlePage.objects.get(pk=demo.articles[0].pk))

    return make


def assert_new_article(copy: ArticlePage):
    assert copy.go_live_at is None and copy.expire_at is None and not copy.expired
    assert not copy.reviewer_links.exists()
    assert not copy.revisions.filter(approved_go_live_at__isnull=False).exists()
    content = copy.get_latest_revision().content
    assert content.get("go_live_at") is None and content.get("expire_at") is None
    assert content.get("date_published") is None or copy.live


COPIED_AT = T0 + timedelta(days=90)


def copy_at_copied_at(original, keep_live: bool) -> ArticlePage:
    """``original`` copied beside itself at COPIED_AT (Page.copy, as the admin's copy view does)."""
    with time_machine.travel(COPIED_AT, tick=False):
        copy = original.copy(update_attrs={"slug": "the-copy", "title": "The copy"}, keep_live=keep_live)
    return ArticlePage.objects.get(pk=copy.pk)


@pytest.mark.parametrize("kind", SOURCES)
def test_a_copy_is_undated_and_unscheduled_until_it_is_published(source, kind):
    original = source(kind)
    copy = copy_at_copied_at(original, keep_live=False)
    assert not copy.live
    assert copy.date_published is None and copy.first_published_at is None, kind
    assert_new_article(copy)

    published_at = COPIED_AT + timedelta(days=3)
    with time_machine.travel(published_at, tick=False):
        copy.get_latest_revision().publish()
    copy.refresh_from_db()
    assert copy.live and not copy.expired
    assert copy.date_published == published_at and copy.first_published_at == published_at, kind
    assert ArticlePage.objects.get(pk=original.pk).date_published != published_at


@pytest.mark.parametrize("kind", SOURCES)
def test_a_copy_kept_live_is_dated_when_copied(source, kind):
    original = source(kind)
    copy = copy_at_copied_at(original, keep_live=True)
    if original.live:
        assert copy.date_published == COPIED_AT and copy.first_published_at == COPIED_AT, kind
    else:  # an expired page is copied as a draft
        assert copy.date_published is None, kind
    assert_new_article(copy)


@pytest.mark.parametrize("kind", ["published", "with an expiry time", "with reviewer links"])
def test_the_admin_copy_view_makes_a_new_article(admin_client, demo, source, kind):
    original = source(kind)
    response = admin_client.post(
        f"/admin/pages/{original.pk}/copy/",
        {"new_title": "The copy", "new_slug": "the-copy", "new_parent_page": demo.blog.pk},
    )
    assert response.status_code == 302
    copy = ArticlePage.objects.get(slug="the-copy")
    assert copy.date_published is None and copy.first_published_at is None
    assert_new_article(copy)


# Publication date of an article created and scheduled in one step -----------------------------


@pytest.mark.parametrize("delay", [timedelta(minutes=5), timedelta(days=1), timedelta(days=40)])
@pytest.mark.parametrize("action", ["publish", "submit-then-approve"])
def test_created_and_scheduled_in_one_step_is_dated_when_it_goes_live(client, demo, editor, moderator, delay, action):
    go_live = T0 + delay
    add = reverse("wagtailadmin_pages:add", args=("blog", "articlepage", demo.blog.pk))
    with time_machine.travel(T0, tick=False):
        user = moderator if action == "publish" else editor
        client.force_login(user)
        data = article_form_data("scheduled-at-once", action=action.split("-")[0], go_live_at=local_minutes(go_live))
        response = client.post(add, data)
        assert response.status_code == 302, response.content.decode()[:2000]
        article = ArticlePage.objects.get(slug="scheduled-at-once")
        if action != "publish":
            client.force_login(moderator)
            state = article.current_workflow_task_state
            url = reverse("wagtailadmin_pages:workflow_action", args=(article.pk, "approve", state.pk))
            assert client.post(url, {"comment": ""}).status_code == 302
        article.refresh_from_db()
        assert not article.live and article.date_published is None
    went_live = go_live + timedelta(seconds=30)
    with time_machine.travel(went_live, tick=False):
        run_scheduler()
    article.refresh_from_db()
    assert article.live
    assert article.date_published == went_live == article.first_published_at


def test_an_article_published_at_once_is_dated_at_once(client, demo, moderator):
    add = reverse("wagtailadmin_pages:add", args=("blog", "articlepage", demo.blog.pk))
    with time_machine.travel(T0, tick=False):
        client.force_login(moderator)
        assert client.post(add, article_form_data("published-now", action="publish")).status_code == 302
    assert ArticlePage.objects.get(slug="published-now").date_published == T0


# After expiry ---------------------------------------------------------------------------------


EXPIRES = T0 + timedelta(days=10)


@pytest.fixture
def expired_article(demo):
    with time_machine.travel(T0, tick=False):
        article = ArticlePage.objects.get(pk=demo.articles[0].pk)
        article.expire_at = EXPIRES
        article.save_revision().publish()
    with time_machine.travel(EXPIRES + timedelta(minutes=1), tick=False):
        run_scheduler()
    article.refresh_from_db()
    assert article.expired and not article.live
    return article


def edit(client, user, article, when, action=None, **fields):
    """POST the article's edit form at ``when`` as ``user``; returns the response."""
    with time_machine.travel(when, tick=False):
        client.force_login(user)
        data = article_form_data(
            article.slug,
            action=action,
            title=article.title,
            topics=list(article.topics.values_list("pk", flat=True)),
            authors=list(article.authors.values_list("pk", flat=True)),
            **fields,
        )
        return client.post(reverse("wagtailadmin_pages:edit", args=(article.pk,)), data)


LATER = EXPIRES + timedelta(days=5)


@pytest.mark.parametrize("action", [None, "publish", "submit"])
def test_an_expired_article_with_its_old_expiry_untouched_saves_and_publishes(
    client, expired_article, moderator, action
):
    response = edit(client, moderator, expired_article, LATER, action=action, expire_at=local_minutes(EXPIRES))
    assert response.status_code == 302, response.content.decode()[:3000]
    article = ArticlePage.objects.get(pk=expired_article.pk)
    assert article.get_latest_revision().content.get("expire_at") is None
    if action == "publish":
        assert article.live and not article.expired and article.expire_at is None
        with time_machine.travel(LATER + timedelta(minutes=2), tick=False):
            run_scheduler()
        assert ArticlePage.objects.get(pk=article.pk).live


@pytest.mark.parametrize("action", [None, "publish"])
def test_an_expired_article_with_no_expiry_or_a_future_one_republishes(client, expired_article, moderator, action):
    for expire_at in ("", local_minutes(LATER + timedelta(days=30))):
        response = edit(client, moderator, expired_article, LATER, action=action, expire_at=expire_at)
        assert response.status_code == 302, (expire_at, response.content.decode()[:3000])
    if action == "publish":
        assert ArticlePage.objects.get(pk=expired_article.pk).live


@pytest.mark.parametrize(
    "past",
    [
        EXPIRES - timedelta(days=1),
        EXPIRES + timedelta(minutes=5),
        LATER - timedelta(minutes=1),
        T0 - timedelta(days=400),
    ],
)
@pytest.mark.parametrize("action", [None, "publish"])
def test_a_past_expiry_the_editor_sets_is_still_refused(client, expired_article, moderator, past, action):
    response = edit(client, moderator, expired_article, LATER, action=action, expire_at=local_minutes(past))
    assert response.status_code == 200
    assert "Expiry date/time must be in the future." in response.content.decode()
    assert not Page.objects.get(pk=expired_article.pk).live


def test_a_live_article_keeps_refusing_a_past_expiry(client, demo, moderator):
    article = ArticlePage.objects.get(pk=demo.articles[0].pk)
    response = edit(client, moderator, article, T0, action="publish", expire_at=local_minutes(T0 - timedelta(hours=1)))
    assert response.status_code == 200
    assert "Expiry date/time must be in the future." in response.content.decode()
