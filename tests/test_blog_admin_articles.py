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


# Bad input in the listings' query strings: the listing, without it, and a warning saying what was
# ignored (blog/admin_listing_query.py), never a bare 400 or a 500.

TOPICS_URL = "/admin/blog/topicpage/"
NOT_AN_ID = ["abc", "-1", "1.5", "1e3", "0x10", " 7", "７", "", "1;DROP", "\x00", "9" * 20 + "x"]
NO_SUCH_ID = ["0", "99999999", "999999999999999999999", "9" * 400]
BAD_VALUES = {
    # parameter: [(value, what the warning says), ...]
    "topic": [(v, "it is not an id") for v in NOT_AN_ID] + [(v, "no topic has the id") for v in NO_SUCH_ID],
    "author": [(v, "it is not an id") for v in NOT_AN_ID] + [(v, "no author has the id") for v in NO_SUCH_ID],
    "status": [(v, "Ignored the status filter") for v in ["bogus", "", "Live", "live ", "draft\x00", "x" * 500]],
    # Columns 2 and 3 (topics, authors) are not sortable; the listing has 7 columns.
    "o": [
        (v, "Ignored the sort order") for v in ["junk", "99", "2", "-3", "0.junk", "--0", "0." * 200, "", "-", "１"]
    ],
    "ot": [(v, "Ignored the sort direction") for v in ["up", "", "ASC"]],
    "p": [(v, "Ignored the page number") for v in ["abc", "0", "-1", "1.5", "9" * 30, "", "２"]],
    "export": [(v, "Ignored the download format") for v in ["pdf", "", "CSV", "csv ", "xlsx\x00"]],
}
UNKNOWN_PARAMETERS = ["ordering", "x", "owner__password__startswith", "title__regex", "e", "live", "sort", "locale"]


def result_count(html: str) -> str:
    """The listing's "N out of M" line."""
    return html.split('<span class="result-count">', 1)[1].split("</span>", 1)[0].strip()


def assert_listing_with_warning(response, warning: str, count: str):
    """The listing rendered (its rows and ``count``) with ``warning`` among the admin's messages."""
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    messages = html.split('<div class="messages"', 1)[1].split("</ul>", 1)[0]
    assert warning in messages, messages
    assert result_count(html) == count
    assert '<table class="listing' in html and html.count('href="/admin/pages/') >= 5  # rows opening the editor
    return html


@pytest.fixture
def article_count(admin_client, demo):
    return result_count(admin_client.get(URL).content.decode())


@pytest.mark.parametrize(
    ("parameter", "value", "warning"),
    [(name, value, warning) for name, cases in BAD_VALUES.items() for value, warning in cases],
    ids=lambda value: ascii(value)[:24] if isinstance(value, str) else None,
)
def test_bad_values_are_ignored_with_a_warning(admin_client, article_count, parameter, value, warning):
    response = admin_client.get(URL, {parameter: value})
    html = assert_listing_with_warning(response, warning, article_count)
    # Dropped: not in the filter and sort links or the search form's hidden fields either.
    assert f'name="{parameter}" value=' not in html
    assert f"{parameter}={value}&" not in html and f'{parameter}={value}"' not in html


@pytest.mark.parametrize("parameter", UNKNOWN_PARAMETERS)
@pytest.mark.parametrize("url", [URL, TOPICS_URL])
def test_unknown_parameters_are_ignored_with_a_warning(admin_client, demo, url, parameter):
    """modeladmin reads an unknown parameter as a filter: ``?x=1`` was a 500 (FieldError), and
    ``?owner__password__startswith=`` let an editor test password hashes by the rows shown."""
    count = result_count(admin_client.get(url).content.decode())
    response = admin_client.get(url, {parameter: "md5"})
    assert_listing_with_warning(response, f"Ignored “{parameter}” in the address", count)


def test_many_unknown_parameters_are_named_in_one_warning(admin_client, article_count):
    query = {f"junk{n}": "1" for n in range(30)}
    response = admin_client.get(URL, query)
    named = "“junk0”, “junk1”, “junk2”, “junk3”, “junk4” and 25 more"
    html = assert_listing_with_warning(response, named, article_count)
    assert html.count("in the address: this list has no such filter") == 1


@pytest.mark.parametrize(
    ("parameter", "value", "warning"),
    [
        ("o", "junk", "Ignored the sort order"),
        ("o", "4", "Ignored the sort order"),  # the listing has four columns
        ("o", "0.x", "Ignored the sort order"),
        ("ot", "up", "Ignored the sort direction"),
        ("p", "abc", "Ignored the page number"),
        ("p", "-1", "Ignored the page number"),
        ("export", "csv", "Ignored “export” in the address"),  # Topics has no download
        ("status", "live", "Ignored “status” in the address"),
        ("topic", "1", "Ignored “topic” in the address"),
    ],
)
def test_the_topics_listing_ignores_bad_values_with_a_warning(client, demo, editor, parameter, value, warning):
    client.force_login(editor)
    count = result_count(client.get(TOPICS_URL).content.decode())
    assert_listing_with_warning(client.get(TOPICS_URL, {parameter: value}), warning, count)


def test_the_topics_listing_still_sorts_and_searches_without_a_warning(client, demo, editor):
    client.force_login(editor)
    counts = [topic.articles.count() for topic in demo.topics.values()]
    html = client.get(TOPICS_URL, {"o": "-2", "q": "", "p": "1"}).content.decode()
    assert "Ignored" not in html
    cells = [row.split(">", 1)[1].split("<", 1)[0] for row in html.split('<td class="field-article_count')[1:]]
    assert [int(cell) for cell in cells] == sorted(counts, reverse=True)


def test_a_filter_for_a_deleted_topic_is_ignored_with_a_warning(admin_client, demo, article_count):
    from .factories import TopicPageFactory

    topic = TopicPageFactory(parent=demo.blog, title="Short-lived topic")
    bookmarked = {"topic": topic.pk, "status": "live"}
    topic.delete()
    response = admin_client.get(URL, bookmarked)
    live = result_count(admin_client.get(URL, {"status": "live"}).content.decode())
    html = assert_listing_with_warning(response, f"no topic has the id {topic.pk} (it may have been deleted)", live)
    assert "status=live" in html  # the usable filter stays


def test_an_over_long_search_is_shortened_to_the_words_that_fit(admin_client, demo):
    topic = demo.topics["gpu-costs"]
    quokka = ArticlePageFactory(parent=demo.blog, title="Quokka migration notes", topics=[topic])
    for query, kept in [
        ("quokka " + "x" * 300, "quokka"),  # the cut word goes
        ("quokka " + "migration " * 30, ("quokka " + "migration " * 19).strip()),
        ("q" * 201, "q" * 200),  # one word: cut at the limit
        (" " * 250 + "quokka", ""),
    ]:
        response = admin_client.get(URL, {"q": query})
        assert response.status_code == 200
        html = response.content.decode()
        assert "longer than 200 characters, so only the words that fit were searched for" in html
        assert f'name="q" value="{kept}" maxlength="200"' in html
        if kept.startswith("quokka"):
            assert result_count(html).startswith("1 out of")
            assert f'href="/admin/pages/{quokka.pk}/edit/"' in html
    # 200 characters are searched for as typed, without a warning.
    html = admin_client.get(URL, {"q": "quokka" + " " * 194}).content.decode()
    assert "searched for" not in html and result_count(html).startswith("1 out of")


@pytest.mark.parametrize("url", [URL, TOPICS_URL])
def test_the_search_box_stops_at_the_longest_search(admin_client, demo, url):
    html = admin_client.get(url).content.decode()
    search_box = html.split('id="id_q"', 1)[1].split(">", 1)[0]
    assert 'maxlength="200"' in search_box
    assert "data-no-character-count" in search_box  # no "0 / 200 characters" in the header


def test_a_download_with_a_bad_filter_shows_the_listing_instead(admin_client, article_count):
    response = admin_client.get(URL, {"export": "csv", "topic": "abc"})
    html = assert_listing_with_warning(response, "Nothing was downloaded", article_count)
    assert "it is not an id" in html


def test_good_filters_still_filter_without_a_warning(admin_client, lifecycle, demo):
    """Every parameter with a usable value, alone and together: no warning, and it applies."""
    topic = demo.topics["gpu-costs"]
    all_count = result_count(admin_client.get(URL).content.decode())
    for query, expected in [
        ({"status": "draft"}, 1),
        ({"status": "draft", "topic": topic.pk, "o": "0.-6", "ot": "asc", "p": "1"}, 1),
        ({"topic": topic.pk}, topic.articles.count()),
        ({"q": "Zz expired", "o": "1"}, 1),
    ]:
        response = admin_client.get(URL, query)
        html = response.content.decode()
        assert response.status_code == 200
        assert result_count(html) == f"{expected} out of {all_count.split()[-1]}", query
        assert "Ignored" not in html and "searched for" not in html, query
    assert csv_rows(admin_client.get(URL, {"export": "csv", "status": "draft"}))[0]["Title"] == "Zz draft"


@pytest.mark.parametrize("parameter", ["topic", "author", "status", "o", "q"])
def test_a_repeated_parameter_says_that_only_its_last_value_is_used(admin_client, demo, parameter):
    """``?topic=5&topic=6`` filtered by topic 6 alone without a word: the listing takes one value."""
    values = {
        "topic": [str(demo.topics["gpu-costs"].pk), str(demo.topics["inference-performance"].pk)],
        "author": [str(AuthorFactory(name="Ada Lovelace").pk), str(demo.articles[0].authors.first().pk)],
        "status": ["live", "draft"],
        "o": ["0", "1"],
        "q": ["gpu", "cost"],
    }[parameter]
    response = admin_client.get(f"{URL}?{parameter}={values[0]}&{parameter}={values[1]}")
    assert response.status_code == 200
    html = response.content.decode()
    assert f"“{parameter}” was given 2 times: this list uses one value, the last (“{values[1]}”)." in html
    one = admin_client.get(URL, {parameter: values[1]}).content.decode()
    assert result_count(html) == result_count(one)


def test_warnings_are_for_users_who_may_see_the_listing(client, demo):
    response = client.get(URL, {"topic": "abc"}, follow=True)
    assert response.redirect_chain and "/login/" in response.redirect_chain[-1][0]
    assert "Ignored" not in response.content.decode()


def test_harmless_oddities_still_render(admin_client, demo):
    oddities = [{"q": "a " * 100}, {"p": "999"}, {"q": "\x00"}, {"topic": "1", "p": "2"}]
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
