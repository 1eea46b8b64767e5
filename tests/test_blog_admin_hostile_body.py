"""Crafted article bodies posted to the page editor: each is a form error, never a 500, and the
page keeps its last good revision."""

import json

from django.urls import reverse

from wagtail.models import Revision
from wagtail.test.utils.form_data import rich_text

import pytest

from blog.models import ArticlePage

from .admin_forms import article_form_data

pytestmark = pytest.mark.django_db

TABLE = {"table_header_choice": "row", "first_row_is_table_header": True, "table_caption": "t"}


def draftail(entity_data: dict) -> str:
    """A Draftail post with one link entity carrying ``entity_data``."""
    return json.dumps(
        {
            "blocks": [
                {
                    "key": "a1b2c",
                    "text": "see here",
                    "type": "unstyled",
                    "depth": 0,
                    "inlineStyleRanges": [],
                    "entityRanges": [{"offset": 4, "length": 4, "key": 0}],
                    "data": {},
                }
            ],
            "entityMap": {"0": {"type": "LINK", "mutability": "MUTABLE", "data": entity_data}},
        }
    )


BAD_BODIES = {
    "table cells that are not text": ("table", json.dumps({**TABLE, "data": [[1, None]]})),
    "table data that is a string": ("table", json.dumps({**TABLE, "data": "abc"})),
    "table that is not JSON": ("table", "{nope"),
    "table that is a JSON list": ("table", "[]"),
    "table with broken cell settings": ("table", json.dumps({**TABLE, "data": [["a"]], "cell": [{"row": "x"}]})),
    "table too large": ("table", json.dumps({**TABLE, "data": [["x"]] * 101})),
    "image id that does not exist": ("image", {"image": "999999", "alt_text": "A chart.", "caption": ""}),
    "image id that is not a number": ("image", {"image": "abc", "alt_text": "A chart.", "caption": ""}),
    "link to a page id that is not a number": ("paragraph", draftail({"id": "abc", "url": "/x/"})),
    "paragraph that is not JSON": ("paragraph", "{not json"),
    "paragraph that is raw HTML": ("paragraph", "<p>Hello</p>"),
    "paragraph that is a JSON list": ("paragraph", "[]"),
    "paragraph whose blocks are a string": ("paragraph", '{"blocks": "x"}'),
    "paragraph naming a missing entity": ("paragraph", draftail({"url": "/x/"}).replace('"key": 0', '"key": 7')),
}


def nested_arrays(depth: int) -> str:
    return "[" * depth + "]" * depth


def nested_objects(depth: int) -> str:
    return '{"a": ' * depth + "1" + "}" * depth


# JSON nested past Python's recursion limit: ``json.loads`` raises RecursionError, not ValueError.
# Each block that reads posted JSON, the JSON at the top and deep inside an otherwise good post.
for depth in (1_100, 100_000):
    BAD_BODIES |= {
        f"paragraph of arrays nested {depth} deep": ("paragraph", nested_arrays(depth)),
        f"paragraph of objects nested {depth} deep": ("paragraph", nested_objects(depth)),
        f"paragraph whose entity data is nested {depth} deep": (
            "paragraph",
            draftail({}).replace('"data": {}}}', f'"data": {nested_objects(depth)}}}}}'),
        ),
        f"callout text nested {depth} deep": ("callout", {"kind": "note", "title": "", "text": nested_arrays(depth)}),
        f"table of arrays nested {depth} deep": ("table", nested_arrays(depth)),
        f"table whose data is nested {depth} deep": (
            "table",
            json.dumps(TABLE)[:-1] + f', "data": {nested_arrays(depth)}}}',
        ),
    }


@pytest.mark.parametrize("name", BAD_BODIES)
def test_crafted_body_is_a_form_error_and_keeps_the_page(client, demo, editor, name):
    article = demo.articles[3]
    revisions = Revision.objects.filter(object_id=str(article.pk)).count()
    client.force_login(editor)
    body = [("heading", {"text": "Setting the scene", "level": "h2", "anchor": ""}), BAD_BODIES[name]]
    response = client.post(
        reverse("wagtailadmin_pages:edit", args=(article.pk,)), article_form_data(article.slug, body=body)
    )
    assert response.status_code == 200, name
    assert "The page could not be saved due to validation errors" in response.content.decode()
    assert Revision.objects.filter(object_id=str(article.pk)).count() == revisions
    assert client.get(reverse("wagtailadmin_pages:edit", args=(article.pk,))).status_code == 200


def test_good_table_image_and_page_link_still_save(client, demo, editor):
    article = demo.articles[3]
    client.force_login(editor)
    body = [
        ("heading", {"text": "Setting the scene", "level": "h2", "anchor": ""}),
        ("table", json.dumps({**TABLE, "data": [["GPU", "Cost"], ["H100", None]]})),
        ("image", {"image": str(article.image.pk), "alt_text": "A chart.", "caption": ""}),
        ("paragraph", draftail({"id": demo.blog.pk, "url": "/blog/"})),
        ("paragraph", rich_text("<p>Plain.</p>")),
    ]
    response = client.post(
        reverse("wagtailadmin_pages:edit", args=(article.pk,)), article_form_data(article.slug, body=body)
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    draft = ArticlePage.objects.get(pk=article.pk).get_latest_revision_as_object()
    assert [block.block_type for block in draft.body] == ["heading", "table", "image", "paragraph", "paragraph"]
    assert f'linktype="page" id="{demo.blog.pk}"' in draft.body[3].value.source


def test_a_stored_page_link_with_a_bad_id_renders_as_text(client, demo, editor):
    """Data saved before the form refused it: the page, preview and editor still open."""
    from blog.blocks import without_bad_page_links

    article = demo.articles[3]
    article.body = [{"type": "paragraph", "value": '<p>see <a linktype="page" id="abc">here</a></p>'}]
    article.save_revision().publish()
    assert 'id="abc"' not in client.get(article.url).content.decode()
    client.force_login(editor)
    assert client.get(reverse("wagtailadmin_pages:edit", args=(article.pk,))).status_code == 200
    assert without_bad_page_links('<a linktype="page" id="99999999999">x</a> <a linktype="page" id="3">y</a>') == (
        'x <a id="3" linktype="page">y</a>'
    )


def test_table_block_messages_say_what_to_fix():
    from blog.blocks import DataTableBlock

    block = DataTableBlock()
    with pytest.raises(Exception, match="list of text cells"):
        block.clean({**TABLE, "data": [[1, None]]})
    with pytest.raises(Exception, match="table editor's format"):
        block.clean({**TABLE, "data": "abc"})
    with pytest.raises(Exception, match="at most 12 columns"):
        block.clean({**TABLE, "data": [["x"] * 13]})
