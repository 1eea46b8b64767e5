"""Revision history and comparison of articles, for every body block type, through Wagtail's
admin views (history, "Compare with previous version"), as an editor."""

import re
import uuid

from django.urls import reverse

from wagtail.models import Page

import pytest
from bs4 import BeautifulSoup

from blog.blocks import ArticleBodyBlock
from blog.models import ArticlePage

pytestmark = pytest.mark.django_db

OLD_VIDEO = "https://www.youtube.com/watch?v=oldclip"
NEW_VIDEO = "https://www.youtube.com/watch?v=newclip"


def table(caption: str, cell: str) -> dict:
    return {
        "data": [["Utilization", "Cost"], [cell, "$1.85"]],
        "first_row_is_table_header": True,
        "first_col_is_header": False,
        "table_caption": caption,
    }


# block type -> (value in the first revision, value in the second, word removed, word added).
# Images are checked separately (the change is a picture, not a word).
CHANGES = {
    "heading": (
        {"text": "Oldheading", "level": "h2", "anchor": ""},
        {"text": "Newheading", "level": "h2", "anchor": ""},
    ),
    "paragraph": ("<p>The oldparagraph text.</p>", "<p>The newparagraph text.</p>"),
    "image": None,  # built from the demo's images in image_values()
    "code": (
        {"language": "python", "filename": "a.py", "source": "oldcode = 1\n"},
        {"language": "python", "filename": "a.py", "source": "newcode = 1\n"},
    ),
    "table": (table("Oldcaption", "40%"), table("Newcaption", "60%")),
    "quote": ({"quote": "The oldquote.", "attribution": "Team"}, {"quote": "The newquote.", "attribution": "Team"}),
    "callout": (
        {"kind": "note", "title": "Note", "text": "<p>The oldcallout.</p>"},
        {"kind": "note", "title": "Note", "text": "<p>The newcallout.</p>"},
    ),
    "key_figure": (
        {"value": "5.7", "unit": "points", "label": "oldfigure"},
        {"value": "5.7", "unit": "points", "label": "newfigure"},
    ),
    "embed": ({"video": OLD_VIDEO, "caption": "Demo"}, {"video": NEW_VIDEO, "caption": "Demo"}),
    "cta": (
        {"heading": "Oldcta", "text": "", "label": "Schedule demo", "url": ""},
        {"heading": "Newcta", "text": "", "label": "Schedule demo", "url": ""},
    ),
    "math": (r"\text{oldmath} = x^2", r"\text{newmath} = x^2"),
    "chart": (
        {"title": "Oldchart", "kind": "bar", "data": "GPU,Hours\nA100,5", "series": "", "y_unit": "h"},
        {"title": "Newchart", "kind": "bar", "data": "GPU,Hours\nA100,5", "series": "", "y_unit": "h"},
    ),
    "footnotes": (
        {"notes": [{"label": "a", "text": "<p>The oldnote.</p>"}]},
        {"notes": [{"label": "a", "text": "<p>The newnote.</p>"}]},
    ),
}
WORDS = {
    "heading": ("Oldheading", "Newheading"),
    "paragraph": ("oldparagraph", "newparagraph"),
    "code": ("oldcode", "newcode"),
    "table": ("Oldcaption", "Newcaption"),
    "quote": ("oldquote", "newquote"),
    "callout": ("oldcallout", "newcallout"),
    "key_figure": ("oldfigure", "newfigure"),
    "embed": ("oldclip", "newclip"),
    "cta": ("Oldcta", "Newcta"),
    "math": ("oldmath", "newmath"),
    "chart": ("Oldchart", "Newchart"),
    "footnotes": ("oldnote", "newnote"),
}


@pytest.fixture(autouse=True)
def offline_embeds(monkeypatch):
    """No oEmbed provider is reachable from tests: any embed lookup finds nothing (as offline)."""
    monkeypatch.setattr("wagtail.embeds.embeds.get_finders", lambda: [])


@pytest.fixture
def article(demo) -> ArticlePage:
    return ArticlePage.objects.get(pk=demo.articles[0].pk)


def image_values(article):
    other = ArticlePage.objects.exclude(image=article.image).exclude(image=None).first().image
    old = {"image": article.image.pk, "alt_text": "The old chart", "caption": "Chart"}
    new = {"image": other.pk, "alt_text": "The old chart", "caption": "Chart"}
    return old, new, article.image, other


def body_with(values: dict[str, object], ids: dict[str, str]) -> list[dict]:
    return [{"type": block_type, "value": value, "id": ids[block_type]} for block_type, value in values.items()]


def two_revisions(article, user, changed: str):
    """Save a revision with one block of every type, then one where only ``changed`` differs."""
    old_image, new_image, _, _ = image_values(article)
    firsts = {block_type: (pair or (old_image, new_image))[0] for block_type, pair in CHANGES.items()}
    seconds = {**firsts, changed: (CHANGES[changed] or (old_image, new_image))[1]}
    ids = {block_type: str(uuid.uuid4()) for block_type in CHANGES}
    article.body = body_with(firsts, ids)
    first = article.save_revision(user=user, log_action=True)
    article = ArticlePage.objects.get(pk=article.pk)
    article.body = body_with(seconds, ids)
    second = article.save_revision(user=user, log_action=True)
    return first, second


def compare(client, article, first, second):
    url = reverse("wagtailadmin_pages:revisions_compare", args=(article.pk, first.pk, second.pk))
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def marked(page_html: str, kind: str) -> list[str]:
    """The text of every ``<span class="addition|deletion">`` of Wagtail's text diffs."""
    return [span.get_text() for span in BeautifulSoup(page_html, "html.parser").select(f"span.{kind}")]


def changed_blocks(page_html: str) -> list[str]:
    """The text of each body block the comparison marks as changed (Wagtail wraps each block of a
    StreamField comparison in ``div.comparison__child-object``)."""
    soup = BeautifulSoup(page_html, "html.parser")
    return [
        block.get_text(" ", strip=True)
        for block in soup.select("div.comparison__child-object")
        if block.select("span.addition, span.deletion, div.addition, div.deletion")
    ]


def test_every_block_type_is_covered():
    assert set(CHANGES) == set(ArticleBodyBlock().child_blocks)


@pytest.mark.parametrize("block_type", sorted(WORDS))
def test_compare_view_shows_the_change_of_each_block_type(client, editor, article, block_type):
    client.force_login(editor)
    first, second = two_revisions(article, editor, block_type)
    page_html = compare(client, article, first, second)
    old_word, new_word = WORDS[block_type]
    # One block is shown as changed, with the old text struck out and the new text added.
    assert len(changed_blocks(page_html)) == 1
    assert any(old_word in text for text in marked(page_html, "deletion"))
    assert any(new_word in text for text in marked(page_html, "addition"))
    assert not any(new_word in text for text in marked(page_html, "deletion"))


def test_compare_view_shows_a_table_as_rows_of_cells(client, editor, article):
    client.force_login(editor)
    first, second = two_revisions(article, editor, "table")
    (changed,) = changed_blocks(compare(client, article, first, second))
    assert "Utilization | Cost" in changed and "60% | $1.85" in changed
    assert "first_row_is_table_header" not in changed  # not the stored dict's repr


def test_compare_view_shows_a_changed_figure_image(client, editor, article):
    client.force_login(editor)
    _, _, old_image, new_image = image_values(article)
    first, second = two_revisions(article, editor, "image")
    page_html = compare(client, article, first, second)
    removed = re.search(r'<div class="preview-image deletion">\s*<img[^>]*>', page_html)
    added = re.search(r'<div class="preview-image addition">\s*<img[^>]*>', page_html)
    assert removed and old_image.get_rendition("max-165x165").url in removed.group(0)
    assert added and new_image.get_rendition("max-165x165").url in added.group(0)
    assert len(changed_blocks(page_html)) == 1


def test_an_unchanged_video_is_not_shown_as_changed(client, editor, article):
    client.force_login(editor)
    first, second = two_revisions(article, editor, "heading")
    page_html = compare(client, article, first, second)
    assert OLD_VIDEO in page_html  # the video block is listed with its URL, unmarked
    changed = changed_blocks(page_html)
    assert len(changed) == 1 and "Newheading" in changed[0]


def test_history_lists_each_revision_and_links_to_its_comparison(client, editor, article):
    client.force_login(editor)
    live_body = list(article.body.raw_data)
    first, second = two_revisions(article, editor, "paragraph")
    response = client.get(reverse("wagtailadmin_pages:history", args=(article.pk,)))
    assert response.status_code == 200
    page_html = response.content.decode()
    compare_url = reverse("wagtailadmin_pages:revisions_compare", args=(article.pk, first.pk, second.pk))
    assert compare_url in page_html
    assert page_html.count("Draft saved") >= 2
    assert any("newparagraph" in text for text in marked(compare(client, article, first, second), "addition"))
    # Drafts never reach readers: the live article is unchanged.
    assert list(Page.objects.get(pk=article.pk).specific.body.raw_data) == live_body
