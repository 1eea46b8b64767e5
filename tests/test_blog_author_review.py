"""Authors go through review like articles (issue 16): an editor's change to an author's name,
photo or bio is a draft until a moderator approves it; readers see only the live version."""

from django.urls import reverse

from wagtail.models import Revision, WorkflowState

import pytest

from blog.models import Author

from .factories import ArticlePageFactory
from .sitemaps import sitemap_text

pytestmark = pytest.mark.django_db


def author_url(name: str, *args) -> str:
    return reverse(f"wagtailsnippets_blog_author:{name}", args=args)


def author_form_data(author, action=None, **fields) -> dict:
    """POST data for the Author snippet form; ``action`` is ``"publish"``, ``"submit"`` or None (draft)."""
    data = {
        "name": author.name,
        "slug": author.slug,
        "role": author.role,
        "photo": author.photo_id or "",
        "bio": author.bio,
        **fields,
    }
    if action:
        data[f"action-{action}"] = action
    return data


def workflow_action(client, author, action: str, comment: str = ""):
    author = Author.objects.get(pk=author.pk)
    task_state = author.current_workflow_task_state
    return client.post(author_url("workflow_action", author.pk, action, task_state.pk), {"comment": comment})


@pytest.fixture
def credited(demo):
    """The demo's author and one of their live articles."""
    author = Author.objects.get(slug="cedana-editorial")
    return author, demo.articles[0]


def reader_html(client, article) -> str:
    client.logout()
    return client.get(article.url).content.decode() + client.get("/blog/authors/cedana-editorial/").content.decode()


def test_the_migration_keeps_existing_authors_live_with_a_first_revision(demo):
    from importlib import import_module

    from django.apps import apps

    migration = import_module("blog.migrations.0008_author_drafts_revisions_workflow")
    # Rows as they were before the migration: no revision (the demo loads after migrations).
    old = [Author.objects.create(name=f"Old author {n}", slug=f"old-author-{n}", bio="Kept.") for n in range(3)]
    migration.add_first_revisions(apps, None)
    for author in old:
        author.refresh_from_db()
        assert author.live and not author.has_unpublished_changes
        assert author.latest_revision_id == author.live_revision_id is not None
        assert Revision.objects.for_instance(author).count() == 1
        restored = author.latest_revision.as_object()
        assert (restored.name, restored.slug, restored.bio, restored.live) == (author.name, author.slug, "Kept.", True)
    # Running it again changes nothing.
    migration.add_first_revisions(apps, None)
    assert all(Revision.objects.for_instance(author).count() == 1 for author in old)


@pytest.mark.parametrize(
    "change",
    [
        {"name": "Someone Else"},
        {"bio": "An unreviewed biography."},
        {"role": "Chief unreviewed officer"},
        {"photo": ""},
    ],
    ids=["name", "bio", "role", "photo"],
)
@pytest.mark.parametrize("action", [None, "publish", "submit"])
def test_an_editors_change_to_an_author_is_a_draft_readers_do_not_see(client, credited, editor, change, action):
    author, article = credited
    if "photo" in change:
        author.photo = article.image
        author.save()
    before = reader_html(client, article)
    client.force_login(editor)
    response = client.post(author_url("edit", author.pk), author_form_data(author, action, **change))
    assert response.status_code in (302, 403)
    live = Author.objects.get(pk=author.pk)
    assert (live.name, live.role, live.bio, live.photo_id) == (author.name, author.role, author.bio, author.photo_id)
    assert live.live
    if response.status_code == 302:
        assert live.has_unpublished_changes
        draft = live.get_latest_revision_as_object()
        field, value = next(iter(change.items()))
        assert getattr(draft, "photo_id" if field == "photo" else field) == (
            value or None if field == "photo" else value
        )
    assert reader_html(client, article) == before


def test_a_moderator_approves_an_authors_change_and_readers_then_see_it(client, credited, editor, moderator):
    author, article = credited
    client.force_login(editor)
    response = client.post(author_url("edit", author.pk), author_form_data(author, "submit", bio="Reviewed bio."))
    assert response.status_code == 302
    author.refresh_from_db()
    assert author.workflow_in_progress
    assert "Reviewed bio." not in reader_html(client, article)

    client.force_login(editor)
    assert workflow_action(client, author, "approve").status_code in (302, 403)
    assert "Reviewed bio." not in reader_html(client, article)

    client.force_login(moderator)
    assert workflow_action(client, author, "approve", comment="Fine.").status_code == 302
    assert WorkflowState.objects.for_instance(author).get().status == WorkflowState.STATUS_APPROVED
    assert "Reviewed bio." in reader_html(client, article)


def test_a_new_author_is_not_credited_until_approved(client, demo, editor, moderator):
    client.force_login(editor)
    data = {"name": "Newt Draft", "slug": "newt-draft", "role": "", "photo": "", "bio": "", "action-submit": "submit"}
    response = client.post(author_url("add"), data)
    assert response.status_code == 302
    newt = Author.objects.get(slug="newt-draft")
    assert not newt.live
    article = ArticlePageFactory(parent=demo.blog, topics=[demo.topics["gpu-costs"]], authors=[newt], title="By Newt")
    article.save_revision().publish()  # a real publish, so the sitemap lists the article's authors
    client.logout()
    assert "Newt Draft" not in client.get(article.url).content.decode()
    assert client.get("/blog/authors/newt-draft/").status_code == 404
    api = client.get(f"/api/v2/pages/{article.pk}/").json()
    assert api["authors"] == []
    assert "/blog/authors/newt-draft/" not in sitemap_text(client)

    client.force_login(moderator)
    assert workflow_action(client, newt, "approve").status_code == 302
    client.logout()
    assert "Newt Draft" in client.get(article.url).content.decode()
    assert client.get("/blog/authors/newt-draft/").status_code == 200
    assert "/blog/authors/newt-draft/" in sitemap_text(client)


def test_author_preview_shows_the_draft_card(client, credited, editor):
    author, _article = credited
    client.force_login(editor)
    url = author_url("preview_on_edit", author.pk)
    response = client.post(url, author_form_data(author, bio="Previewed bio."))
    assert response.json()["is_valid"] is True
    html = client.get(url).content.decode()
    assert "Previewed bio." in html
    assert 'class="author-card"' in html


def test_editors_can_lock_authors_but_only_moderators_unlock_others_locks(client, credited, editor, moderator):
    author, _article = credited
    client.force_login(moderator)
    client.post(author_url("lock", author.pk))
    author.refresh_from_db()
    assert author.locked and author.locked_by == moderator
    client.force_login(editor)
    client.post(author_url("unlock", author.pk))
    author.refresh_from_db()
    assert author.locked
    # While locked by the moderator, the editor's change is refused.
    client.post(author_url("edit", author.pk), author_form_data(author, bio="Sneaky."))
    assert Author.objects.get(pk=author.pk).get_latest_revision_as_object().bio != "Sneaky."
