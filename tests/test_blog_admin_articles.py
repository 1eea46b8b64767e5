"""The "Articles" admin listing (wagtail-modeladmin): status, filters, search, sorting, CSV export."""

import csv
import io
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from wagtail.models import Workflow

import pytest

from blog import editorial_status
from blog.models import ArticlePage

from .factories import ArticlePageFactory, AuthorFactory

pytestmark = pytest.mark.django_db

URL = "/admin/blog/articlepage/"


def csv_rows(response):
    body = b"".join(response.streaming_content).decode()
    return list(csv.DictReader(io.StringIO(body)))


@pytest.fixture
def lifecycle(demo):
    """One article in each status besides plain "live" (the demo's 98 articles are live)."""
    topic = demo.topics["gpu-costs"]
    now = timezone.now()
    make = lambda title, **kwargs: ArticlePageFactory(  # noqa: E731
        parent=demo.blog, title=title, topics=[topic], **kwargs
    )
    draft = make("Zz draft", live=False, date_published=None)
    draft.save_revision()

    review = make("Zz in review", live=False, date_published=None)
    review.save_revision()
    Workflow.objects.get(name="Moderators approval").start(review, user=None)

    scheduled = make("Zz scheduled", live=False, date_published=None)
    scheduled.go_live_at = now + timedelta(days=3)
    scheduled.save_revision().publish()

    newer = make("Zz live with draft")
    newer.save_revision().publish()
    newer.summary = "A newer draft."
    newer.save_revision()

    expired = make("Zz expired", live=False, expired=True)
    expired.save_revision()
    return {
        "draft": draft,
        "in-review": review,
        "scheduled": scheduled,
        "live-draft": newer,
        "expired": expired,
    }


def test_status_annotation_names_each_lifecycle_state(lifecycle):
    from blog.models import ArticlePage

    annotated = editorial_status.annotate_editorial_status(ArticlePage.objects.all())
    labels = {page.pk: editorial_status.status_label(page) for page in annotated}
    assert labels[lifecycle["draft"].pk] == "Draft"
    assert labels[lifecycle["in-review"].pk] == "In review"
    assert labels[lifecycle["scheduled"].pk] == "Scheduled"
    assert labels[lifecycle["live-draft"].pk] == "Live with newer draft"
    assert labels[lifecycle["expired"].pk] == "Expired"
    assert sum(label == "Live" for label in labels.values()) == 98


@pytest.mark.parametrize("user_fixture", ["editor", "moderator"])
def test_listing_loads_for_editors_and_moderators(client, demo, request, user_fixture):
    client.force_login(request.getfixturevalue(user_fixture))
    response = client.get(URL)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Articles" in html
    assert html.count("/admin/pages/") >= 50  # every row of the first page links to its page editor
    article = ArticlePage.objects.order_by("-latest_revision_created_at").first()  # the listing's order
    assert f'href="/admin/pages/{article.pk}/edit/"' in html


@pytest.mark.parametrize("status", ["draft", "in-review", "scheduled", "live-draft", "expired"])
def test_status_filter_returns_exactly_the_articles_in_that_status(admin_client, lifecycle, status):
    response = admin_client.get(URL, {"status": status, "export": "csv"})
    assert [row["Title"] for row in csv_rows(response)] == [lifecycle[status].title]


def test_live_filter_returns_the_demo_articles(admin_client, lifecycle, demo):
    rows = csv_rows(admin_client.get(URL, {"status": "live", "export": "csv"}))
    assert sorted(row["Title"] for row in rows) == sorted(article.title for article in demo.articles)


def test_topic_and_author_filters(admin_client, demo):
    topic = demo.topics["gpu-costs"]
    expected = {a.title for a in demo.articles if topic in a.topics.all()}
    rows = csv_rows(admin_client.get(URL, {"topic": topic.pk, "export": "csv"}))
    assert {row["Title"] for row in rows} == expected and 0 < len(expected) < 20

    author = AuthorFactory(name="Grace Hopper")
    mine = ArticlePageFactory(parent=demo.blog, title="By Grace", authors=[author], topics=[topic])
    rows = csv_rows(admin_client.get(URL, {"author": author.pk, "export": "csv"}))
    assert [row["Title"] for row in rows] == [mine.title]
    rows = csv_rows(admin_client.get(URL, {"author": author.pk, "topic": topic.pk, "export": "csv"}))
    assert [row["Title"] for row in rows] == [mine.title]


def test_search_matches_title_and_summary(admin_client, demo):
    topic = demo.topics["gpu-costs"]
    by_title = ArticlePageFactory(parent=demo.blog, title="Quokka migration notes", topics=[topic])
    by_summary = ArticlePageFactory(parent=demo.blog, summary="What a quokka taught us.", topics=[topic])
    rows = csv_rows(admin_client.get(URL, {"q": "QUOKKA", "export": "csv"}))
    assert {int(row["ID"]) for row in rows} == {by_title.pk, by_summary.pk}
    html = admin_client.get(URL, {"q": "quokka"}).content.decode()
    assert f'href="/admin/pages/{by_title.pk}/edit/"' in html


def test_sorting_by_title_column(admin_client, demo):
    rows = csv_rows(admin_client.get(URL, {"o": "0", "export": "csv"}))
    titles = [row["Title"] for row in rows]
    assert titles == sorted(titles)
    rows = csv_rows(admin_client.get(URL, {"o": "-0", "export": "csv"}))
    assert [row["Title"] for row in rows] == sorted(titles, reverse=True)


@pytest.mark.parametrize(
    "query",
    [
        {"status": "bogus"},
        {"topic": "abc"},
        {"topic": "-1"},
        {"author": "1.5"},
        {"author": "9" * 40},
        {"owner__password__startswith": "md5"},
        {"title__regex": "("},
        {"q": "gpu " * 60},
    ],
)
def test_hostile_query_strings_are_bad_requests(admin_client, demo, query):
    assert admin_client.get(URL, query).status_code == 400


@pytest.mark.parametrize(
    "query", [{"x": "1"}, {"ordering": "title"}, {"owner__password__startswith": "pbkdf2"}, {"title__regex": "("}]
)
def test_the_topics_listing_refuses_what_it_does_not_understand(client, demo, editor, query):
    """modeladmin reads unknown parameters as filters: ``?x=1`` was a 500 (FieldError), and
    ``?owner__password__startswith=`` let an editor test password hashes by the rows shown."""
    client.force_login(editor)
    assert client.get("/admin/blog/topicpage/", query).status_code == 400
    for harmless in ({"q": "gpu"}, {"p": "abc"}, {"o": "zz.-99"}):
        assert client.get("/admin/blog/topicpage/", harmless).status_code == 200, harmless


def test_harmless_oddities_still_render(admin_client, demo):
    oddities = [{"q": "a " * 100}, {"p": "abc"}, {"p": "999"}, {"o": "zz.-99"}, {"export": "pdf"}, {"topic": "99999"}]
    for query in oddities:
        assert admin_client.get(URL, query).status_code == 200, query


def test_csv_export_has_one_correctly_quoted_row_per_article(admin_client, demo):
    article = demo.articles[0]
    article.title = 'Commas, "quotes" and\nnewlines'
    article.save_revision().publish()
    tricky = ArticlePageFactory(parent=demo.blog, title="=HYPERLINK(1)", topics=[demo.topics["gpu-costs"]])
    response = admin_client.get(URL, {"export": "csv"})
    assert response["Content-Type"] == "text/csv"
    assert 'filename="articles.csv"' in response["Content-Disposition"]
    rows = csv_rows(response)
    assert len(rows) == 99  # the demo's 98 and the tricky one: every article, not one page
    assert list(rows[0]) == [
        "ID",
        "Title",
        "Status",
        "Topics",
        "Authors",
        "Go live (UTC)",
        "Expiry (UTC)",
        "Last updated (UTC)",
        "First published (UTC)",
        "Editor URL",
    ]
    by_pk = {int(row["ID"]): row for row in rows}
    row = by_pk[article.pk]
    assert row["Title"] == 'Commas, "quotes" and\nnewlines'
    assert row["Status"] == "Live"
    assert row["Topics"] == "; ".join(t.title for t in article.topics.all())
    assert row["Authors"] == "Cedana Editorial"
    assert row["Editor URL"] == f"{settings.WAGTAILADMIN_BASE_URL}/admin/pages/{article.pk}/edit/"
    assert row["Expiry (UTC)"] == ""
    assert row["First published (UTC)"] == article.date_published.replace(microsecond=0).isoformat(sep=" ")
    assert by_pk[tricky.pk]["Title"] == "'=HYPERLINK(1)"  # not run as a formula by spreadsheet apps


def test_listing_query_count_does_not_grow_with_rows(admin_client, demo):
    def count(**params):
        with CaptureQueriesContext(connection) as queries:
            response = admin_client.get(URL, params)
            if params.get("export"):
                b"".join(response.streaming_content)
            assert response.status_code == 200
        return len(queries)

    before, before_csv = count(), count(export="csv")
    for i in range(5):
        ArticlePageFactory(parent=demo.blog, title=f"Extra {i}", topics=list(demo.topics.values())[:2])
    assert count() == before
    assert count(export="csv") == before_csv


def test_user_without_page_permissions_sees_no_articles(client, demo):
    user = get_user_model().objects.create_user(username="viewer", password="x")
    group = Group.objects.create(name="Admin access only")
    group.permissions.add(Permission.objects.get(codename="access_admin"))
    user.groups.add(group)
    client.force_login(user)
    response = client.get(URL, {"export": "csv"})
    assert response.status_code == 200
    assert csv_rows(response) == []


def test_editor_rows_offer_edit_but_not_unpublish_or_delete(client, demo, editor):
    client.force_login(editor)
    html = client.get(URL).content.decode()
    article = ArticlePage.objects.order_by("-latest_revision_created_at").first()  # on the first page
    assert f"/admin/pages/{article.pk}/edit/" in html
    assert f"/admin/pages/{article.pk}/unpublish/" not in html
    assert f"/admin/pages/{article.pk}/delete/" not in html


def test_editor_with_add_permission_only_sees_own_articles(client, demo):
    from wagtail.models import GroupPagePermission

    user = get_user_model().objects.create_user(username="writer", password="x")
    group = Group.objects.create(name="Writers")
    group.permissions.add(Permission.objects.get(codename="access_admin"))
    GroupPagePermission.objects.create(
        group=group, page=demo.blog, permission=Permission.objects.get(codename="add_page")
    )
    user.groups.add(group)
    own = ArticlePageFactory(parent=demo.blog, title="Mine", owner=user, topics=[demo.topics["gpu-costs"]])
    client.force_login(user)
    rows = csv_rows(client.get(URL, {"export": "csv"}))
    assert [row["Title"] for row in rows] == [own.title]


@pytest.mark.parametrize("user_fixture", ["editor", "moderator"])
def test_topic_and_author_listings_load_with_article_counts(client, demo, request, user_fixture):
    client.force_login(request.getfixturevalue(user_fixture))
    topic = demo.topics["gpu-costs"]
    response = client.get("/admin/blog/topicpage/")
    assert response.status_code == 200
    html = response.content.decode()
    assert f'href="/admin/pages/{topic.pk}/edit/"' in html
    rows = {row.split("</td>")[0] for row in html.split('<td class="field-article_count')[1:]}
    assert any(f">{topic.articles.count()}" in row for row in rows)
    assert '"/admin/blog/articlepage/"' in client.get("/admin/").content.decode()  # "Articles" in the menu
    # blog.roles gives Editors and Moderators the author snippet permissions.
    authors = client.get("/admin/snippets/blog/author/")
    assert authors.status_code == 200
    assert "Cedana Editorial" in authors.content.decode()


def test_author_listing_shows_article_counts(admin_client, demo):
    response = admin_client.get("/admin/snippets/blog/author/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Cedana Editorial" in html and "Articles" in html
    assert ">22<" in html.replace(" ", "").replace("\n", "")  # 20 captured articles and 2 of ours


def test_sorting_by_status_and_scheduled_go_live_in_export(admin_client, lifecycle):
    rows = csv_rows(admin_client.get(URL, {"o": "1", "export": "csv"}))
    order = ["Draft", "In review", "Scheduled", "Live", "Live with newer draft", "Expired"]
    statuses = [row["Status"] for row in rows]
    assert statuses == sorted(statuses, key=order.index)
    scheduled = lifecycle["scheduled"]
    row = next(row for row in rows if int(row["ID"]) == scheduled.pk)
    assert row["Go live (UTC)"] == scheduled.go_live_at.replace(microsecond=0).isoformat(sep=" ")


# Exports for spreadsheets (issue 16, the workspace): absolute editor URLs, site-zone times to the second.


@pytest.mark.parametrize("profile_zone", ["", "America/Los_Angeles"])
def test_export_times_are_in_the_site_zone_without_microseconds(
    admin_client, admin_user, demo, settings, profile_zone
):
    import datetime
    import zoneinfo

    from wagtail.users.models import UserProfile

    settings.TIME_ZONE = "Europe/Berlin"
    profile = UserProfile.get_for_user(admin_user)
    profile.current_time_zone = profile_zone  # the viewer's own zone does not change the export
    profile.save()
    article = ArticlePageFactory(parent=demo.blog, live=False, topics=[demo.topics["gpu-costs"]])
    article.go_live_at = datetime.datetime(2031, 7, 1, 7, 30, 15, 123456, tzinfo=datetime.UTC)
    article.save_revision().publish()
    row = next(row for row in csv_rows(admin_client.get(URL, {"export": "csv"})) if int(row["ID"]) == article.pk)
    assert row["Go live (Europe/Berlin)"] == "2031-07-01 09:30:15+02:00"
    updated = row["Last updated (Europe/Berlin)"]
    parsed = datetime.datetime.fromisoformat(updated)
    assert parsed.microsecond == 0 and "." not in updated
    assert parsed.utcoffset() == parsed.astimezone(zoneinfo.ZoneInfo("Europe/Berlin")).utcoffset()
    assert row["Editor URL"].startswith(("http://", "https://"))


def test_xlsx_export_has_local_times_to_the_second_and_absolute_editor_urls(admin_client, demo, settings):
    import datetime
    import io

    import openpyxl

    settings.TIME_ZONE = "Asia/Kolkata"
    article = ArticlePageFactory(parent=demo.blog, live=False, topics=[demo.topics["gpu-costs"]])
    article.go_live_at = datetime.datetime(2031, 7, 1, 7, 30, 15, 654321, tzinfo=datetime.UTC)
    article.save_revision().publish()
    response = admin_client.get(URL, {"export": "xlsx"})
    assert response.status_code == 200
    body = b"".join(response.streaming_content) if response.streaming else response.content
    sheet = openpyxl.load_workbook(io.BytesIO(body)).active
    rows = list(sheet.iter_rows(values_only=True))
    headings = rows[0]
    row = next(row for row in rows[1:] if row[0] == article.pk)
    cells = dict(zip(headings, row, strict=True))
    assert cells["Go live (Asia/Kolkata)"] == datetime.datetime(2031, 7, 1, 13, 0, 15)
    assert cells["Last updated (Asia/Kolkata)"].microsecond == 0
    assert cells["Editor URL"] == f"{settings.WAGTAILADMIN_BASE_URL}/admin/pages/{article.pk}/edit/"
