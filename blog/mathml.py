"""LaTeX formulas rendered on the server as MathML (browsers render it natively; no JavaScript).

latex2mathml converts; this module checks what it accepts too readily (unknown commands,
missing arguments, unbalanced braces, raw markup inside ``\\text{}``, ``\\href``), keeps the
LaTeX as an ``<annotation encoding="application/x-tex">`` (for copying and screen readers), and
finds inline math, ``$...$``, in paragraph text.

Inline math follows Pandoc's ``tex_math_dollars`` rule (also what mdit-py-plugins' dollarmath
does with ``allow_space=False, allow_digits=False``): the opening ``$`` is followed by a
non-space, the closing ``$`` follows a non-space and is not followed by a digit, so "$5 and $10"
stays text; ``\\$`` is a literal dollar sign.
"""

import re
import xml.etree.ElementTree as ET  # noqa: S405 - parses latex2mathml's own output, never user XML
from functools import lru_cache

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from bs4 import BeautifulSoup
from latex2mathml import exceptions as latex_errors
from latex2mathml.converter import convert

MATHML_NAMESPACE = "http://www.w3.org/1998/Math/MathML"
TEX_ENCODING = "application/x-tex"

# Longest formula accepted: the longest in the demo is under 100 characters; a formula past this
# belongs in a figure. Our own editorial limit.
MAX_LATEX_LENGTH = 2000

INLINE_MATH = re.compile(r"(?<![\\$])\$(?![\s$])((?:[^$\\]|\\.)+?)(?<!\s)\$(?![0-9$])", re.DOTALL)

# MathML Core's presentation elements (https://www.w3.org/TR/mathml-core/), the ones latex2mathml writes
# (also what the feeds keep of a formula: blog.feeds).
ELEMENTS = frozenset(
    [
        "math",
        "mrow",
        "mi",
        "mn",
        "mo",
        "ms",
        "mtext",
        "mspace",
        "mfrac",
        "msqrt",
        "mroot",
        "msub",
        "msup",
        "msubsup",
        "munder",
        "mover",
        "munderover",
        "mtable",
        "mtr",
        "mtd",
        "mstyle",
        "mpadded",
        "mphantom",
        "menclose",
        "merror",
        "semantics",
        "annotation",
        "mmultiscripts",
        "mprescripts",
        "none",
    ]
)
ATTRIBUTES = frozenset(
    [
        "display",
        "mathvariant",
        "stretchy",
        "fence",
        "form",
        "accent",
        "accentunder",
        "separator",
        "largeop",
        "movablelimits",
        "symmetric",
        "minsize",
        "maxsize",
        "lspace",
        "rspace",
        "width",
        "height",
        "depth",
        "linebreak",
        "linethickness",
        "displaystyle",
        "scriptlevel",
        "columnalign",
        "columnlines",
        "columnspacing",
        "rowalign",
        "rowlines",
        "rowspacing",
        "frame",
        "framespacing",
        "equalrows",
        "equalcolumns",
        "notation",
        "voffset",
        "encoding",
    ]
)
# Children each element needs: \frac{a} converts to an mfrac with one child.
_ARITY = {
    "mfrac": (2, r"\frac needs a numerator and a denominator, e.g. \frac{a}{b}"),
    "mroot": (2, r"\sqrt[n]{x} needs the radicand in braces"),
    "msub": (2, "a subscript (_) needs something to attach to"),
    "msup": (2, "a superscript (^) needs something to attach to"),
    "msubsup": (3, "a subscript and superscript need something to attach to"),
    "munder": (2, "an under-script needs a base"),
    "mover": (2, "an over-script needs a base"),
    "munderover": (3, "under- and over-scripts need a base"),
}
_EXCEPTION_MESSAGES = {
    latex_errors.NumeratorNotFoundError: r"\frac has no numerator",
    latex_errors.DenominatorNotFoundError: r"\frac has no denominator",
    latex_errors.ExtraLeftOrMissingRightError: r"a \left has no matching \right",
    latex_errors.MissingSuperScriptOrSubscriptError: "a ^ or _ has nothing after it",
    latex_errors.DoubleSubscriptsError: "double subscript: use braces, e.g. x_{ij}",
    latex_errors.DoubleSuperscriptsError: "double superscript: use braces, e.g. x^{ab}",
    latex_errors.NoAvailableTokensError: "the formula ends too early (a command is missing its argument)",
    latex_errors.InvalidStyleForGenfracError: r"\genfrac has an invalid style",
    latex_errors.MissingEndError: r"a \begin{...} has no matching \end{...}",
    latex_errors.InvalidAlignmentError: "invalid column alignment",
    latex_errors.InvalidWidthError: "invalid width",
    latex_errors.LimitsMustFollowMathOperatorError: r"\limits must follow an operator such as \sum",
}


class LatexError(ValueError):
    """LaTeX that cannot be rendered; the message names the problem for the editor."""


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _unbalanced_braces(latex: str) -> str | None:
    depth = 0
    for match in re.finditer(r"\\.|[{}]", latex, re.DOTALL):
        brace = match.group()
        if brace == "{":
            depth += 1
        elif brace == "}":
            depth -= 1
            if depth < 0:
                return "a closing brace } has no opening brace"
    return "an opening brace { is never closed" if depth else None


def _check_tree(root) -> None:
    for element in root.iter():
        name = _local(element.tag)
        if name not in ELEMENTS:
            raise LatexError(
                f"markup such as <{name}> is not allowed in a formula (write \\text{{...}} as plain text)"
            )
        for attribute in element.attrib:
            if _local(attribute) not in ATTRIBUTES:
                raise LatexError(f"this formula uses a command that is not allowed here (it sets '{attribute}')")
        text = (element.text or "").strip()
        if name in {"mi", "mo"} and text.startswith("\\") and len(text) > 1:
            raise LatexError(f"unknown command {text}")
        if name in _ARITY and len(element) < _ARITY[name][0]:
            raise LatexError(_ARITY[name][1])


def latex_to_mathml(latex: str, *, display: str = "inline") -> SafeString:
    """``latex`` as a ``<math>`` element: the converted formula inside ``<semantics>`` with the
    LaTeX as its ``application/x-tex`` annotation.

    ``display`` is ``"inline"`` (in a line of text) or ``"block"`` (a formula on its own line).
    Raises ``LatexError`` (its message names the problem) for empty or over-long input,
    unbalanced braces, unknown commands, missing arguments and anything latex2mathml refuses.
    """
    latex = (latex or "").strip()
    if not latex:
        raise LatexError("the formula is empty")
    if len(latex) > MAX_LATEX_LENGTH:
        raise LatexError(f"the formula is longer than {MAX_LATEX_LENGTH} characters")
    if problem := _unbalanced_braces(latex):
        raise LatexError(problem)
    try:
        converted = convert(latex, display=display)
    except tuple(_EXCEPTION_MESSAGES) as error:
        raise LatexError(_EXCEPTION_MESSAGES[type(error)]) from error
    except (IndexError, KeyError, ValueError, TypeError, AttributeError) as error:
        # latex2mathml fails this way on some malformed input (e.g. a lone \begin).
        raise LatexError("the formula could not be read; check its commands and braces") from error
    try:
        root = ET.fromstring(converted)  # noqa: S314 - latex2mathml's output, checked below
    except ET.ParseError as error:
        raise LatexError(r"the formula has a character that needs a backslash, e.g. \& or \%") from error
    _check_tree(root)
    for element in root.iter():
        # Written back with one xmlns on <math>, as HTML expects, instead of ElementTree's prefixes.
        element.tag = _local(element.tag)
    presentation = list(root)
    semantics = ET.Element("semantics")
    if len(presentation) == 1:
        semantics.append(presentation[0])
    else:
        row = ET.SubElement(semantics, "mrow")
        row.extend(presentation)
    annotation = ET.SubElement(semantics, "annotation", encoding=TEX_ENCODING)
    annotation.text = latex
    for child in presentation:
        root.remove(child)
    root.append(semantics)
    root.set("xmlns", MATHML_NAMESPACE)
    xml = ET.tostring(root, encoding="unicode")
    return mark_safe(xml)  # noqa: S308 - serialised by ElementTree from checked elements


def latex_problem(latex: str) -> str | None:
    """What is wrong with ``latex`` (a sentence for the editor), or None if it renders."""
    try:
        latex_to_mathml(latex)
    except LatexError as error:
        return str(error)
    return None


def inline_math_spans(text: str) -> list[str]:
    """The LaTeX of each ``$...$`` span in ``text`` (plain text, not HTML), in order."""
    return [match.group(1) for match in INLINE_MATH.finditer(text)]


def needs_dollar_escape(text: str) -> bool:
    """Whether literal ``text`` would be read as containing inline math (so its ``$`` need ``\\$``)."""
    return bool(INLINE_MATH.search(text))


def text_with_inline_math(text: str) -> SafeString:
    """``text`` (plain text) as escaped HTML with each ``$...$`` span as inline MathML.

    A span that does not render stays as its escaped source (the editor form refuses those, so
    only data that skipped the form has one); ``\\$`` becomes ``$``.
    """
    parts, end = [], 0
    for match in INLINE_MATH.finditer(text):
        parts.append(escape(text[end : match.start()].replace("\\$", "$")))
        try:
            parts.append(latex_to_mathml(match.group(1)))
        except LatexError:
            parts.append(escape(match.group()))
        end = match.end()
    parts.append(escape(text[end:].replace("\\$", "$")))
    return mark_safe("".join(parts))  # noqa: S308 - every part escaped or built by latex_to_mathml


def _math_text_nodes(soup):
    """Text nodes of ``soup`` that may hold inline math: not inside code, pre or a formula."""
    for node in soup.find_all(string=True):
        if "$" in node and not node.find_parent(["code", "pre", "math", "script", "style"]):
            yield node


# Rich text is rendered on every uncached page and feed; the MathML depends on the HTML alone.
@lru_cache(maxsize=1024)
def rich_text_with_math(html: str) -> SafeString:
    """Rendered rich text ``html`` with ``$...$`` in its text (outside ``<code>``) as MathML.

    HTML without a ``$`` is returned as it is (no parse).
    """
    if "$" not in html:
        return mark_safe(html)  # noqa: S308 - the caller's HTML, already safe rich text

    soup = BeautifulSoup(html, "html.parser")
    for node in list(_math_text_nodes(soup)):
        node.replace_with(BeautifulSoup(text_with_inline_math(str(node)), "html.parser"))
    return mark_safe(str(soup))  # noqa: S308 - text re-escaped by text_with_inline_math


def rich_text_math_problems(html: str) -> list[str]:
    """One sentence per ``$...$`` span in rich text ``html`` that does not render."""
    if "$" not in (html or ""):
        return []

    problems = []
    for node in _math_text_nodes(BeautifulSoup(html, "html.parser")):
        for latex in inline_math_spans(str(node)):
            if problem := latex_problem(latex):
                problems.append(f"${latex}$: {problem}")
    return problems
