"""The editorial calendar: a month of published and scheduled articles, with hostile ?month= values."""

from datetime import UTC, datetime

from django.utils import timezone

import pytest

from blog.admin_views import parse_month, shift_month

from .factories import ArticlePageFactory

pytestmark = pytest.mark.django_db

URL = "/admin/calendar/"


@pytest.mark.parametrize("user_fixture", ["editor", "moderator"])
def test_calendar_loads_for_editors_and_moderators_and_is_in_the_menu(client, demo, request, user_fixture):
    client.force_login(request.getfixturevalue(user_fixture))
    response = client.get(URL)
    assert response.status_code == 200
    assert "Editorial calendar" in response.content.decode()
    assert '"/admin/calendar/"' in client.get("/admin/").content.decode()  # the sidebar menu's JSON


def test_month_shows_published_and_scheduled_articles_linking_to_the_editor(admin_client, demo):
    article = demo.articles[0]
    month = timezone.localtime(article.date_published).strftime("%Y-%m")
    html = admin_client.get(URL, {"month": month}).content.decode()
    assert f'href="/admin/pages/{article.pk}/edit/"' in html
    assert "Published" in html

    scheduled = ArticlePageFactory(
        parent=demo.blog, title="Launch post", live=False, topics=[demo.topics["gpu-costs"]]
    )
    scheduled.go_live_at = datetime(2031, 3, 14, 9, 30, tzinfo=UTC)
    scheduled.save_revision().publish()
    html = admin_client.get(URL, {"month": "2031-03"}).content.decode()
    assert f'href="/admin/pages/{scheduled.pk}/edit/"' in html
    assert "Scheduled 09:30" in html
    assert "1 entry this month" in html
    assert "Times are in UTC." in html
    assert "Launch post" not in admin_client.get(URL, {"month": "2031-04"}).content.decode()
    assert 'href="?month=2031-02"' in html and 'href="?month=2031-04"' in html


def test_calendar_only_lists_articles_the_user_may_edit(client, demo):
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group, Permission

    user = get_user_model().objects.create_user(username="viewer", password="x")
    group = Group.objects.create(name="Admin access only")
    group.permissions.add(Permission.objects.get(codename="access_admin"))
    user.groups.add(group)
    client.force_login(user)
    article = demo.articles[0]
    month = timezone.localtime(article.date_published).strftime("%Y-%m")
    html = client.get(URL, {"month": month}).content.decode()
    assert "0 entries this month" in html


@pytest.mark.parametrize(
    "month", ["", "2026", "2026-13", "2026-00", "2026-1", "0000-01", "9999-12", "１２３４-05", "2026-11-01", "x" * 500]
)
def test_bad_month_values_fall_back_to_this_month_with_a_warning(admin_client, demo, month):
    response = admin_client.get(URL, {"month": month})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Choose a month as YYYY-MM" in html
    assert timezone.localdate().strftime("%B %Y") in html


def test_month_helpers_and_range_ends(admin_client, demo):
    assert parse_month("2026-11").isoformat() == "2026-11-01"
    assert parse_month("1969-12") is None
    assert shift_month(parse_month("2026-12"), 1).isoformat() == "2027-01-01"
    assert shift_month(parse_month("1970-01"), -1) is None
    html = admin_client.get(URL, {"month": "2999-12"}).content.decode()
    assert "Next month" not in html and "December 2999" in html


def test_calendar_query_count_does_not_grow_with_entries(admin_client, demo):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def count():
        with CaptureQueriesContext(connection) as queries:
            assert admin_client.get(URL, {"month": "2031-03"}).status_code == 200
        return len(queries)

    topic = demo.topics["gpu-costs"]

    def schedule(day):
        page = ArticlePageFactory(parent=demo.blog, live=False, topics=[topic])
        page.go_live_at = datetime(2031, 3, day, 9, tzinfo=UTC)
        page.save_revision().publish()

    schedule(1)
    count()  # each count after a warm request: publishing empties what requests remember
    before = count()
    for day in range(2, 7):
        schedule(day)
    count()
    assert count() == before


# Drafts, reviews, new articles from a day and moving a schedule (issue 16, the workspace).

MOVE_URL = "/admin/calendar/move/"


def ready_article(demo, title="Launch post", **kwargs):
    """An unpublished article that passes the publish gates."""
    return ArticlePageFactory(
        parent=demo.blog,
        title=title,
        live=False,
        image_alt="A rack of GPUs.",
        search_description="What the launch changes.",
        topics=[demo.topics["gpu-costs"]],
        **kwargs,
    )


def scheduled_article(demo, when=datetime(2031, 3, 14, 9, 30, tzinfo=UTC), title="Launch post"):
    page = ready_article(demo, title=title)
    page.go_live_at = when
    page.save_revision().publish()
    page.refresh_from_db()
    return page


def test_drafts_and_reviews_appear_beside_published_and_scheduled_with_their_own_label(admin_client, demo, editor):
    scheduled_article(demo)
    draft = ready_article(demo, title="Half-written post")
    draft.go_live_at = datetime(2031, 3, 10, 8, 0, tzinfo=UTC)
    draft.save()
    draft.save_revision(user=editor)
    review = ready_article(demo, title="Post under review")
    review.go_live_at = datetime(2031, 3, 12, 7, 0, tzinfo=UTC)
    review.save()
    review.save_revision(user=editor)
    review.get_workflow().start(review, editor)
    html = admin_client.get(URL, {"month": "2031-03"}).content.decode()
    assert "3 entries this month" in html
    for css, label, title in [
        ("scheduled", "Scheduled 09:30", "Launch post"),
        ("draft", "Draft 08:00", "Half-written post"),
        ("in-review", "In review 07:00", "Post under review"),
    ]:
        assert f'<li class="calendar-entry calendar-entry--{css}">' in html
        item = html.split(f'<li class="calendar-entry calendar-entry--{css}">', 1)[1].split("</li>", 1)[0]
        assert label in item and title in item  # a text label, not colour alone
    # A draft's date_published (a plan) does not make it "Published".
    assert '<li class="calendar-entry calendar-entry--published">' not in html


def test_a_draft_without_a_go_live_is_on_the_day_of_its_latest_revision(admin_client, demo):
    draft = ready_article(demo, title="Undated draft")
    draft.save_revision()
    html = admin_client.get(URL).content.decode()
    assert "calendar-entry--draft" in html and "Undated draft" in html


def test_editor_starts_an_article_from_a_day_with_the_go_live_filled_in(client, demo, editor):
    client.force_login(editor)
    html = client.get(URL, {"month": "2031-03"}).content.decode()
    add_url = f"/admin/pages/add/blog/articlepage/{demo.blog.pk}/"
    assert f'href="{add_url}?go_live_at=2031-03-14"' in html
    form = client.get(add_url, {"go_live_at": "2031-03-14"}).content.decode()
    assert 'value="2031-03-14 09:00"' in form
    # The next add page (same thread) starts empty again.
    assert 'value="2031-03-14 09:00"' not in client.get(add_url).content.decode()


def test_no_new_article_links_on_past_days(client, demo, editor):
    client.force_login(editor)
    html = client.get(URL, {"month": "2020-03"}).content.decode()
    assert "go_live_at=" not in html


@pytest.mark.parametrize(
    "value", ["", "2031-13-01", "2031-02-30", "14/03/2031", "2020-01-01", "tomorrow", "2031-03-14T09:00", "x" * 400]
)
def test_bad_go_live_days_leave_the_field_empty_with_a_warning(client, demo, editor, value):
    client.force_login(editor)
    response = client.get(f"/admin/pages/add/blog/articlepage/{demo.blog.pk}/", {"go_live_at": value})
    assert response.status_code == 200
    html = response.content.decode()
    assert "The go-live date was not filled in" in html
    assert 'name="go_live_at" value=' not in html


def test_moderator_moves_a_scheduled_article_to_another_day(client, demo, moderator):
    from wagtail.models import PageLogEntry

    page = scheduled_article(demo)
    old_revision = page.latest_revision
    client.force_login(moderator)
    html = client.get(URL, {"month": "2031-03"}).content.decode()
    assert f'action="{MOVE_URL}"' in html and "csrfmiddlewaretoken" in html
    response = client.post(MOVE_URL, {"page": page.pk, "day": "2031-03-20", "month": "2031-03"}, follow=True)
    assert response.status_code == 200, response.redirect_chain
    assert "now goes live on 2031-03-20 at 09:30" in response.content.decode()
    page.refresh_from_db()
    new_revision = page.latest_revision
    assert new_revision.pk != old_revision.pk and new_revision.user == moderator
    assert new_revision.approved_go_live_at == datetime(2031, 3, 20, 9, 30, tzinfo=UTC)
    assert new_revision.as_object().go_live_at == datetime(2031, 3, 20, 9, 30, tzinfo=UTC)
    old_revision.refresh_from_db()
    assert old_revision.approved_go_live_at is None  # only one schedule
    assert not page.live
    assert PageLogEntry.objects.filter(page=page, action="wagtail.publish.schedule", user=moderator).exists()
    html = client.get(URL, {"month": "2031-03"}).content.decode()
    day_20 = html.split('datetime="2031-03-20"', 1)[1].split("</td>", 1)[0]
    assert "Launch post" in day_20 and "Scheduled 09:30" in day_20


def test_editors_cannot_move_schedules_and_see_no_move_form(client, demo, editor):
    page = scheduled_article(demo)
    client.force_login(editor)
    assert f'action="{MOVE_URL}"' not in client.get(URL, {"month": "2031-03"}).content.decode()
    # Wagtail's admin turns PermissionDenied into a redirect to the dashboard with its message.
    response = client.post(MOVE_URL, {"page": page.pk, "day": "2031-03-20"})
    assert response.status_code == 302 and response.headers["Location"] == "/admin/"
    page.refresh_from_db()
    assert page.latest_revision.approved_go_live_at == datetime(2031, 3, 14, 9, 30, tzinfo=UTC)


def test_move_needs_post_and_csrf(demo, moderator):
    from django.test import Client

    page = scheduled_article(demo)
    client = Client(enforce_csrf_checks=True)
    client.force_login(moderator)
    assert client.get(MOVE_URL, {"page": page.pk, "day": "2031-03-20"}).status_code == 405
    assert client.post(MOVE_URL, {"page": page.pk, "day": "2031-03-20"}).status_code == 403
    page.refresh_from_db()
    assert page.latest_revision.approved_go_live_at == datetime(2031, 3, 14, 9, 30, tzinfo=UTC)


@pytest.mark.parametrize("page_value", ["", "abc", "-1", "0", "1.5", "99999999999999", "1e3"])
def test_bad_article_ids_are_400(client, demo, moderator, page_value):
    client.force_login(moderator)
    assert client.post(MOVE_URL, {"page": page_value, "day": "2031-03-20"}).status_code == 400


def test_unknown_or_non_article_ids_are_404(client, demo, moderator):
    client.force_login(moderator)
    assert client.post(MOVE_URL, {"page": 987654, "day": "2031-03-20"}).status_code == 404
    assert client.post(MOVE_URL, {"page": demo.blog.pk, "day": "2031-03-20"}).status_code == 404


@pytest.mark.parametrize(
    ("day", "message"),
    [
        ("", "Choose the new day as a date"),
        ("2031-02-30", "Choose the new day as a date"),
        ("20/03/2031", "Choose the new day as a date"),
        ("2031-03-20T10:00", "Choose the new day as a date"),
        ("x" * 300, "Choose the new day as a date"),
        ("2020-01-01", "Choose a day in the future"),
        # Stored in UTC, a time on the calendar's last day cannot be shown east of UTC (a 500).
        ("9999-12-31", "cannot be shown in every time zone"),
    ],
)
def test_bad_days_are_form_errors_and_change_nothing(client, demo, moderator, day, message):
    page = scheduled_article(demo)
    revisions = page.revisions.count()
    client.force_login(moderator)
    response = client.post(MOVE_URL, {"page": page.pk, "day": day, "month": "2031-03"}, follow=True)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert response.redirect_chain[-1][0] == f"{URL}?month=2031-03"
    page.refresh_from_db()
    assert page.revisions.count() == revisions
    assert page.latest_revision.approved_go_live_at == datetime(2031, 3, 14, 9, 30, tzinfo=UTC)


def test_refused_moves_say_why(client, demo, moderator):
    client.force_login(moderator)
    draft = ready_article(demo, title="Never scheduled")
    draft.save_revision()
    response = client.post(MOVE_URL, {"page": draft.pk, "day": "2031-03-20"}, follow=True)
    assert "is not scheduled" in response.content.decode()

    page = scheduled_article(demo, title="Edited since")
    page.title = "Edited since, again"
    page.save_revision()
    response = client.post(MOVE_URL, {"page": page.pk, "day": "2031-03-20"}, follow=True)
    assert "has a newer draft" in response.content.decode()

    expiring = ready_article(demo, title="Short-lived")
    expiring.go_live_at = datetime(2031, 3, 14, 9, 30, tzinfo=UTC)
    expiring.expire_at = datetime(2031, 3, 18, 0, 0, tzinfo=UTC)
    expiring.save_revision().publish()
    response = client.post(MOVE_URL, {"page": expiring.pk, "day": "2031-03-20"}, follow=True)
    assert "expires on 2031-03-18" in response.content.decode()
    for article in (page, expiring):
        article.refresh_from_db()
        assert article.revisions.filter(approved_go_live_at__isnull=False).get().approved_go_live_at.day == 14


def test_a_move_goes_through_the_publish_gates(client, demo, moderator):
    page = scheduled_article(demo)
    # The scheduled content lost its meta description (e.g. made before the gate existed).
    revision = page.latest_revision
    revision.content["search_description"] = ""
    revision.save(update_fields=["content"])
    client.force_login(moderator)
    response = client.post(MOVE_URL, {"page": page.pk, "day": "2031-03-20"}, follow=True)
    assert "Write a meta description" in response.content.decode()
    assert page.revisions.count() == 1
