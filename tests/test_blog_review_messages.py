"""Telling people what happened in review (issue 16): the moderator's message after Approve or
Request changes, the editor's banner and dashboard panel for returned work, and the review
panel's submitter and go-live time. Driven through the admin views as each role."""

import datetime
import html
import re
import zoneinfo

from django.urls import reverse
from django.utils import timezone

from wagtail.users.models import UserProfile

import pytest

from .admin_forms import article_form_data
from .test_blog_workflow import edit_url, submit_new_article, workflow_action

pytestmark = pytest.mark.django_db

DASHBOARD = reverse("wagtailadmin_home")


def text(response) -> str:
    """The response's HTML with tags removed and whitespace collapsed, entities decoded."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


def in_a_week() -> datetime.datetime:
    return (timezone.now() + datetime.timedelta(days=7)).replace(second=0, microsecond=0)


def act(client, article, action, comment=""):
    response = workflow_action(client, article, action, comment)
    assert response.status_code == 302
    return text(client.get(response.url))


def test_approving_shows_approved_and_published(client, demo, editor, moderator):
    client.force_login(editor)
    article = submit_new_article(client, demo.blog)
    client.force_login(moderator)
    assert "Approved and published: “A new deep-dive” is live." in act(client, article, "approve")


@pytest.mark.parametrize("zone", ["Asia/Tokyo", "America/Los_Angeles", "UTC"])
def test_approving_a_scheduled_article_shows_the_go_live_time_in_the_moderators_zone(
    client, demo, editor, moderator, zone
):
    go_live = in_a_week()
    client.force_login(editor)
    article = submit_new_article(client, demo.blog, go_live_at=go_live.strftime("%Y-%m-%d %H:%M"))
    profile = UserProfile.get_for_user(moderator)
    profile.current_time_zone = zone
    profile.save()
    client.force_login(moderator)
    local = timezone.localtime(go_live, zoneinfo.ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M %Z")
    assert f"Approved: “A new deep-dive” goes live at {local}." in act(client, article, "approve")


@pytest.mark.parametrize("comment", ["Cite the benchmark.", ""])
def test_requesting_changes_says_who_the_article_went_back_to(client, demo, editor, moderator, comment):
    client.force_login(editor)
    article = submit_new_article(client, demo.blog)
    client.force_login(moderator)
    page = act(client, article, "reject", comment)
    if comment:
        assert "Returned to Edna with your comment: “A new deep-dive” is back in their drafts." in page
    else:
        assert "Returned to Edna without a comment" in page


def test_no_message_for_someone_who_did_not_act(client, demo, editor, moderator):
    client.force_login(editor)
    article = submit_new_article(client, demo.blog)
    # The editor may not approve; nothing claims they did.
    response = workflow_action(client, article, "approve")
    follow = text(client.get(response.url)) if response.status_code == 302 else ""
    assert "Approved" not in follow


def test_the_editor_sees_the_request_for_changes_until_they_submit_again(client, demo, editor, moderator):
    client.force_login(editor)
    article = submit_new_article(client, demo.blog)
    client.force_login(moderator)
    act(client, article, "reject", "The summary promises too much.")

    client.force_login(editor)
    banner = "Changes requested by Mona with this comment: “The summary promises too much.”"
    assert banner in text(client.get(edit_url(article)))
    dashboard = text(client.get(DASHBOARD))
    assert "Returned to you" in dashboard
    assert "A new deep-dive Mona The summary promises too much." in dashboard

    # Saving a draft keeps the banner; submitting again ends it.
    client.post(edit_url(article), article_form_data(article.slug))
    assert banner in text(client.get(edit_url(article)))
    client.post(edit_url(article), article_form_data(article.slug, action="submit", summary="A measured claim."))
    assert "Changes requested by" not in text(client.get(edit_url(article)))
    assert "Nothing has been returned to you." in text(client.get(DASHBOARD))


def test_other_editors_do_not_get_someone_elses_returned_work(client, demo, editor, moderator, django_user_model):
    from django.contrib.auth.models import Group

    client.force_login(editor)
    article = submit_new_article(client, demo.blog)
    client.force_login(moderator)
    act(client, article, "reject", "No.")
    other = django_user_model.objects.create_user("otto", "otto@example.com", "a-long-test-password")
    other.groups.add(Group.objects.get(name="Editors"))
    client.force_login(other)
    assert "Nothing has been returned to you." in text(client.get(DASHBOARD))


def test_the_review_panel_shows_who_submitted_and_when_it_goes_live(client, demo, editor, moderator):
    go_live = in_a_week()
    client.force_login(editor)
    submit_new_article(client, demo.blog, slug="scheduled", go_live_at=go_live.strftime("%Y-%m-%d %H:%M"))
    submit_new_article(client, demo.blog, slug="straight-away", title="Straight away")
    client.force_login(moderator)
    dashboard = text(client.get(DASHBOARD))
    panel = dashboard.split("In review", 1)[1]
    local = timezone.localtime(go_live).strftime("%Y-%m-%d %H:%M")
    assert re.search(rf"A new deep-dive Edna, \d{{4}}-\d\d-\d\d \d\d:\d\d {local}", panel), panel[:600]
    assert re.search(r"Straight away Edna, \d{4}-\d\d-\d\d \d\d:\d\d as soon as it is approved", panel), panel[:600]


def test_approving_from_the_page_editor_shows_the_outcome_too(client, demo, editor, moderator):
    client.force_login(editor)
    article = submit_new_article(client, demo.blog)
    client.force_login(moderator)
    data = article_form_data(article.slug)
    data.update(
        {"action-workflow-action": "on", "workflow-action-name": "approve", "workflow-action-extra-data": "{}"}
    )
    response = client.post(edit_url(article), data)
    assert response.status_code == 302
    article.refresh_from_db()
    assert article.live
    assert "Approved and published: “A new deep-dive” is live." in text(client.get(response.url))


def test_an_author_sent_back_tells_the_moderator_and_the_editor_like_an_article(client, demo, editor, moderator):
    from blog.models import Author

    from .test_blog_author_review import author_form_data, author_url
    from .test_blog_author_review import workflow_action as author_workflow_action

    author = Author.objects.get(slug="cedana-editorial")
    client.force_login(editor)
    response = client.post(author_url("edit", author.pk), author_form_data(author, "submit", bio="A longer bio."))
    assert response.status_code == 302

    client.force_login(moderator)
    response = author_workflow_action(client, author, "reject", "Name the team's founders.")
    assert response.status_code == 302
    assert "Returned to Edna with your comment: “Cedana Editorial” is back in their drafts." in text(
        client.get(response.url)
    )

    client.force_login(editor)
    banner = "Changes requested by Mona with this comment: “Name the team's founders.”"
    assert banner in text(client.get(author_url("edit", author.pk)))
    assert "Cedana Editorial Mona Name the team's founders." in text(client.get(DASHBOARD))

    response = client.post(author_url("edit", author.pk), author_form_data(author, "submit", bio="Founded by two."))
    assert response.status_code == 302
    assert "Changes requested by" not in text(client.get(author_url("edit", author.pk)))
    assert "Nothing has been returned to you." in text(client.get(DASHBOARD))

    client.force_login(moderator)
    response = author_workflow_action(client, author, "approve")
    assert response.status_code == 302
    assert "Approved and published: “Cedana Editorial” is live." in text(client.get(response.url))
