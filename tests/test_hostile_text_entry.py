"""Control characters, lone surrogates and non-characters typed or pasted into the editor are
removed when the form is cleaned (``home.text_cleaning``), on pages, the article body, authors
and the header and footer settings, and the help text says so (issue 15, "Feeds").

A NUL in a plain text field is a form error (Django's ProhibitNullCharactersValidator), as
PostgreSQL cannot store it."""

import json

from django import forms
from django.urls import reverse

from wagtail.models import Site

import pytest

from blog.models import ArticlePage, Author, BlogIndexPage, TopicPage
from home.models import HomePage, SiteChromeSettings
from home.text_cleaning import HELP_TEXT, CleanTextFormMixin, without_invalid_characters

from .admin_forms import article_form_data
from .test_hostile_links import CHROME_FIELDS

pytestmark = pytest.mark.django_db

# Characters a form post can carry (a URL-encoded post is UTF-8, so no lone surrogates there).
TYPED = ["\x01", "\x08", "\x0b", "\x0c", "\x0e", "\x1b", "\x1f", "\ufffe", "\uffff"]
# A JSON post (Draftail, the table editor) can also carry escaped lone surrogates (and NUL:
# refused in rich text like any text field, removed from table cells).
IN_JSON = [*TYPED, "\ud800", "\udfff", "\udbff"]

TABLE = {"table_header_choice": "row", "first_row_is_table_header": True, "table_caption": "t"}


def draftail(text: str) -> str:
    """A Draftail post of one paragraph, as JSON with ``\\uXXXX`` escapes (as browsers send it)."""
    block = {"key": "a1b2c", "text": text, "type": "unstyled", "depth": 0}
    block |= {"inlineStyleRanges": [], "entityRanges": [], "data": {}}
    return json.dumps({"blocks": [block], "entityMap": {}})


def assert_clean(value):
    assert without_invalid_characters(value) == value


@pytest.mark.parametrize("bad", TYPED)
def test_article_fields_and_blocks_lose_control_characters(client, demo, editor, bad):
    article = demo.articles[3]
    client.force_login(editor)
    body = [
        ("heading", {"text": f"Setting{bad} the scene", "level": "h2", "anchor": ""}),
        ("quote", {"quote": f"A{bad}B", "attribution": f"C{bad}"}),
    ]
    data = article_form_data(
        article.slug,
        body=body,
        title=f"Cost{bad} per token",
        summary=f"Sum{bad}mary",
        search_description=f"Meta{bad}",
        image_alt=f"Alt{bad}",
    )
    response = client.post(reverse("wagtailadmin_pages:edit", args=(article.pk,)), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    draft = ArticlePage.objects.get(pk=article.pk).get_latest_revision_as_object()
    assert (draft.title, draft.summary, draft.search_description) == ("Cost per token", "Summary", "Meta")
    assert draft.image_alt == "Alt"
    assert draft.body[0].value["text"] == "Setting the scene"
    assert (draft.body[1].value["quote"], draft.body[1].value["attribution"]) == ("AB", "C")


@pytest.mark.parametrize("bad", IN_JSON)
def test_rich_text_and_tables_lose_invalid_characters_from_json(client, demo, editor, bad):
    article = demo.articles[3]
    client.force_login(editor)
    body = [
        ("heading", {"text": "Setting the scene", "level": "h2", "anchor": ""}),
        ("paragraph", draftail(f"Idle{bad} hours")),
        ("table", json.dumps({**TABLE, "table_caption": f"Cap{bad}", "data": [[f"H{bad}", "x"], ["1", None]]})),
    ]
    response = client.post(
        reverse("wagtailadmin_pages:edit", args=(article.pk,)), article_form_data(article.slug, body=body)
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    draft = ArticlePage.objects.get(pk=article.pk).get_latest_revision_as_object()
    assert_clean(draft.body.get_prep_value())
    assert "Idle hours" in draft.body[1].value.source
    assert draft.body[2].value["data"][0][0] == "H"
    assert client.get(reverse("wagtailadmin_pages:edit", args=(article.pk,))).status_code == 200


NUL_POSTS = {
    "title": {"title": "Cost\x00"},
    "heading": {"body": [("heading", {"text": "Set\x00ting", "level": "h2", "anchor": ""})]},
    "paragraph": {"body": [("paragraph", draftail("Idle\x00 hours"))]},
}


@pytest.mark.parametrize("where", NUL_POSTS)
def test_a_nul_is_a_form_error(client, demo, editor, where):
    article = demo.articles[3]
    client.force_login(editor)
    revisions = article.revisions.count()
    response = client.post(
        reverse("wagtailadmin_pages:edit", args=(article.pk,)), article_form_data(article.slug, **NUL_POSTS[where])
    )
    assert response.status_code == 200
    assert "Null characters are not allowed" in response.content.decode()
    assert article.revisions.count() == revisions


def test_every_page_type_and_snippet_form_cleans_text():
    for model in (HomePage, BlogIndexPage, TopicPage, ArticlePage, Author, SiteChromeSettings):
        assert issubclass(model.base_form_class, CleanTextFormMixin), model


@pytest.mark.parametrize("bad", TYPED)
def test_author_and_settings_lose_control_characters(admin_client, demo, bad):
    author = Author.objects.first()
    response = admin_client.post(
        reverse("wagtailsnippets_blog_author:edit", args=(author.pk,)),
        {"name": f"Ada{bad} Lovelace", "slug": "ada-x", "role": f"Staff{bad}", "bio": f"Bio{bad}", "photo": ""},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    # Authors have drafts: the edit is the latest revision until it is published.
    draft = Author.objects.get(pk=author.pk).get_latest_revision_as_object()
    assert (draft.name, draft.role, draft.bio) == ("Ada Lovelace", "Staff", "Bio")

    site = Site.objects.get(is_default_site=True)
    chrome = SiteChromeSettings.for_site(site)
    data = {name: getattr(chrome, name) for name in CHROME_FIELDS} | {"footer_text": f"Foot{bad}er"}
    response = admin_client.post(reverse("wagtailsettings:edit", args=("home", "sitechromesettings", site.pk)), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert SiteChromeSettings.objects.get(site=site).footer_text == "Footer"


def test_the_help_text_says_control_characters_are_removed(client, demo, editor):
    client.force_login(editor)
    html = client.get(reverse("wagtailadmin_pages:edit", args=(demo.articles[0].pk,))).content.decode()
    assert html.count(HELP_TEXT) >= 2  # title and summary


@pytest.mark.parametrize("action", [None, "publish"])
def test_a_title_of_control_characters_only_gets_the_required_error(client, demo, moderator, action):
    """The field's required check runs before the characters are removed, so "\\x01\\x02\\x1b"
    passes it and is then cleaned to nothing: ``CleanTextFormMixin`` gives the field's own error,
    as for a field typed empty (a page title was caught later by the model, "This field cannot be
    blank."; a required field the model lets be blank would have been saved empty)."""
    client.force_login(moderator)
    article = demo.articles[0]
    revisions = article.revisions.count()
    data = article_form_data(article.slug, title="\x01\x02\x1b", action=action)
    response = client.post(reverse("wagtailadmin_pages:edit", args=(article.pk,)), data)
    assert response.status_code == 200
    assert response.context["form"].errors["title"] == ["This field is required."]
    assert article.revisions.count() == revisions


class RequiredTextForm(CleanTextFormMixin, forms.Form):
    required = forms.CharField()
    optional = forms.CharField(required=False)  # as a field Wagtail defers for a draft


@pytest.mark.parametrize("bad", TYPED)
def test_text_cleaned_to_nothing_is_required_where_the_field_is(bad):
    form = RequiredTextForm({"required": bad * 2, "optional": bad})
    assert form.errors == {"required": ["This field is required."]}
    form = RequiredTextForm({"required": f"a{bad}", "optional": bad})
    assert form.is_valid() and form.cleaned_data == {"required": "a", "optional": ""}
