"""Math: the display formula block and inline ``$...$`` in paragraphs, rendered as MathML.

MathML is checked by parsing it with an XML parser, never by matching strings.
"""

import xml.etree.ElementTree as ET

from django.core.exceptions import ValidationError
from django.utils.html import escape

from wagtail.test.utils.form_data import rich_text

import pytest

from blog.blocks import ArticleBodyBlock, CalloutBlock, MathBlock, ParagraphBlock
from blog.mathml import (
    MATHML_NAMESPACE,
    TEX_ENCODING,
    LatexError,
    inline_math_spans,
    latex_to_mathml,
    rich_text_math_problems,
    rich_text_with_math,
)
from blog.models import ArticlePage

M = f"{{{MATHML_NAMESPACE}}}"


def parse(xml: str):
    return ET.fromstring(xml)  # noqa: S314 - our own output under test


def math_elements(html: str):
    """Every <math> element in an HTML fragment (wrapped so it parses as XML)."""
    root = ET.fromstring(f"<div>{html}</div>")  # noqa: S314 - our own output under test
    return root.findall(f".//{M}math")


def annotation_of(math) -> str:
    annotations = math.findall(f"{M}semantics/{M}annotation")
    assert len(annotations) == 1
    assert annotations[0].get("encoding") == TEX_ENCODING
    return annotations[0].text


def test_display_formula_is_mathml_with_the_latex_as_annotation():
    math = parse(latex_to_mathml(r"\frac{a}{b} + x^2", display="block"))
    assert math.tag == f"{M}math"
    assert math.get("display") == "block"
    semantics = math.find(f"{M}semantics")
    assert [child.tag for child in semantics][-1] == f"{M}annotation"
    presentation = semantics[0]
    fraction = presentation.find(f".//{M}mfrac")
    assert [child.find(f"{M}mi").text for child in fraction] == ["a", "b"]
    superscript = presentation.find(f".//{M}msup")
    assert [child.text for child in superscript] == ["x", "2"]
    assert annotation_of(math) == r"\frac{a}{b} + x^2"


@pytest.mark.parametrize(
    ("latex", "problem"),
    [
        ("", "empty"),
        ("   ", "empty"),
        (r"\frac{a}", "numerator and a denominator"),
        (r"\frac", "ends too early"),
        (r"\sqrt", "ends too early"),
        ("x^", "nothing after it"),
        ("a_{", "never closed"),
        ("{a", "never closed"),
        ("a}", "no opening brace"),
        (r"\left( x", r"\left"),
        (r"\begin{matrix} a", r"\begin"),
        (r"\notacommand x", r"unknown command \notacommand"),
        ("a & b", r"\&"),
        (r"\text{<script>alert(1)</script>}", "not allowed"),
        (r"\href{javascript:alert(1)}{x}", "not allowed"),
        (r"\style{color:red}{x}", "not allowed"),
        ("x" * 2001, "longer than"),
    ],
)
def test_invalid_latex_names_the_problem(latex, problem):
    with pytest.raises(LatexError, match=None) as error:
        latex_to_mathml(latex)
    assert problem in str(error.value)


@pytest.mark.parametrize(
    "latex",
    [
        r"\sum_{i=1}^{n} i",
        r"\begin{bmatrix}1&2\\3&4\end{bmatrix}",
        r"\left(\frac{a}{b}\right)",
        r"\alpha < \beta",
        r"\mathbb{R}",
        r"\text{cost} \times 5.7",
        r"\sqrt[3]{x}",
        r"\$5",
    ],
)
def test_valid_latex_renders(latex):
    math = parse(latex_to_mathml(latex))
    assert annotation_of(math) == latex


def test_math_block_validates_with_a_form_error_naming_the_problem():
    block = MathBlock()
    assert block.clean(r"E = mc^2") == "E = mc^2"
    for bad, problem in [(r"\frac{1}", "denominator"), ("x^", "nothing after it"), (r"\nope", r"\nope")]:
        with pytest.raises(ValidationError) as error:
            block.clean(bad)
        assert "cannot be rendered" in error.value.messages[0]
        assert problem in error.value.messages[0]


def test_math_block_renders_display_mathml_and_api_has_latex_and_mathml():
    block = MathBlock()
    (math,) = math_elements(block.render(r"P = \frac{F}{B}"))
    assert math.get("display") == "block"
    assert annotation_of(math) == r"P = \frac{F}{B}"
    api = block.get_api_representation(r"P = \frac{F}{B}")
    assert api["latex"] == r"P = \frac{F}{B}"
    assert annotation_of(parse(api["mathml"])) == r"P = \frac{F}{B}"


def test_stored_latex_that_does_not_render_is_shown_escaped_not_a_500():
    html = MathBlock().render(r"\text{<b>x</b>}")
    root = ET.fromstring(f"<div>{html}</div>")  # noqa: S314
    assert root.find(".//b") is None
    assert root.find(".//code").text == r"\text{<b>x</b>}"


def test_math_block_is_searchable_as_text():
    assert MathBlock().get_searchable_content(r"\frac{\text{cost}}{\text{tokens}}") == [
        r"\frac{\text{cost}}{\text{tokens}}"
    ]


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("costs $x^2$ per hour", ["x^2"]),
        ("$a$ and $b$", ["a", "b"]),
        ("$5 and $10", []),  # prices: the closing $ follows a space
        ("from $5 to $10.", []),
        ("$ x $", []),  # spaces inside: not math (Pandoc's rule)
        (r"\$x\$", []),
        ("$x$5", []),  # closing $ followed by a digit
        (r"$a \$ b$", [r"a \$ b"]),
        ("$$x$$", []),  # display math is a block, not inline
    ],
)
def test_inline_math_follows_pandocs_dollar_rule(text, spans):
    assert inline_math_spans(text) == spans


def test_inline_math_in_a_paragraph_renders_as_mathml_outside_code():
    html = rich_text_with_math("<p>Ridge point $P = F/B$ and <code>$HOME/$x$</code>, for \\$5.</p>")
    root = ET.fromstring(html)  # noqa: S314
    (math,) = root.findall(f".//{M}math")
    assert math.get("display") == "inline"
    assert annotation_of(math) == "P = F/B"
    assert root.find("code").text == "$HOME/$x$"
    assert root.itertext().__next__().startswith("Ridge point")
    assert "".join(root.itertext()).endswith("for $5.")


def test_inline_math_escapes_the_text_around_it():
    html = rich_text_with_math("<p>a &lt;script&gt; $x$ &amp; b</p>")
    root = ET.fromstring(html)  # noqa: S314
    assert root.find(".//script") is None
    assert len(root.findall(f".//{M}math")) == 1


def test_paragraph_with_invalid_inline_math_is_a_form_error_naming_it():
    block = ParagraphBlock()
    assert block.clean(block.to_python("<p>fine $x^2$ and $5 or $10</p>"))
    for bad, problem in [("$x^$", "nothing after it"), (r"$\frac{a}$", "denominator"), (r"$\bogus{1}$", r"\bogus")]:
        with pytest.raises(ValidationError) as error:
            block.clean(block.to_python(f"<p>See {bad} here.</p>"))
        assert bad in error.value.messages[0]
        assert problem in error.value.messages[0]
    assert rich_text_math_problems("<p><code>$x^$</code></p>") == []


def test_callout_text_renders_inline_math():
    block = CalloutBlock()
    value = block.to_python({"kind": "note", "title": "", "text": "<p>Break even at $u = 0.57$.</p>"})
    html = block.render(value)
    assert len(math_elements(html.replace("&nbsp;", " "))) == 1


def test_math_is_in_the_article_body():
    assert isinstance(ArticleBodyBlock().child_blocks["math"], MathBlock)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ([("math", r"\frac{a}")], ["cannot be rendered", "numerator and a denominator"]),
        ([("math", r"\unknowncmd x")], ["unknown command", "unknowncmd"]),
        ([("math", "{x")], ["never closed"]),
        (
            [("paragraph", rich_text(r"<p>Cost $\frac{1}$ here.</p>"))],
            ["Inline math that cannot be rendered", "frac{1}"],
        ),
    ],
)
def test_the_editor_shows_invalid_latex_as_a_form_error_and_saves_nothing(client, demo, editor, body, problem):
    from django.urls import reverse

    from wagtail.models import Revision

    from .admin_forms import article_form_data

    article = demo.articles[2]
    revisions = Revision.objects.filter(object_id=str(article.pk)).count()
    client.force_login(editor)
    response = client.post(
        reverse("wagtailadmin_pages:edit", args=(article.pk,)), article_form_data(article.slug, body=body)
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "The page could not be saved due to validation errors" in html
    # The block's error reaches the editor in the stream's JSON (backslashes doubled there).
    for words in problem:
        assert escape(words) in html or words in html, words
    assert Revision.objects.filter(object_id=str(article.pk)).count() == revisions


@pytest.mark.django_db
def test_the_editor_saves_valid_math(client, demo, editor):
    from django.urls import reverse

    from .admin_forms import article_form_data

    article = demo.articles[2]
    client.force_login(editor)
    body = [("math", r"E = mc^2"), ("paragraph", rich_text("<p>So $E$ grows with $m$; it costs $5 or $10.</p>"))]
    response = client.post(
        reverse("wagtailadmin_pages:edit", args=(article.pk,)), article_form_data(article.slug, body=body)
    )
    assert response.status_code == 302
    draft = ArticlePage.objects.get(pk=article.pk).get_latest_revision_as_object()
    assert [block.block_type for block in draft.body] == ["math", "paragraph"]
    html = draft.body[1].render()
    assert len(math_elements(html)) == 2


def test_the_article_body_indexes_display_and_inline_latex_as_text():
    body = ArticleBodyBlock().to_python(
        [
            {"type": "math", "value": r"\frac{\text{throughput}}{\text{watts}}"},
            {"type": "paragraph", "value": "<p>Inline $\\text{joules} \\cdot n$ too.</p>"},
        ]
    )
    text = " ".join(ArticleBodyBlock().get_searchable_content(body))
    assert "throughput" in text and "watts" in text and "joules" in text
