"""Code blocks: language label, line numbers and highlighted lines chosen by the editor, and the
copy button's script (progressive enhancement)."""

from django.core.exceptions import ValidationError

import pytest
from bs4 import BeautifulSoup

from blog.blocks import MAX_HIGHLIGHTED_LINES, CodeBlock, parse_line_ranges

from .factories import ArticlePageFactory

SOURCE = "".join(f"line_{number} = {number}\n" for number in range(1, 11))  # ten lines


def code_value(**fields):
    value = {"language": "python", "filename": "", "source": SOURCE, "show_line_numbers": False}
    value["highlight_lines"] = ""
    value.update(fields)
    return CodeBlock().to_python(value)


def render(**fields) -> BeautifulSoup:
    return BeautifulSoup(CodeBlock().render(code_value(**fields)), "html.parser")


@pytest.mark.parametrize(
    ("text", "lines"),
    [("", []), ("3", [3]), ("3, 5-7", [3, 5, 6, 7]), (" 7 - 9 ,2,", [2, 7, 8, 9]), ("1-10", list(range(1, 11)))],
)
def test_line_ranges_name_lines_from_one(text, lines):
    assert parse_line_ranges(text, 10) == lines


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0", "numbered from 1"),
        ("0-3", "numbered from 1"),
        ("-1", "not a line number"),
        ("5-3", "runs backwards"),
        ("a", "not a line number"),
        ("3;4", "not a line number"),
        ("3-", "not a line number"),
        ("1.5", "not a line number"),
        ("٣", "not a line number"),  # an Arabic-Indic digit: \d would take it, the rule does not
        ("11", "goes past the end"),
        ("2-11", "goes past the end"),
        ("1-99999999999999999999", "goes past the end"),
        ("9" * 90, "goes past the end"),
    ],
)
def test_hostile_line_ranges_get_a_message_saying_how_to_fix_them(text, message):
    with pytest.raises(ValidationError) as raised:
        parse_line_ranges(text, 10)
    assert message in raised.value.messages[0]


def test_too_many_highlighted_lines_are_refused():
    assert len(parse_line_ranges(f"1-{MAX_HIGHLIGHTED_LINES}", 10_000)) == MAX_HIGHLIGHTED_LINES
    with pytest.raises(ValidationError, match="at most"):
        parse_line_ranges(f"1-{MAX_HIGHLIGHTED_LINES + 1}", 10_000)


@pytest.mark.parametrize("text", ["0", "-1", "5-3", "a", "1-100000", "11"])
def test_the_editor_sees_the_error_on_the_highlight_field(text):
    with pytest.raises(ValidationError) as raised:
        CodeBlock().clean(code_value(highlight_lines=text))
    assert set(raised.value.block_errors) == {"highlight_lines"}


def test_valid_choices_are_kept():
    value = CodeBlock().clean(code_value(show_line_numbers=True, highlight_lines="3, 5-7"))
    assert value["show_line_numbers"] is True
    assert value["highlight_lines"] == "3, 5-7"


def test_the_language_is_labelled_and_the_filename_shown():
    soup = render(language="bash", filename="deploy.sh", source="echo hi\n")
    header = soup.select_one("figcaption.block-code__header")
    assert header.select_one(".block-code__language").get_text() == "Shell (bash)"
    assert header.select_one(".block-code__filename").get_text() == "deploy.sh"


def test_without_options_the_code_is_one_plain_listing():
    soup = render()
    assert not soup.select("table, .linenos, .hll")
    assert soup.select_one(".highlight pre").get_text() == SOURCE


def test_line_numbers_sit_in_their_own_column_so_the_code_copies_without_them():
    soup = render(show_line_numbers=True)
    numbers = soup.select_one("td.linenos").get_text().split()
    assert numbers == [str(number) for number in range(1, 11)]
    assert soup.select_one("td.code pre").get_text() == SOURCE


def test_highlighted_lines_are_marked_by_pygments():
    soup = render(highlight_lines="3, 5-7")
    assert [span.get_text() for span in soup.select(".hll")] == [f"line_{n} = {n}\n" for n in (3, 5, 6, 7)]
    assert soup.select_one(".highlight pre").get_text() == SOURCE


def test_a_stored_range_past_a_shortened_source_renders_without_highlights():
    soup = render(source="x = 1\n", highlight_lines="3-9")
    assert not soup.select(".hll")
    assert "x" in soup.get_text()


def test_the_same_listing_is_lexed_once_and_each_option_separately(monkeypatch):
    """Highlighting is memoised by its arguments (``blog.blocks._highlighted``): a feed of twenty
    bodies, or a page rendered again, lexes each listing once; another option is another entry."""
    import blog.blocks

    calls = []
    real = blog.blocks.highlight
    monkeypatch.setattr(blog.blocks, "highlight", lambda *args: calls.append(args) or real(*args))
    source = "memo_probe = 1\n"
    first = render(source=source)
    assert render(source=source).decode() == first.decode()
    assert len(calls) == 1
    with_numbers = render(source=source, show_line_numbers=True)
    assert len(calls) == 2 and with_numbers.select_one("td.linenos")
    render(source=source, highlight_lines="1")
    assert len(calls) == 3


def test_the_code_stays_escaped_with_every_option():
    soup = render(source="s = '</pre><script>alert(1)</script>'\n", show_line_numbers=True, highlight_lines="1")
    assert not soup.find("script")
    assert "<script>alert(1)</script>" in soup.select_one("td.code pre").get_text()


@pytest.mark.django_db
def test_the_article_page_loads_the_copy_script_and_renders_the_options(client, demo):
    body = [
        {
            "type": "code",
            "value": {
                "language": "sql",
                "filename": "q.sql",
                "source": "select 1;\nselect 2;\n",
                "show_line_numbers": True,
                "highlight_lines": "2",
            },
        }
    ]
    article = ArticlePageFactory(parent=demo.blog, title="Numbered listing", body=body)
    html = client.get(article.url).content.decode()
    soup = BeautifulSoup(html, "html.parser")
    assert soup.find("script", src="/static/js/code-copy.js")
    block = soup.select_one("figure.block-code[data-code-block]")
    assert block.select_one(".block-code__language").get_text() == "SQL"
    assert block.select_one(".hll").get_text() == "select 2;\n"
    assert not block.find("button")  # the script adds it: without JavaScript there is none
