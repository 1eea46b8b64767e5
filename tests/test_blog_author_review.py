"""Authors go through review like articles (issue 16): an editor's change to an author's name,
photo or bio is a draft until a moderator approves it; readers see only the live version."""

from django.apps import apps
from django.contrib.messages import get_messages
from django.urls import reverse

from wagtail.models import DraftStateMixin, Page, Revision, WorkflowState
from wagtail.snippets.models import get_snippet_models

import pytest

from blog.forms import INVISIBLE_NAME
from blog.models import Author

from .admin_forms import INVISIBLE_TEXTS
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


# Drafts keep an author's identity: name and slug --------------------------------------------------


def new_author_data(name: str, slug: str, action=None) -> dict:
    """POST data for a new author, saved as a draft unless ``action`` says otherwise."""
    data = {"name": name, "slug": slug, "role": "", "photo": "", "bio": ""}
    if action:
        data[f"action-{action}"] = action
    return data


def form_errors(response) -> dict[str, str]:
    """The snippet form's errors by field, each field's messages joined."""
    assert response.status_code == 200, response.status_code
    return {name: " ".join(errors) for name, errors in response.context["form"].errors.items()}


def test_two_blank_name_drafts_are_form_errors_not_a_500(client, demo, editor):
    """Was 302 then a 500 (``IntegrityError``): Wagtail deferred the name's required check for the
    draft, and Django's uniqueness check skips a deferred empty value."""
    client.force_login(editor)
    before = Author.objects.count()
    for slug in ("empty-name-a", "empty-name-b"):
        response = client.post(author_url("add"), new_author_data("", slug))
        assert form_errors(response) == {"name": "This field is required."}
    assert Author.objects.count() == before


@pytest.mark.parametrize("name", INVISIBLE_TEXTS.values(), ids=INVISIBLE_TEXTS.keys())
@pytest.mark.parametrize("action", [None, "submit"])
def test_a_name_that_shows_nothing_is_refused(client, demo, editor, name, action):
    client.force_login(editor)
    response = client.post(author_url("add"), new_author_data(name, "invisible", action))
    assert form_errors(response)["name"] in ("This field is required.", INVISIBLE_NAME)
    assert not Author.objects.filter(slug="invisible").exists()


@pytest.mark.parametrize("name", ["", *INVISIBLE_TEXTS.values()], ids=["empty", *INVISIBLE_TEXTS.keys()])
def test_an_existing_authors_draft_cannot_blank_the_name(client, credited, editor, name):
    author, _article = credited
    client.force_login(editor)
    response = client.post(author_url("edit", author.pk), author_form_data(author, name=name))
    assert "name" in form_errors(response)
    assert Author.objects.get(pk=author.pk).get_latest_revision_as_object().name == "Cedana Editorial"


@pytest.mark.parametrize(
    ("fields", "field", "error"),
    [
        ({"slug": ""}, "slug", "This field is required."),
        ({"slug": "   "}, "slug", "This field is required."),
        ({"name": "Cedana Editorial"}, "name", "Author with this Name already exists."),
        ({"slug": "cedana-editorial"}, "slug", "Author with this Slug already exists."),
    ],
    ids=["blank-slug", "spaces-slug", "taken-name", "taken-slug"],
)
def test_a_draft_needs_its_own_name_and_slug(client, demo, editor, fields, field, error):
    client.force_login(editor)
    data = new_author_data("Ada Draft", "ada-draft") | fields
    response = client.post(author_url("add"), data)
    assert form_errors(response)[field] == error
    assert not Author.objects.filter(name="Ada Draft").exists()


def test_a_visible_name_with_invisible_characters_saves_as_typed(client, demo, editor):
    client.force_login(editor)
    response = client.post(author_url("add"), new_author_data("\u200bAda\u00a0Lovelace", "ada"))
    assert response.status_code == 302
    assert Author.objects.get(slug="ada").name == "\u200bAda\u00a0Lovelace"


def draft_state_forms():
    """``(model, form class)`` of every model with drafts: pages' editor and snippets' forms."""
    forms = []
    for model in apps.get_models():
        if not issubclass(model, DraftStateMixin):
            continue
        if issubclass(model, Page):
            forms.append((model, model.get_edit_handler().get_form_class()))
        else:
            assert model in get_snippet_models(), f"{model} has drafts but no snippet form to check"
            forms.append((model, model.snippet_viewset.get_edit_handler().get_form_class()))
    return forms


def test_no_draft_form_defers_a_unique_field():
    """A unique field that "Save draft" defers (not required) and leaves empty is left out of
    Django's uniqueness check, so a second empty draft is an ``IntegrityError``: every form with
    drafts keeps each unique field that the model requires required for drafts too
    (``FieldPanel(..., required_on_save=True)``)."""
    checked = []
    for model, form_class in draft_state_forms():
        form = form_class(instance=model(), for_user=None)
        form.defer_required_fields()  # what the editor does on "Save draft"
        for name, field in form.fields.items():
            model_field = next((f for f in model._meta.concrete_fields if f.name == name), None)
            if model_field is not None and model_field.unique and not model_field.blank:
                assert field.required, f"{model.__name__}.{name} is deferred for drafts"
                checked.append(f"{model.__name__}.{name}")
    assert {"Author.name", "Author.slug"} <= set(checked)


# Approve from the workflow action view checks the draft it would publish -------------------------


def approve_url(author) -> str:
    task_state = Author.objects.get(pk=author.pk).current_workflow_task_state
    return author_url("workflow_action", author.pk, "approve", task_state.pk)


def submitted_author(client, editor) -> Author:
    """A new author, "Newt Draft", submitted for review by ``editor``."""
    client.force_login(editor)
    response = client.post(author_url("add"), new_author_data("Newt Draft", "newt-draft", "submit"))
    assert response.status_code == 302
    return Author.objects.get(slug="newt-draft")


def refusal(response) -> str:
    return " ".join(str(m) for m in get_messages(response.wsgi_request) if "Not approved" in str(m))


# Drafts the form refuses that can still be the latest revision: saved before names were required
# for drafts, or made in the shell (``save_revision(clean=False)``).
INCOMPLETE_DRAFTS = {
    "blank name": ({"name": ""}, "Name: This field cannot be blank."),
    "blank slug": ({"slug": ""}, "Slug: This field cannot be blank."),
    "name too long": ({"name": "N" * 101}, "Name: Ensure this value has at most 100 characters (it has 101)."),
    "name of zero-width characters": ({"name": "\u200b\u200d"}, "Name: Enter a name readers can see"),
}


@pytest.mark.parametrize(("changes", "advice"), INCOMPLETE_DRAFTS.values(), ids=INCOMPLETE_DRAFTS.keys())
def test_approving_an_incomplete_author_draft_is_refused(client, demo, editor, moderator, changes, advice):
    newt = submitted_author(client, editor)
    for field, value in changes.items():
        setattr(newt, field, value)
    newt.save_revision(user=moderator, clean=False)

    client.force_login(moderator)
    response = client.post(approve_url(newt), {"next": "/admin/"}, follow=True)
    assert response.redirect_chain == [("/admin/", 302)]
    html = response.content.decode()
    assert "Not approved, so nothing was published." in html
    assert advice in html
    assert Author.objects.get(pk=newt.pk).live is False
    assert WorkflowState.objects.for_instance(newt).get().status == WorkflowState.STATUS_IN_PROGRESS
    # "Approve with comment" (the modal) is sent to the author's editor, as Wagtail's view sends it.
    response = client.post(approve_url(newt), {"comment": "Fine."}, headers={"x-requested-with": "XMLHttpRequest"})
    assert response.json() == {"step": "success", "redirect": author_url("edit", newt.pk)}
    client.logout()
    assert client.get("/blog/authors/newt-draft/").status_code == 404

    # Completed in the editor, the same approval publishes.
    client.force_login(moderator)
    newt = Author.objects.get(pk=newt.pk)
    complete = {"name": "Newt Draft", "slug": "newt-draft"}
    assert client.post(author_url("edit", newt.pk), author_form_data(newt, **complete)).status_code == 302
    assert client.post(approve_url(newt)).status_code == 302
    newt = Author.objects.get(pk=newt.pk)
    assert (newt.live, newt.name) == (True, "Newt Draft")
    assert WorkflowState.objects.for_instance(newt).get().status == WorkflowState.STATUS_APPROVED


def test_the_refusal_names_a_draft_without_a_name_by_its_model(client, demo, editor, moderator):
    newt = submitted_author(client, editor)
    newt.name = ""
    newt.save_revision(user=moderator, clean=False)
    client.force_login(moderator)
    response = client.post(approve_url(newt))
    assert response.status_code == 302
    assert f"“Author {newt.pk}”: Name: This field cannot be blank." in refusal(response)


def test_approving_a_rename_to_a_name_taken_meanwhile_is_refused_not_a_500(client, credited, editor, moderator):
    """Was an ``IntegrityError``: the form checked the name against the other authors when the
    draft was saved, and another author took it before approval."""
    author, _article = credited
    client.force_login(editor)
    response = client.post(author_url("edit", author.pk), author_form_data(author, "submit", name="Grace Hopper"))
    assert response.status_code == 302
    Author.objects.create(name="Grace Hopper", slug="grace-hopper")

    client.force_login(moderator)
    response = client.post(approve_url(author))
    assert response.status_code == 302
    assert "Name: Author with this Name already exists." in refusal(response)
    assert Author.objects.get(pk=author.pk).name == "Cedana Editorial"
    assert WorkflowState.objects.for_instance(author).get().status == WorkflowState.STATUS_IN_PROGRESS


def test_the_author_approval_check_leaves_wagtails_own_refusals_alone(client, demo, editor, moderator):
    newt = submitted_author(client, editor)
    newt.name = ""
    newt.save_revision(user=moderator, clean=False)
    # The editor may not approve: Wagtail refuses them, and they are not told what the draft lacks.
    response = client.post(approve_url(newt))
    assert response.status_code in (302, 403)
    assert refusal(response) == ""
    assert Author.objects.get(pk=newt.pk).live is False
