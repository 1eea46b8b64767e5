"""Workflow e-mails: submission reaches the moderators, approval and rejection the submitter."""

from django.conf import settings

import pytest

from .admin_forms import article_form_data
from .test_blog_workflow import submit_new_article, workflow_action

pytestmark = pytest.mark.django_db


def recipients(mailoutbox) -> set[str]:
    return {address for message in mailoutbox for address in message.to}


@pytest.fixture
def admin(django_user_model):
    return django_user_model.objects.create_superuser("ada", "ada@example.com", "a-long-test-password")


def test_submission_mails_moderators_and_admins_not_the_editor(client, demo, editor, moderator, admin, mailoutbox):
    client.force_login(editor)
    article = submit_new_article(client, demo.blog)
    assert recipients(mailoutbox) == {"mona@example.com", "ada@example.com"}
    message = mailoutbox[0]
    assert "A new deep-dive" in message.subject
    assert message.from_email == settings.DEFAULT_FROM_EMAIL
    # A link straight to the page in the admin.
    assert f"{settings.WAGTAILADMIN_BASE_URL}/admin/pages/{article.pk}/" in message.body


def test_approval_mails_the_submitter(client, demo, editor, moderator, mailoutbox):
    client.force_login(editor)
    article = submit_new_article(client, demo.blog)
    mailoutbox.clear()
    client.force_login(moderator)
    workflow_action(client, article, "approve", comment="Lovely.")
    assert recipients(mailoutbox) == {"edna@example.com"}
    assert "approved" in mailoutbox[0].subject.lower()


def test_rejection_mails_the_submitter_with_the_comment_and_link(client, demo, editor, moderator, mailoutbox):
    client.force_login(editor)
    article = submit_new_article(client, demo.blog)
    mailoutbox.clear()
    client.force_login(moderator)
    workflow_action(client, article, "reject", comment="Cite the benchmark.")
    assert recipients(mailoutbox) == {"edna@example.com"}
    body = mailoutbox[0].body
    assert "Cite the benchmark." in body
    assert f"{settings.WAGTAILADMIN_BASE_URL}/admin/pages/{article.pk}/edit/" in body


def test_an_editor_who_turned_notifications_off_gets_none(client, demo, editor, moderator, mailoutbox):
    from wagtail.users.models import UserProfile

    profile = UserProfile.get_for_user(editor)
    profile.rejected_notifications = False
    profile.save()
    client.force_login(editor)
    article = submit_new_article(client, demo.blog)
    mailoutbox.clear()
    client.force_login(moderator)
    workflow_action(client, article, "reject", comment="No.")
    assert mailoutbox == []


def test_workflow_emails_name_the_article_action_comment_and_go_live_time(client, demo, editor, moderator, mailoutbox):
    import datetime

    from django.utils import timezone

    go_live = (timezone.now() + datetime.timedelta(days=3)).replace(second=0, microsecond=0)
    local = timezone.localtime(go_live).strftime("%Y-%m-%d %H:%M")
    client.force_login(editor)
    article = submit_new_article(client, demo.blog, go_live_at=go_live.strftime("%Y-%m-%d %H:%M"))
    edit_link = f"{settings.WAGTAILADMIN_BASE_URL}/admin/pages/{article.pk}/edit/"
    submitted = next(message for message in mailoutbox if "mona@example.com" in message.to)
    assert submitted.subject == "Review requested: “A new deep-dive” from Edna"
    assert "Edna submitted the article “A new deep-dive” for review." in submitted.body
    assert f"Goes live: {local}" in submitted.body
    assert edit_link in submitted.body

    mailoutbox.clear()
    client.force_login(moderator)
    workflow_action(client, article, "reject", comment="Cite the benchmark.")
    (rejected,) = mailoutbox
    assert rejected.subject == "Changes requested: “A new deep-dive” by Mona"
    assert "Mona requested changes to your article “A new deep-dive”." in rejected.body
    assert "Comment: “Cite the benchmark.”" in rejected.body
    assert f"Goes live once approved: {local}" in rejected.body
    assert edit_link in rejected.body

    client.force_login(editor)
    client.post(
        f"/admin/pages/{article.pk}/edit/",
        article_form_data(article.slug, action="submit", go_live_at=go_live.strftime("%Y-%m-%d %H:%M")),
    )
    mailoutbox.clear()
    client.force_login(moderator)
    workflow_action(client, article, "approve", comment="Lovely.")
    (approved,) = mailoutbox
    assert approved.subject.startswith(f"Approved: “A new deep-dive” goes live {local}")
    assert "Mona approved your article “A new deep-dive”." in approved.body
    assert "Comment: “Lovely.”" in approved.body
    assert f"Goes live: {local}" in approved.body
    assert edit_link in approved.body


def test_approval_email_for_an_immediate_publish_links_to_the_live_article(
    client, demo, editor, moderator, mailoutbox
):
    client.force_login(editor)
    article = submit_new_article(client, demo.blog)
    mailoutbox.clear()
    client.force_login(moderator)
    workflow_action(client, article, "approve")
    (approved,) = mailoutbox
    assert approved.subject == "Approved: “A new deep-dive” is live"
    assert "Goes live: now" in approved.body
    assert "Comment: none" in approved.body
    article.refresh_from_db()
    assert f"Read it on the site: {article.get_full_url()}" in approved.body
    assert article.get_full_url().startswith("http")
