"""A draft saves whatever is incomplete in any block; publishing refuses it with the block's field
errors (issue 15, "Drafts"). Wagtail defers required checks on "Save draft"
(``Block.is_deferred_validation``); our blocks' own checks defer with them."""

import json

from django.urls import reverse

from wagtail.models import Revision
from wagtail.test.utils.form_data import rich_text

import pytest

from blog.models import ArticlePage

from .admin_forms import article_form_data

pytestmark = pytest.mark.django_db

SECTION = ("heading", {"text": "Setting the scene", "level": "h2", "anchor": ""})
HEADER = {"table_header_choice": "row", "first_row_is_table_header": True, "table_caption": ""}
EMPTY_CELLS = [[None, None], [None, None]]  # what the table editor posts for a table just inserted

CHART = {"title": "Idle hours", "kind": "bar", "series": "", "summary": ""}
CHART.update({"x_title": "", "x_unit": "", "y_title": "", "y_unit": ""})


def notes(*values) -> dict:
    """A footnotes block's form value: its list of notes as the editor posts it."""
    items = {str(i): {"value": value, "deleted": "", "order": i, "id": ""} for i, value in enumerate(values)}
    return {"notes": {"count": len(values), **items}}


# (block, what the publish error says): each block as an editor leaves it half done.
INCOMPLETE = {
    "table just inserted": (("table", json.dumps({**HEADER, "data": EMPTY_CELLS})), "at least one row"),
    "table with no rows": (("table", json.dumps({**HEADER, "data": []})), "at least one row"),
    "table with blank cells only": (("table", json.dumps({**HEADER, "data": [["", " "]]})), "at least one row"),
    "table with ragged rows": (("table", json.dumps({**HEADER, "data": [["a", "b"], ["c"]]})), "same number"),
    "table without a header choice": (
        ("table", json.dumps({"table_caption": "", "data": [["a"]]})),
        "header: first row, first column",
    ),
    "image block without image": (("image", {"image": "", "alt_text": "A chart.", "caption": ""}), "required"),
    "image block without alt text": (("image", {"image": "", "alt_text": "", "caption": ""}), "required"),
    "code block without language or source": (("code", {"language": "", "filename": "", "source": ""}), "required"),
    "code block without source": (("code", {"language": "python", "filename": "", "source": ""}), "required"),
    "heading without text": (("heading", {"text": "", "level": "h2", "anchor": ""}), "required"),
    "quote without text": (("quote", {"quote": "", "attribution": ""}), "required"),
    "callout without text": (("callout", {"kind": "note", "title": "", "text": rich_text("")}), "required"),
    "key figure without value": (("key_figure", {"value": "", "unit": "", "label": ""}), "required"),
    "video without URL": (("embed", {"video": "", "caption": ""}), "required"),
    "call to action without heading": (("cta", {"heading": "", "text": "", "label": "", "url": ""}), "required"),
    "paragraph left empty": (("paragraph", rich_text("")), "required"),
    "formula left empty": (("math", ""), "required"),
    "chart without data": (("chart", {**CHART, "data": ""}), "required"),
    "chart without title or data": (("chart", {**CHART, "title": "", "data": ""}), "required"),
    "note without label or text": (("footnotes", notes({"label": "", "text": rich_text("")})), "required"),
    "note without text": (("footnotes", notes({"label": "idle", "text": rich_text("")})), "required"),
    "notes without a note": (("footnotes", notes()), "at least 1"),
}


@pytest.mark.parametrize("name", INCOMPLETE)
def test_a_draft_saves_an_incomplete_block_and_publishing_refuses_it(client, demo, moderator, name):
    block, message = INCOMPLETE[name]
    article = demo.articles[3]
    url = reverse("wagtailadmin_pages:edit", args=(article.pk,))
    client.force_login(moderator)
    live_revision = article.live_revision_id

    draft = client.post(url, article_form_data(article.slug, body=[SECTION, block]))
    assert draft.status_code == 302, (name, draft.content.decode()[:2000])
    saved = ArticlePage.objects.get(pk=article.pk).get_latest_revision_as_object()
    assert [child.block_type for child in saved.body] == ["heading", block[0]], name

    revisions = Revision.objects.filter(object_id=str(article.pk)).count()
    published = client.post(url, article_form_data(article.slug, body=[SECTION, block], action="publish"))
    assert published.status_code == 200, name
    html = published.content.decode()
    assert "The page could not be" in html and message in html, name
    assert Revision.objects.filter(object_id=str(article.pk)).count() == revisions
    assert ArticlePage.objects.get(pk=article.pk).live_revision_id == live_revision
