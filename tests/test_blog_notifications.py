"""Workflow e-mails: submission reaches the moderators, approval and rejection the submitter."""

from django.conf import settings

import pytest

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
