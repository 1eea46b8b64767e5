"""StreamField blocks: rendering, escaping and the validation editors see."""

from django.core.exceptions import ValidationError

import pytest

from blog import blocks
from blog.blocks import ArticleBodyBlock, heading_anchor, highlight_code


def test_every_block_has_icon_template_description():
    for name, block in ArticleBodyBlock().child_blocks.items():
        assert block.meta.icon not in (None, "placeholder"), name
        assert block.meta.template.startswith("components/streamfield/blocks/"), name
        assert block.meta.description, name


@pytest.mark.django_db
def test_blocks_with_preview_values_render():
    for name, block in ArticleBodyBlock().child_blocks.items():
        preview = block.get_preview_value()
        if preview is None:
            continue
        html = block.render(preview)
        assert html.strip(), name


def test_heading_anchor_defaults_to_slug_and_respects_override():
    assert heading_anchor({"text": "Where the GPU-hours go", "anchor": ""}) == "where-the-gpu-hours-go"
    assert heading_anchor({"text": "Anything", "anchor": "break-even"}) == "break-even"
    assert heading_anchor({"text": "!!!", "anchor": ""}) == "section"


def test_heading_rejects_an_anchor_that_is_not_a_slug():
    block = blocks.HeadingBlock()
    value = block.to_python({"text": "Costs", "level": "h2", "anchor": "Not a slug!"})
    with pytest.raises(ValidationError) as error:
        block.clean(value)
    assert "lowercase letters" in str(error.value.block_errors["anchor"])


def test_code_is_escaped_and_highlighted():
    html = highlight_code("x = '<script>alert(1)</script>'", "python")
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    assert 'class="highlight"' in html


def test_code_rejects_unknown_language():
    block = blocks.CodeBlock()
    value = block.to_python({"language": "cobol", "filename": "", "source": "x"})
    with pytest.raises(ValidationError):
        block.clean(value)


def test_table_must_be_rectangular_and_non_empty():
    block = blocks.DataTableBlock()
    good = {"data": [["a", "b"], ["1", "2"]], "table_header_choice": "row", "table_caption": "t"}
    assert block.clean(good)["data"] == [["a", "b"], ["1", "2"]]
    with pytest.raises(ValidationError, match="same number of columns"):
        block.clean({"data": [["a", "b"], ["1"]], "table_header_choice": "row"})
    with pytest.raises(ValidationError, match="at least one row"):
        block.clean({"data": [["", ""]], "table_header_choice": "row"})


def test_table_renders_header_row_and_caption():
    html = blocks.DataTableBlock().render(
        {"data": [["GPU", "Cost"], ["H100", "<b>4</b>"]], "first_row_is_table_header": True, "table_caption": "Rates"}
    )
    assert ">Rates</figcaption>" in html
    assert '<th scope="col">GPU</th>' in html
    assert "&lt;b&gt;4&lt;/b&gt;" in html


def test_cta_rejects_javascript_urls():
    block = blocks.CallToActionBlock()
    # normalize() builds the value as the admin form does; to_python() (loading stored data)
    # blanks an unsafe URL instead, see tests/test_security_rich_text.py.
    value = block.normalize({"heading": "h", "text": "", "label": "Go", "url": "javascript:alert(1)"})
    with pytest.raises(ValidationError):
        block.clean(value)
    assert block.to_python({"heading": "h", "text": "", "label": "Go", "url": "javascript:alert(1)"})["url"] == ""


def test_paragraph_features_are_restricted():
    assert set(blocks.ParagraphBlock().features) == {"bold", "italic", "link", "code", "ol", "ul"}


def test_figure_requires_alt_text():
    block = blocks.FigureBlock()
    with pytest.raises(ValidationError):
        block.clean(block.to_python({"image": None, "alt_text": "", "caption": ""}))


def test_heading_anchor_keeps_non_latin_text():
    assert heading_anchor({"text": "Обзор результатов", "anchor": ""}) == "обзор-результатов"
    assert heading_anchor({"text": "日本語", "anchor": ""}) == "日本語"


def test_heading_refuses_an_anchor_the_page_template_uses():
    block = blocks.HeadingBlock()
    value = block.to_python({"text": "Costs", "level": "h2", "anchor": "toc-heading"})
    with pytest.raises(ValidationError) as error:
        block.clean(value)
    assert "used by the page itself" in str(error.value.block_errors["anchor"])
