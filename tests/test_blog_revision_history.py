"""History without noise (issue 16, the workspace): autosaves by one person a few minutes apart
share a revision (``home.autosave_history``), and an approval that changes nothing makes no
"No differences" revision (``home.page_forms.SitePageForm.has_changed``)."""

import json
from datetime import timedelta

from django.db.models import F
from django.urls import reverse

from wagtail.models import Revision

import pytest

from blog.models import ArticlePage

from .admin_forms import article_form_data
from .test_blog_concurrent_editing import open_editor, save_draft
from .test_blog_workflow import edit_url, submit_new_article

pytestmark = pytest.mark.django_db


def revisions(article):
    return Revision.page_revisions.filter(object_id=str(article.pk))


def autosave(user, article, title):
    client, form = open_editor(user, article)
    response = save_draft(client, article, form, json=True, title=title)
    assert response.status_code == 200, response.content.decode()[:500]
    return response.json()["revision_id"]


def test_autosaves_of_later_visits_by_the_same_person_share_one_revision(demo, editor):
    article = ArticlePage.objects.get(pk=demo.articles[0].pk)
    before = revisions(article).count()
    first = autosave(editor, article, "First thought")
    assert revisions(article).count() == before + 1
    second = autosave(editor, article, "Second thought")
    third = autosave(editor, article, "Third thought")
    assert first == second == third
    assert revisions(article).count() == before + 1
    assert Revision.objects.get(pk=first).as_object().title == "Third thought"
    # History groups the overwrites as one edit entry (Wagtail's own uuid grouping).
    from wagtail.models import PageLogEntry

    edits = PageLogEntry.objects.filter(page=article, action="wagtail.edit", user=editor)
    assert edits.values("uuid").distinct().count() == 1


def age(revision_id, minutes):
    Revision.objects.filter(pk=revision_id).update(created_at=F("created_at") - timedelta(minutes=minutes))


@pytest.mark.parametrize("case", ["older-than-five-minutes", "another-person", "manual-save", "submitted"])
def test_autosaves_keep_separate_revisions_when_they_should(demo, editor, moderator, case):
    article = ArticlePage.objects.get(pk=demo.articles[0].pk)
    first = autosave(editor, article, "First thought")
    before = revisions(article).count()
    if case == "older-than-five-minutes":
        age(first, 6)
        assert autosave(editor, article, "Later thought") != first
    elif case == "another-person":
        assert autosave(moderator, article, "Her thought") != first
    elif case == "manual-save":
        client, form = open_editor(editor, article)
        assert save_draft(client, article, form, title="Saved on purpose").status_code == 302
    else:
        # A moderator's own submission (editors are locked out once they submit): the submitted
        # revision belongs to the review and is never overwritten.
        first = autosave(moderator, article, "First thought")
        client, form = open_editor(moderator, article)
        data = article_form_data(
            article.slug,
            action="submit",
            loaded_revision_id=form["loaded_revision_id"],
            loaded_revision_created_at=form["loaded_revision_created_at"],
        )
        assert client.post(reverse("wagtailadmin_pages:edit", args=(article.pk,)), data).status_code == 302
        before = revisions(article).count()
        submitted = revisions(article).latest("created_at").pk
        assert autosave(moderator, article, "After submitting") != submitted
    assert revisions(article).count() == before + 1
    assert Revision.objects.filter(pk=first).exists()


def test_a_collapsed_autosave_still_refuses_to_overwrite_someone_elses_newer_version(demo, editor, moderator):
    article = ArticlePage.objects.get(pk=demo.articles[0].pk)
    autosave(editor, article, "Mine")
    client, stale_form = open_editor(editor, article)
    autosave(moderator, article, "Hers")
    refused = save_draft(client, article, stale_form, json=True, title="Mine again")
    assert refused.status_code == 400 and refused.json()["error_code"] == "invalid_revision"
    assert ArticlePage.objects.get(pk=article.pk).latest_revision.as_object().title == "Hers"


APPROVE = {"action-workflow-action": "on", "workflow-action-name": "approve", "workflow-action-extra-data": "{}"}


def browser_form_data(article, **fields):
    """The edit form as the browser posts it: the body with its block ids."""
    data = article_form_data(article.slug, **fields)
    for index, block in enumerate(article.get_latest_revision_as_object().body):
        data[f"body-{index}-id"] = block.id
    return data


def test_an_approval_that_changes_nothing_makes_no_revision(client, demo, editor, moderator):
    client.force_login(editor)
    article = submit_new_article(client, demo.blog)
    # The submitted content was stored before the code block had its line-number options, as
    # older revisions were: the form's serialised body differs, the content does not.
    submitted = article.latest_revision
    body = json.loads(submitted.content["body"])
    for block in body:
        if block["type"] == "code":
            block["value"].pop("show_line_numbers", None)
    submitted.content["body"] = json.dumps(body)
    submitted.save(update_fields=["content"])
    client.force_login(moderator)
    data = browser_form_data(article)
    data.update(APPROVE)
    assert client.post(edit_url(article), data).status_code == 302
    article.refresh_from_db()
    assert article.live
    assert list(revisions(article).values_list("pk", flat=True)) == [submitted.pk]
    assert article.live_revision_id == submitted.pk


@pytest.mark.parametrize(
    "change",
    [
        {"summary": "A changed summary."},
        {"title": "A changed title"},
        {"body_paragraph": "<p>Changed words.</p>"},
    ],
)
def test_an_approval_with_changes_still_saves_them_as_a_revision(client, demo, editor, moderator, change):
    from wagtail.test.utils.form_data import rich_text

    client.force_login(editor)
    article = submit_new_article(client, demo.blog)
    client.force_login(moderator)
    change = dict(change)
    paragraph = change.pop("body_paragraph", None)
    data = browser_form_data(article, **change)
    if paragraph:
        data["body-1-value"] = rich_text(paragraph)
    data.update(APPROVE)
    assert client.post(edit_url(article), data).status_code == 302
    article.refresh_from_db()
    assert revisions(article).count() == 2
    live = article.live_revision.as_object()
    if paragraph:
        assert "Changed words." in str(live.body[1].value)
    else:
        for name, value in change.items():
            assert getattr(live, name) == value
