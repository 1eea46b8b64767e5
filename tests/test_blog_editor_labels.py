"""The editor's words and fields (issue 16, the workspace): "Call to action", the table block's
help and header row, a title field that shows the whole title, and the code block's monospace
source that keeps tabs, its highlighted block preview and its compare view's line breaks."""

from django.urls import reverse

import pytest

from blog.blocks import CodeSourceBlock, CodeSourceComparison
from blog.models import ArticlePage

from .admin_forms import article_form_data

pytestmark = pytest.mark.django_db

BODY = ArticlePage._meta.get_field("body").stream_block


def add_url(blog):
    return reverse("wagtailadmin_pages:add", args=("blog", "articlepage", blog.pk))


def test_the_call_to_action_block_is_called_call_to_action(admin_client, demo):
    assert BODY.child_blocks["cta"].label == "Call to action"
    html = admin_client.get(add_url(demo.blog)).content.decode()
    assert "Call to action" in html and '"Cta"' not in html


def test_the_table_block_explains_rows_and_columns_and_starts_with_a_header_row():
    table = BODY.child_blocks["table"]
    assert "add or remove rows and columns" in table.field.help_text
    assert "Insert row above/below" in table.field.help_text
    default = table.get_default()
    assert default["first_row_is_table_header"] is True and default["table_header_choice"] == "row"
    assert len(default["data"]) == 3 and all(len(row) == 3 for row in default["data"])


def test_the_title_is_a_text_area_that_grows(admin_client, demo):
    html = admin_client.get(add_url(demo.blog)).content.decode()
    start = html.index('name="title"')
    tag = html[html.rindex("<", 0, start) : html.index(">", start)]
    assert tag.startswith("<textarea") and "w-autosize" in tag and "maxlength=" in tag


@pytest.mark.parametrize(
    "title", ["Line one\nline two", "Line one\r\nline two", "Line one \n\n line two", "Line one\u2028line two"]
)
def test_line_breaks_typed_into_the_title_become_spaces(admin_client, demo, title):
    response = admin_client.post(add_url(demo.blog), article_form_data("two-lines", title=title))
    assert response.status_code == 302
    assert ArticlePage.objects.get(slug="two-lines").title == "Line one line two"


@pytest.mark.parametrize(
    "source",
    ["\tindented = True\n", "    four_spaces()\n\n", "\t\tdeep\n\tless\nnone", "x = 1\t# a tab before the comment"],
)
def test_code_source_keeps_tabs_and_indentation(source):
    code = BODY.child_blocks["code"]
    assert code.child_blocks["source"].field.clean(source) == source
    value = code.to_python({"language": "python", "filename": "", "source": source})
    assert code.clean(value)["source"] == source
    assert "\t" in code.render(value) or "\t" not in source


def test_code_source_is_a_monospace_text_area_in_the_editor(admin_client, demo):
    widget_html = CodeSourceBlock().field.widget.render("source", "")
    assert 'class="code-source w-field__autosize"' in widget_html and 'spellcheck="false"' in widget_html
    html = admin_client.get(add_url(demo.blog)).content.decode()
    assert "css/admin/editor.css" in html
    from django.contrib.staticfiles import finders

    with open(finders.find("css/admin/editor.css")) as file:
        css = file.read()
    assert ".code-source" in css and "monospace" in css and "tab-size" in css


def test_code_block_has_a_language_picker():
    language = BODY.child_blocks["code"].child_blocks["language"]
    values = [value for value, _label in language.field.choices]
    assert {"python", "bash", "sql", "text"} <= set(values)


def test_the_code_block_preview_is_highlighted_with_the_site_styles(admin_client, demo):
    code = BODY.child_blocks["code"]
    response = admin_client.get(reverse("wagtailadmin_block_preview"), {"id": code.definition_prefix})
    assert response.status_code == 200
    html = response.content.decode()
    assert '<div class="highlight">' in html or 'class="highlight"' in html
    assert 'class="k"' in html  # Pygments' keyword token: "def" is highlighted
    assert "/static/css/site.css" in html


def test_the_compare_view_keeps_the_code_line_breaks():
    block = CodeSourceBlock()
    comparison = CodeSourceComparison(block, True, True, "a = 1\nb = 2\n", "a = 1\n\tb = 3\n")
    diff = str(comparison.htmldiff())
    assert diff.startswith('<pre class="code-compare">') and "a = 1\n" in diff and "\t" in diff
    assert '<span class="addition">' in diff
    assert str(comparison.htmlvalue("x <y>\nz")) == '<pre class="code-compare">x &lt;y&gt;\nz</pre>'
    assert BODY.child_blocks["code"].child_blocks["source"].get_comparison_class() is CodeSourceComparison
