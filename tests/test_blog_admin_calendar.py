"""The editorial calendar: a month of published and scheduled articles, with hostile ?month= values."""

from datetime import UTC, datetime

from django.utils import timezone

import pytest
import time_machine

from blog.admin_views import parse_month, shift_month
from blog.models import ArticlePage

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
    "month",
    [
        "",
        "2026",
        "2026-13",
        "2026-00",
        "2026-1",
        "0000-01",
        "9999-12",
        "3000-01",
        "1969-12",
        "１２３４-05",
        "2026-11-01",
        "x" * 500,
    ],
)
def test_bad_month_values_fall_back_to_this_month_with_a_warning(admin_client, demo, month):
    response = admin_client.get(URL, {"month": month})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Choose a month as YYYY-MM from 1970-01 to 2999-12" in html
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


# "+ New article": which days pre-fill the go-live (blog/calendar_scheduling.go_live_for_day). The
# editor's form refuses a go-live in the past and a time some zone cannot show, so only a time it
# accepts is filled in; for anything else the field stays empty with a warning.

NOT_A_DAY = {
    "": "the link gave no date",
    " ": "the link gave no date",
    "2031-13-01": "is not a date written YYYY-MM-DD",
    "2031-02-30": "is not a date written YYYY-MM-DD",
    "2031-02-29": "is not a date written YYYY-MM-DD",  # 2031 is not a leap year
    "0000-01-01": "is not a date written YYYY-MM-DD",
    "10000-01-01": "is not a date written YYYY-MM-DD",
    "14/03/2031": "is not a date written YYYY-MM-DD",
    "2031-03": "is not a date written YYYY-MM-DD",
    "20310314": "is not a date written YYYY-MM-DD",
    "2031-W11-5": "is not a date written YYYY-MM-DD",
    "2031-03-14T09:00": "is not a date written YYYY-MM-DD",
    "2031-03-14 09:00": "is not a date written YYYY-MM-DD",
    "2031-03-14\x00": "is not a date written YYYY-MM-DD",
    "tomorrow": "is not a date written YYYY-MM-DD",
    "-1": "is not a date written YYYY-MM-DD",
    "<b>2031-03-14</b>": "is not a date written YYYY-MM-DD",
    "x" * 400: "is not a date written YYYY-MM-DD",
    "2020-01-01": "2020-01-01 has passed. Choose today or a later day.",
    "0001-01-01": "0001-01-01 has passed. Choose today or a later day.",
    "9999-12-30": "9999-12-30 is too far ahead. Enter a date between 0001-01-02 and 9999-12-29",
    "9999-12-31": "9999-12-31 is too far ahead. Enter a date between 0001-01-02 and 9999-12-29",
}
TODAY = datetime(2031, 3, 14, 6, 0, tzinfo=UTC)  # 07:00 in Berlin


def add_page(client, demo, value, *, user, zone="Europe/Berlin"):
    """The new-article form from the calendar link for ``value``, as ``user`` in ``zone``: (html, go-live shown)."""
    from wagtail.users.models import UserProfile

    profile = UserProfile.get_for_user(user)
    profile.current_time_zone = zone
    profile.save()
    client.force_login(user)
    response = client.get(f"/admin/pages/add/blog/articlepage/{demo.blog.pk}/", {"go_live_at": value})
    assert response.status_code == 200
    html = response.content.decode()
    field = html.split('name="go_live_at"', 1)[1].split(">", 1)[0]
    shown = field.split('value="', 1)[1].split('"', 1)[0] if 'value="' in field else None
    return html, shown


@pytest.mark.parametrize("value", NOT_A_DAY, ids=lambda value: ascii(value)[:24])
def test_days_the_form_would_refuse_leave_the_field_empty_with_a_warning(client, demo, editor, value):
    with time_machine.travel(TODAY, tick=False):
        html, shown = add_page(client, demo, value, user=editor)
    assert shown is None
    messages = html.split('<div class="messages"', 1)[1].split("</ul>", 1)[0]
    assert "The go-live date was not filled in: " in messages
    assert NOT_A_DAY[value] in messages.replace("&quot;", '"')
    assert "date. (" not in messages and "(use YYYY-MM-DD)" not in messages  # one sentence, not two glued


@pytest.mark.parametrize(
    ("now", "value", "expected"),
    [
        # In Berlin (UTC+1 in winter, +2 in summer), whatever the site's zone (UTC in the tests).
        (datetime(2031, 3, 14, 7, 59, tzinfo=UTC), "2031-03-14", None),  # 08:59 in Berlin: 09:00 UTC is ahead
        (datetime(2031, 3, 14, 7, 0, tzinfo=UTC), "2031-03-14", None),  # 08:00 in Berlin
        (datetime(2031, 3, 14, 8, 0, tzinfo=UTC), "2031-03-14", "passed"),  # 09:00 in Berlin: not ahead
        (datetime(2031, 3, 14, 8, 30, tzinfo=UTC), "2031-03-14", "passed"),  # 09:30 in Berlin, 08:30 UTC
        (datetime(2031, 3, 14, 22, 30, tzinfo=UTC), "2031-03-14", "passed"),
        (datetime(2031, 3, 14, 23, 30, tzinfo=UTC), "2031-03-14", "has passed. Choose today"),  # the 15th in Berlin
        (datetime(2031, 3, 14, 23, 30, tzinfo=UTC), "2031-03-15", None),
        (datetime(2031, 3, 14, 8, 30, tzinfo=UTC), "2031-03-15", None),
        (datetime(2031, 3, 14, 8, 30, tzinfo=UTC), "2031-03-13", "has passed. Choose today"),
    ],
)
def test_today_is_filled_in_only_before_nine_in_the_editors_zone(client, demo, editor, now, value, expected):
    with time_machine.travel(now, tick=False):
        html, shown = add_page(client, demo, value, user=editor)
    if expected is None:
        assert shown == f"{value} 09:00"
        assert "The go-live date was not filled in" not in html
    else:
        assert shown is None
        assert expected in html
        if expected == "passed":
            assert "09:00 today has passed. Set a later time in the Settings tab" in html


@pytest.mark.parametrize(
    ("now", "value", "stored"),
    [
        # Leap day.
        (datetime(2032, 2, 28, 12, 0, tzinfo=UTC), "2032-02-29", datetime(2032, 2, 29, 8, 0, tzinfo=UTC)),
        # Berlin's clocks go forward on 2031-03-30 at 02:00 (09:00 is CEST, UTC+2) and back on
        # 2031-10-26 at 03:00 (09:00 is CET, UTC+1); before 09:00 local that day it is filled in.
        (datetime(2031, 3, 30, 6, 45, tzinfo=UTC), "2031-03-30", datetime(2031, 3, 30, 7, 0, tzinfo=UTC)),
        (datetime(2031, 10, 26, 7, 45, tzinfo=UTC), "2031-10-26", datetime(2031, 10, 26, 8, 0, tzinfo=UTC)),
        (datetime(2031, 3, 14, 6, 0, tzinfo=UTC), "2031-03-30", datetime(2031, 3, 30, 7, 0, tzinfo=UTC)),
        # The last day every zone can show, ahead of any editor.
        (datetime(2031, 3, 14, 6, 0, tzinfo=UTC), "9999-12-29", datetime(9999, 12, 29, 8, 0, tzinfo=UTC)),
    ],
)
def test_a_filled_in_go_live_is_the_time_the_form_saves(client, demo, editor, now, value, stored):
    """What the link fills in, the editor's form accepts as it is (Save draft), as 09:00 in their zone."""
    from .admin_forms import article_form_data

    with time_machine.travel(now, tick=False):
        _html, shown = add_page(client, demo, value, user=editor)
        assert shown == f"{value} 09:00"
        data = article_form_data("from-the-calendar", go_live_at=shown)
        response = client.post(f"/admin/pages/add/blog/articlepage/{demo.blog.pk}/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert ArticlePage.objects.get(slug="from-the-calendar").go_live_at == stored


@pytest.mark.parametrize("now", [datetime(2031, 3, 30, 7, 15, tzinfo=UTC), datetime(2031, 10, 26, 8, 0, tzinfo=UTC)])
def test_on_a_clock_change_day_nine_has_passed_by_the_local_clock(client, demo, editor, now):
    """09:15 CEST on the spring day (07:15 UTC, 08:15 by winter time) and 09:00 CET in the autumn."""
    with time_machine.travel(now, tick=False):
        html, shown = add_page(client, demo, f"{now:%Y-%m-%d}", user=editor)
    assert shown is None and "09:00 today has passed" in html


@pytest.mark.parametrize(
    ("zone", "value", "filled"),
    [
        # 9999-12-30 09:00 is 9999-12-29 19:00 UTC at UTC+14, which every zone can show ...
        ("Pacific/Kiritimati", "9999-12-30", True),
        # ... and 9999-12-30 21:00 UTC at UTC-12, which zones east of UTC cannot.
        ("Etc/GMT+12", "9999-12-30", False),
        ("Etc/GMT+12", "9999-12-29", True),
        ("UTC", "9999-12-30", False),
    ],
)
def test_the_far_end_of_the_calendar_follows_the_forms_own_bound(client, demo, editor, zone, value, filled):
    from .admin_forms import article_form_data

    with time_machine.travel(TODAY, tick=False):
        html, shown = add_page(client, demo, value, user=editor, zone=zone)
        assert (shown == f"{value} 09:00") is filled and (shown is None) is not filled
        if filled:
            response = client.post(
                f"/admin/pages/add/blog/articlepage/{demo.blog.pk}/", article_form_data("far-end", go_live_at=shown)
            )
            assert response.status_code == 302, response.content.decode()[:3000]
        else:
            assert "is too far ahead" in html


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
