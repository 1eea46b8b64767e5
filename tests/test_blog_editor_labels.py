"""The editor's words and fields (issue 16, the workspace): "Call to action", the table block's
help and header row, a title field that shows the whole title and refuses one that shows
nothing, and the code block's monospace source that keeps tabs, its highlighted block preview
and its compare view's line breaks."""

from django.core.exceptions import ValidationError
from django.urls import reverse

import pytest

from blog.blocks import CodeSourceBlock, CodeSourceComparison
from blog.models import ArticlePage
from home import text_cleaning
from home.page_forms import INVISIBLE_TITLE

from .admin_forms import INVISIBLE_TEXTS, article_form_data

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


@pytest.mark.parametrize("title", INVISIBLE_TEXTS.values(), ids=INVISIBLE_TEXTS.keys())
@pytest.mark.parametrize("action", [None, "publish"])
def test_a_title_that_shows_nothing_is_refused(admin_client, demo, title, action):
    response = admin_client.post(add_url(demo.blog), article_form_data("invisible", title=title, action=action))
    assert response.status_code == 200
    # Spaces are stripped first (the field's own clean), then it is simply missing.
    assert response.context["form"].errors["title"] in ([INVISIBLE_TITLE], ["This field is required."])
    assert not ArticlePage.objects.filter(slug="invisible").exists()


@pytest.mark.parametrize("text", ["A", "7", "é", "한국어", "\u3131", "\u2801", "🙂", "\u3164x", "\u200bA\u200d"])
def test_text_with_one_visible_character_shows_something(text):
    """Beside the blank letters (Hangul fillers, the blank Braille pattern): a Hangul letter and
    a Braille pattern with a dot show."""
    assert text_cleaning.has_visible_character(text)


@pytest.mark.parametrize("title", INVISIBLE_TEXTS.values(), ids=INVISIBLE_TEXTS.keys())
def test_a_topic_page_title_that_shows_nothing_is_refused_in_the_model(demo, title):
    """Every page type (``BasePage.clean``), also where no form runs: a revision saved by code."""
    topic = demo.topics["gpu-costs"]
    topic.title = title
    with pytest.raises(ValidationError) as refused:
        topic.full_clean()
    assert refused.value.message_dict["title"] == [INVISIBLE_TITLE]


def test_a_title_and_a_taken_slug_are_both_reported(demo):
    article = ArticlePage.objects.get(pk=demo.articles[0].pk)
    article.title = "\u200b"
    article.slug = ArticlePage.objects.exclude(pk=article.pk).first().slug
    with pytest.raises(ValidationError) as refused:
        article.full_clean()
    assert set(refused.value.message_dict) >= {"title", "slug"}


def test_a_visible_title_with_invisible_characters_saves_as_typed(admin_client, demo):
    response = admin_client.post(add_url(demo.blog), article_form_data("visible", title="\u200bGPU\u00a0costs"))
    assert response.status_code == 302
    assert ArticlePage.objects.get(slug="visible").title == "\u200bGPU\u00a0costs"


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
