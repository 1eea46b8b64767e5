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
