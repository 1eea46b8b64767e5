"""Hand-made page edit and preview POSTs with missing or malformed StreamField management fields
are a 400 (``home.upstream.wagtail``), never a 500, and leave the page and its revisions as they
were (issue 15, "Hand-made admin requests"). Crafted block values are form errors:
tests/test_blog_admin_hostile_body.py."""

from django.test import Client
from django.urls import reverse

from wagtail.models import Page, Revision

import pytest

from .admin_forms import article_form_data

pytestmark = pytest.mark.django_db


def drop(*keys):
    def change(data):
        for key in keys:
            data.pop(key)

    return change


def set_to(key, value):
    return lambda data: data.__setitem__(key, value)


def drop_prefix(prefix):
    return lambda data: [data.pop(key) for key in list(data) if key.startswith(prefix)]


# The body (article_form_data's GOOD_BODY) has four blocks; the heading's text is body-0-value-text.
MALFORMED = {
    "count left out": drop("body-count"),
    "count not a number": set_to("body-count", "abc"),
    "count in exponent form": set_to("body-count", "1e3"),
    "count with a decimal point": set_to("body-count", "2.5"),
    "count empty": set_to("body-count", ""),
    "count larger than the blocks sent": set_to("body-count", "99999"),
    "count past a 64-bit integer": set_to("body-count", "9" * 30),
    # int() takes these, and Wagtail would then read fewer blocks than were sent, or none.
    "count negative": set_to("body-count", "-5"),
    "count with a plus sign": set_to("body-count", "+4"),
    "count with a space": set_to("body-count", " 4"),
    "count in Arabic-Indic digits": set_to("body-count", "\u0664"),
    "count with an underscore": set_to("body-count", "0_4"),
    "count smaller than the blocks sent": set_to("body-count", "1"),
    "count zero with blocks sent": set_to("body-count", "0"),
    "block type left out": drop("body-0-type"),
    "deleted flag left out": drop("body-1-deleted"),
    "order left out": drop("body-2-order"),
    "order not a number": set_to("body-0-order", "first"),
    "order empty": set_to("body-3-order", ""),
    "every field of a block left out": drop_prefix("body-1-"),
    "every body field left out": drop_prefix("body-"),
}


def post(editor, view, article, change):
    client = Client(raise_request_exception=False)  # a 500 shows as a status, not an exception
    client.force_login(editor)
    data = article_form_data(article.slug, title="Changed by a hand-made request")
    change(data)
    name = "wagtailadmin_pages:edit" if view == "edit" else "wagtailadmin_pages:preview_on_edit"
    return client.post(reverse(name, args=(article.pk,)), data)


@pytest.mark.parametrize("view", ["edit", "preview"])
@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_streamfield_post_is_a_400_and_changes_nothing(demo, editor, view, name):
    article = demo.articles[3]
    revisions = Revision.objects.filter(object_id=str(article.pk)).count()
    response = post(editor, view, article, MALFORMED[name])
    assert response.status_code == 400, (view, name, response.status_code)
    assert Revision.objects.filter(object_id=str(article.pk)).count() == revisions
    article.refresh_from_db()
    assert article.title != "Changed by a hand-made request"
    assert article.get_latest_revision_as_object().title != "Changed by a hand-made request"


@pytest.mark.parametrize("view", ["edit", "preview"])
def test_a_well_formed_post_still_saves_and_previews(demo, editor, view):
    response = post(editor, view, demo.articles[3], lambda data: None)
    assert response.status_code == (302 if view == "edit" else 200)


# A chooser field posted with something that is not an id (home.upstream.wagtail, defect 2).
NOT_AN_ID = ["abc", "1.5", "1e3", "-", "9" * 30, "[1]", "None", " x"]


@pytest.mark.parametrize("field", ["image", "social_image"])
@pytest.mark.parametrize("value", NOT_AN_ID)
def test_a_chooser_posted_with_something_that_is_not_an_id_is_a_form_error(demo, editor, field, value):
    article = demo.articles[3]
    revisions = Revision.objects.filter(object_id=str(article.pk)).count()
    response = post(editor, "edit", article, set_to(field, value))
    assert response.status_code == 200, (field, value, response.status_code)
    assert "Select a valid choice" in response.content.decode() or "Enter a whole number" in response.content.decode()
    assert Revision.objects.filter(object_id=str(article.pk)).count() == revisions


# What Wagtail's editor sends as the workflow action's extra data is a JSON object of strings
# (home.upstream.wagtail, defect 3); these are not.
MALFORMED_WORKFLOW_DATA = {
    "raw control character": '{"comment": "no\x00pe"}',
    "not JSON": "comment=no",
    "truncated JSON": '{"comment": ',
    "a list": '["no"]',
    "a number": "3",
    "null": "null",
    "a comment that is not text": '{"comment": 3}',
    "a nested object": '{"comment": {"text": "no"}}',
    # Past Python's recursion limit: json.loads raises RecursionError, not ValueError.
    "arrays nested 100,000 deep": "[" * 100_000 + "]" * 100_000,
    "objects nested 5,000 deep": '{"a": ' * 5_000 + "1" + "}" * 5_000,
    "a comment nested 5,000 deep": '{"comment": ' + "[" * 5_000 + "]" * 5_000 + "}",
}


@pytest.mark.parametrize("name", MALFORMED_WORKFLOW_DATA)
def test_malformed_workflow_action_data_is_a_400_before_anything_is_saved(client, demo, editor, moderator, name):
    from .test_blog_workflow import edit_url, submit_new_article

    client.force_login(editor)
    article = submit_new_article(client, demo.blog)
    revisions = Revision.objects.filter(object_id=str(article.pk)).count()
    state = article.current_workflow_task_state
    client = Client(raise_request_exception=False)
    client.force_login(moderator)
    data = article_form_data(article.slug, title="Changed by a hand-made request")
    data.update(
        {
            "action-workflow-action": "on",
            "workflow-action-name": "reject",
            "workflow-action-extra-data": MALFORMED_WORKFLOW_DATA[name],
        }
    )
    response = client.post(edit_url(article), data)
    assert response.status_code == 400, (name, response.status_code)
    assert Revision.objects.filter(object_id=str(article.pk)).count() == revisions
    state.refresh_from_db()
    assert state.status == "in_progress"
    article.refresh_from_db()
    assert article.get_latest_revision_as_object().title != "Changed by a hand-made request"


def test_a_workflow_comment_still_reaches_the_editor(client, demo, editor, moderator):
    from .test_blog_workflow import edit_url, submit_new_article

    client.force_login(editor)
    article = submit_new_article(client, demo.blog)
    state = article.current_workflow_task_state
    client.force_login(moderator)
    data = article_form_data(article.slug)
    data.update(
        {
            "action-workflow-action": "on",
            "workflow-action-name": "reject",
            "workflow-action-extra-data": '{"comment": "Needs a figure."}',
        }
    )
    assert client.post(edit_url(article), data).status_code == 302
    state.refresh_from_db()
    assert state.status == "rejected" and state.comment == "Needs a figure."


# Ids past the database's integer range in a multiple-choice model field (home.upstream.django):
# an article's topics and authors, and Wagtail's admin listing filters built on the same field.
PAST_THE_RANGE = ["9" * 20, "-" + "9" * 20, "9223372036854775808"]


@pytest.mark.parametrize("field", ["topics", "authors"])
@pytest.mark.parametrize("value", PAST_THE_RANGE)
def test_an_id_past_the_integer_range_in_topics_or_authors_is_a_form_error(demo, editor, field, value):
    article = demo.articles[3]
    revisions = Revision.objects.filter(object_id=str(article.pk)).count()
    response = post(editor, "edit", article, set_to(field, [value]))
    assert response.status_code == 200, (field, value, response.status_code)
    assert "Select a valid choice" in response.content.decode()
    assert Revision.objects.filter(object_id=str(article.pk)).count() == revisions
    article.refresh_from_db()
    assert article.title != "Changed by a hand-made request"


@pytest.mark.parametrize(
    "path", ["/admin/pages/{blog}/", "/admin/users/", "/admin/reports/site-history/", "/admin/pages/search/"]
)
@pytest.mark.parametrize("parameter", ["owner", "content_type", "site", "group", "user"])
def test_an_admin_filter_with_an_id_past_the_integer_range_is_not_a_500(demo, django_user_model, path, parameter):
    client = Client(raise_request_exception=False)
    client.force_login(django_user_model.objects.create_superuser("filter-admin", password="x"))
    response = client.get(path.format(blog=demo.blog.pk), {parameter: "9" * 20, "q": "gpu"})
    assert response.status_code in (200, 404), (path, parameter, response.status_code)


# Times at the ends of Python's calendar: stored in UTC, they cannot be shown in a time zone on
# the far side (home.page_forms.EARLIEST_SHOWABLE / LATEST_SHOWABLE).
UNSHOWABLE_TIMES = {
    "go_live_at": "9999-12-31 23:59",
    "expire_at": "9999-12-31 12:00",
    "date_published": "9999-12-30 23:00",
    "go_live_at, first day": "0001-01-01 00:00",
}


def create_draft(editor, blog, field, value):
    """POST the new-article form as ``editor`` (Save draft) with ``field`` set to ``value``."""
    client = Client(raise_request_exception=False)
    client.force_login(editor)
    data = article_form_data("unshowable-time", **{field: value})
    return client.post(reverse("wagtailadmin_pages:add", args=("blog", "articlepage", blog.pk)), data)


@pytest.mark.parametrize("case", UNSHOWABLE_TIMES)
def test_a_time_at_either_end_of_the_calendar_is_a_form_error(demo, editor, case):
    response = create_draft(editor, demo.blog, case.split(",")[0], UNSHOWABLE_TIMES[case])
    assert response.status_code == 200, (case, response.status_code)
    assert "cannot be shown in every time zone" in response.content.decode()
    assert not Page.objects.filter(slug="unshowable-time").exists()


def test_the_articles_listing_shows_for_an_editor_east_of_utc_after_a_hostile_go_live(demo, editor):
    """What the form check prevents: one draft with go-live 9999-12-31 23:59 UTC made the Articles
    listing (and the draft's editor) a 500 for every user whose time zone is ahead of UTC."""
    from wagtail.users.models import UserProfile

    create_draft(editor, demo.blog, "go_live_at", "9999-12-31 23:59")
    profile = UserProfile.get_for_user(editor)
    profile.current_time_zone = "Europe/Berlin"
    profile.save()
    client = Client(raise_request_exception=False)
    client.force_login(editor)
    assert client.get("/admin/blog/articlepage/").status_code == 200


MALFORMED_DISMISSIBLES = {
    "not JSON": b"seen=1",
    "not UTF-8": b'{"a": "\xff"}',
    "a list": b"[1]",
    "a string": b'"x"',
    "null": b"null",
    "a nested value": b'{"a": {"b": true}}',
    "a list value": b'{"a": [true]}',
    "arrays nested 100,000 deep": b"[" * 100_000 + b"]" * 100_000,
    "objects nested 5,000 deep": b'{"a": ' * 5_000 + b"1" + b"}" * 5_000,
}


@pytest.mark.parametrize("name", MALFORMED_DISMISSIBLES)
def test_a_malformed_dismissibles_update_is_a_400_and_changes_nothing(client, editor, name):
    from wagtail.users.models import UserProfile

    client.force_login(editor)
    url = reverse("wagtailadmin_dismissibles")
    assert client.patch(url, b'{"editor-guide": true}', content_type="application/json").status_code == 200
    response = client.patch(url, MALFORMED_DISMISSIBLES[name], content_type="application/json")
    assert response.status_code == 400, name
    assert UserProfile.get_for_user(editor).dismissibles == {"editor-guide": True}


def test_a_dismissibles_update_as_wagtail_sends_it_is_saved(client, editor):
    from wagtail.users.models import UserProfile

    client.force_login(editor)
    body = b'{"whats-new": true, "last-seen": "8.0", "count": 3, "cleared": null}'
    response = client.patch(reverse("wagtailadmin_dismissibles"), body, content_type="application/json")
    assert response.status_code == 200
    assert UserProfile.get_for_user(editor).dismissibles == {
        "whats-new": True,
        "last-seen": "8.0",
        "count": 3,
        "cleared": None,
    }
