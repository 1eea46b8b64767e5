"""Roles and the "Editorial review" workflow, driven through the admin with the test client."""

from django.contrib.auth.models import Group
from django.urls import reverse

from wagtail.models import GroupApprovalTask, GroupPagePermission, Page, TaskState, WorkflowState

import pytest

from blog.models import ArticlePage
from blog.roles import WORKFLOW_NAME, ensure_editorial_roles

from .admin_forms import article_form_data

pytestmark = pytest.mark.django_db


def add_url(blog):
    return reverse("wagtailadmin_pages:add", args=("blog", "articlepage", blog.pk))


def edit_url(page):
    return reverse("wagtailadmin_pages:edit", args=(page.pk,))


def workflow_action(client, page, action: str, comment: str = ""):
    """POST a workflow action (``approve``/``reject``) on ``page``'s current task."""
    page = Page.objects.get(pk=page.pk).specific
    task_state = page.current_workflow_task_state
    url = reverse("wagtailadmin_pages:workflow_action", args=(page.pk, action, task_state.pk))
    return client.post(url, {"comment": comment})


def submit_new_article(client, blog, slug="for-review", **fields) -> ArticlePage:
    response = client.post(add_url(blog), article_form_data(slug, action="submit", **fields))
    assert response.status_code == 302, response.content.decode()[:2000]
    return ArticlePage.objects.get(slug=slug)


def page_permissions(group_name: str) -> set[str]:
    return set(
        GroupPagePermission.objects.filter(group__name=group_name).values_list("permission__codename", flat=True)
    )


def test_roles_have_exactly_their_page_permissions(demo):
    assert page_permissions("Editors") == {"add_page", "change_page", "lock_page"}
    assert page_permissions("Moderators") == {"add_page", "change_page", "publish_page", "lock_page", "unlock_page"}
    editors = Group.objects.get(name="Editors")
    assert editors.permissions.filter(codename="change_author").exists()
    assert not editors.permissions.filter(codename="delete_author").exists()


def test_every_blog_page_goes_through_editorial_review(demo):
    for page in [demo.blog, *demo.topics.values(), demo.articles[0]]:
        workflow = page.get_workflow()
        assert workflow.name == WORKFLOW_NAME
    tasks = [task.specific for task in workflow.tasks]
    assert len(tasks) == 1
    assert isinstance(tasks[0], GroupApprovalTask)
    assert list(tasks[0].groups.values_list("name", flat=True)) == ["Moderators"]


def test_roles_setup_is_idempotent_and_repairs_drift(demo):
    assert ensure_editorial_roles([demo.blog]) == 0
    # Someone granted editors publish rights by hand: the next run takes them back.
    editors = Group.objects.get(name="Editors")
    publish = GroupPagePermission.objects.filter(permission__codename="publish_page").first().permission
    GroupPagePermission.objects.create(group=editors, page=demo.blog, permission=publish)
    assert ensure_editorial_roles([demo.blog]) == 1
    assert "publish_page" not in page_permissions("Editors")


def test_editor_can_save_a_draft_that_readers_do_not_see(client, demo, editor):
    client.force_login(editor)
    response = client.post(add_url(demo.blog), article_form_data("a-draft"))
    assert response.status_code == 302
    draft = ArticlePage.objects.get(slug="a-draft")
    assert not draft.live
    assert draft.owner == editor
    assert client.get("/blog/a-draft/").status_code == 404


def test_editor_publish_attempt_is_refused(client, demo, editor):
    article = demo.articles[0]
    live_title = article.title
    live_revision = article.live_revision_id
    client.force_login(editor)
    data = article_form_data(article.slug, action="publish", title="Published behind the moderators' backs")
    response = client.post(edit_url(article), data)
    assert response.status_code == 302
    article.refresh_from_db()
    # Without publish permission the "publish" button is treated as a draft save.
    assert article.title == live_title
    assert article.live_revision_id == live_revision
    assert article.has_unpublished_changes
    assert article.get_latest_revision().content["title"] == "Published behind the moderators' backs"
    assert live_title in client.get(article.url).content.decode()


def test_editor_cannot_unpublish_or_delete_a_live_page(client, demo, editor):
    article = demo.articles[0]
    client.force_login(editor)
    for name in ("unpublish", "delete"):
        response = client.post(reverse(f"wagtailadmin_pages:{name}", args=(article.pk,)))
        assert response.status_code in (302, 403)
        if response.status_code == 302:
            assert response.url == reverse("wagtailadmin_home")
    article.refresh_from_db()
    assert article.live


def test_editor_cannot_approve_their_own_submission(client, demo, editor):
    client.force_login(editor)
    article = submit_new_article(client, demo.blog)
    response = workflow_action(client, article, "approve")
    assert response.status_code in (302, 403)
    article.refresh_from_db()
    assert not article.live


def test_moderator_approval_publishes(client, demo, editor, moderator):
    client.force_login(editor)
    article = submit_new_article(client, demo.blog)
    assert not article.live
    assert article.workflow_in_progress
    assert article.current_workflow_task.name == "Moderator approval"

    client.force_login(moderator)
    response = workflow_action(client, article, "approve", comment="Good to go.")
    assert response.status_code == 302
    article.refresh_from_db()
    assert article.live
    assert article.live_revision.user == editor
    assert WorkflowState.objects.for_instance(article).get().status == WorkflowState.STATUS_APPROVED
    client.logout()
    assert client.get("/blog/for-review/").status_code == 200
    assert "A new deep-dive" in client.get("/blog/gpu-costs/").content.decode()


def test_moderator_rejection_returns_the_page_to_draft_with_the_comment(client, demo, editor, moderator):
    client.force_login(editor)
    article = submit_new_article(client, demo.blog)
    client.force_login(moderator)
    workflow_action(client, article, "reject", comment="The summary promises more than the body delivers.")
    article.refresh_from_db()
    assert not article.live
    state = WorkflowState.objects.for_instance(article).get()
    assert state.status == WorkflowState.STATUS_NEEDS_CHANGES
    task_state = TaskState.objects.filter(workflow_state=state).get()
    assert task_state.status == TaskState.STATUS_REJECTED
    assert task_state.comment == "The summary promises more than the body delivers."
    # The editor sees the comment in the page editor.
    client.force_login(editor)
    assert "The summary promises more than the body delivers." in client.get(edit_url(article)).content.decode()


def test_rejecting_a_change_to_a_live_article_keeps_the_live_version(client, demo, editor, moderator):
    article = demo.articles[1]
    live_title = article.title
    client.force_login(editor)
    response = client.post(edit_url(article), article_form_data(article.slug, action="submit", title="Clickbait"))
    assert response.status_code == 302
    client.force_login(moderator)
    workflow_action(client, article, "reject", comment="No.")
    article.refresh_from_db()
    assert article.live and article.title == live_title
    client.logout()
    assert live_title in client.get(article.url).content.decode()
