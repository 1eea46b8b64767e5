"""StreamField blocks for article bodies: engineering deep-dives and field reports.

Every block names its icon, template (under ``templates/components/streamfield/blocks/``),
description and preview value, so Wagtail's block picker shows editors what they insert.
"""

import json
import re
from functools import cached_property, lru_cache
from html.parser import HTMLParser

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.forms.utils import ErrorList
from django.utils.html import escape, format_html, format_html_join, strip_tags
from django.utils.safestring import mark_safe
from django.utils.text import slugify

from wagtail import blocks
from wagtail.admin.compare import (
    BlockComparison,
    CharBlockComparison,
    StructBlockComparison,
    diff_text,
    get_comparison_class_for_block,
)
from wagtail.admin.widgets import AdminAutoHeightTextInput
from wagtail.blocks.stream_block import StreamBlockValidationError
from wagtail.blocks.struct_block import StructBlockValidationError
from wagtail.contrib.table_block.blocks import TableBlock
from wagtail.embeds.blocks import EmbedBlock
from wagtail.embeds.embeds import get_embed
from wagtail.embeds.exceptions import EmbedException
from wagtail.images.blocks import ImageChooserBlock
from wagtail.rich_text import RichText

from bs4 import BeautifulSoup
from draftjs_exporter.error import ExporterException
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name

from blog.charts import CHART_KINDS, ChartProblem, chart_summary, csv_data_uri, parse_chart, render_svg
from blog.footnotes import (
    FOOTNOTE_LABEL,
    FOOTNOTES_HEADING_ID,
    body_notes,
    footnote_anchor,
    order_problem,
    reference_anchor,
)
from blog.mathml import latex_problem, latex_to_mathml, rich_text_math_problems
from home.links import validate_link
from home.rich_text_safety import SafeRichTextBlock

# Inline features a paragraph may use; no headings (they are blocks, so the table of contents
# and anchors work) and no images or embeds (also blocks, with required alt text).
PARAGRAPH_FEATURES = ["bold", "italic", "link", "code", "ol", "ul"]

# (value, label, Pygments lexer name). Pygments is the source of the lexers.
CODE_LANGUAGES = [
    ("python", "Python", "python"),
    ("bash", "Shell (bash)", "bash"),
    ("sql", "SQL", "sql"),
    ("yaml", "YAML", "yaml"),
    ("json", "JSON", "json"),
    ("toml", "TOML", "toml"),
    ("go", "Go", "go"),
    ("rust", "Rust", "rust"),
    ("cpp", "C++", "cpp"),
    ("dockerfile", "Dockerfile", "docker"),
    ("text", "Plain text", "text"),
]
_LEXER_NAMES = {value: lexer for value, _label, lexer in CODE_LANGUAGES}
_LANGUAGE_LABELS = {value: label for value, label, _lexer in CODE_LANGUAGES}

_CODE_FORMATTER = HtmlFormatter(cssclass="highlight", wrapcode=True)


class HeadingBlock(blocks.StructBlock):
    """A section heading (h2 or h3) with a stable anchor for links and the table of contents.

    Value: ``{"text": str, "level": "h2" | "h3", "anchor": str}``. A blank anchor is derived
    from the text with ``slugify`` so links keep working as long as the text does not change;
    editors set it explicitly to keep old links alive after a rewording.
    """

    text = blocks.CharBlock(max_length=120, help_text="Keep it short: it also appears in the contents list.")
    # Settings, not text readers see: kept out of the search index (search_index=False).
    level = blocks.ChoiceBlock(
        choices=[("h2", "Section (h2)"), ("h3", "Subsection (h3)")],
        default="h2",
        help_text="Use h3 only inside an h2 section.",
        search_index=False,
    )
    anchor = blocks.CharBlock(
        required=False,
        search_index=False,
        max_length=80,
        help_text="Optional link id, e.g. 'break-even'. Leave blank to derive it from the heading.",
    )

    class Meta:
        icon = "title"
        template = "components/streamfield/blocks/heading_block.html"
        description = "A section heading; listed in the article's table of contents."
        preview_value = {"text": "Where the GPU-hours go", "level": "h2", "anchor": ""}
        form_classname = "struct-block heading-block"

    def clean(self, value):
        value = super().clean(value)
        anchor = value.get("anchor") or ""
        if anchor and _slug(anchor) != anchor:
            raise StructBlockValidationError(
                block_errors={
                    "anchor": ValidationError(
                        f"Use lowercase letters, digits and hyphens only, e.g. '{_slug(anchor) or 'section'}'."
                    )
                }
            )
        if anchor in RESERVED_IDS:
            raise StructBlockValidationError(
                block_errors={
                    "anchor": ValidationError(
                        f"'{anchor}' is used by the page itself; choose another, e.g. '{anchor}-2'."
                    )
                }
            )
        return value

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        # The article template passes the anchor made unique across the body (unique_anchors);
        # a heading rendered alone (block previews) falls back to its own.
        context["anchor"] = (parent_context or {}).get("unique_anchor") or heading_anchor(value)
        return context


# Element ids the site's templates use on an article page (base.html, the header and footer,
# article_page.html): a heading must never take one, or the contents links and aria-labelledby
# would point at the wrong element.
RESERVED_IDS = frozenset(
    {
        "main",
        "toc-heading",
        "related-heading",
        "featured-heading",
        "latest-heading",
        "listing-heading",
        "listing-count",
        "picks-heading",
        "result-count",
        "search-heading",
        "search-page-query",
        "search-sort",
        "site-search-query",
        FOOTNOTES_HEADING_ID,
    }
)


def _slug(text: str) -> str:
    # allow_unicode keeps "Обзор" and "日本語" as themselves (HTML ids and URL fragments may be
    # any non-space characters), instead of reducing every non-Latin heading to "section".
    return slugify(text, allow_unicode=True)


def heading_anchor(value) -> str:
    """The id a heading block's value asks for: its explicit anchor, else the Unicode slug of its
    text, else ``"section"``. Not unique by itself; see ``unique_anchors``."""
    return value.get("anchor") or _slug(value.get("text", "")) or "section"


def unique_anchors(values) -> list[str]:
    """One id per heading value in ``values`` (body order), unique within the article.

    Explicit anchors are placed first, so a derived anchor never takes the id an editor chose
    for old links; a repeated id gets ``-2``, ``-3``, ... in body order; ``RESERVED_IDS`` are
    never used.
    """
    values = list(values)
    anchors: list[str | None] = [None] * len(values)
    taken = set(RESERVED_IDS)
    explicit_first = sorted(range(len(values)), key=lambda i: not values[i].get("anchor"))
    for index in explicit_first:
        base = heading_anchor(values[index])
        anchor, number = base, 2
        while anchor in taken:
            anchor, number = f"{base}-{number}", number + 1
        taken.add(anchor)
        anchors[index] = anchor
    return anchors


class _UnreadableRichText(RichText):
    """What ``ArticleRichTextBlock`` reads from a form post that is not Draftail's JSON."""

    def __init__(self):
        super().__init__("")


class _RichTextWithBadPageLinks(RichText):
    """A post with page links whose id is not a page pk; ``source`` has them as plain text, so
    the editor can show the form again with the error."""


# Wagtail stores a link to a page as <a linktype="page" id="<page pk>">; pks are positive
# integers that fit the database's integer column.
_PAGE_ID = re.compile(r"[1-9][0-9]{0,9}")
_MAX_PAGE_ID = 2**31 - 1


def _bad_page_links(soup) -> list:
    return [
        tag
        for tag in soup.find_all("a", attrs={"linktype": "page"})
        if not (_PAGE_ID.fullmatch(str(tag.get("id", ""))) and int(tag["id"]) <= _MAX_PAGE_ID)
    ]


# Bodies are read from the database on every uncached request and each rich text block passes
# through here; the answer depends on the string alone, so a bounded memo spares the parse.
@lru_cache(maxsize=2048)
def without_bad_page_links(html: str) -> str:
    """``html`` with every page link whose id is not a page primary key replaced by its text.

    Wagtail looks a page link up with ``Page.objects.get(id=...)`` when it renders the page and
    when it opens the editor, and a non-numeric id there is an error (a 500) every time. Input
    that passed the form never has one (``ArticleRichTextBlock.clean``); this keeps older stored
    data readable and editable. Clean HTML is returned unchanged.
    """
    if not html or 'linktype="page"' not in html:
        return html
    soup = BeautifulSoup(html, "html.parser")
    bad = _bad_page_links(soup)
    for tag in bad:
        tag.unwrap()
    return str(soup) if bad else html


class _RichTextWithBadLinks(RichText):
    """A post with a typed link that ``validate_link`` refuses (another host behind a site path,
    control characters); ``message`` says which and how to fix it."""

    def __init__(self, source, message: str):
        super().__init__(source)
        self.message = message


def typed_link_error(html: str) -> str | None:
    """The first ``validate_link`` message for the typed (not page or document) links of
    ``html``, naming the link, or None when every one is acceptable."""
    if not html or "href" not in html:
        return None
    for tag in BeautifulSoup(html, "html.parser").find_all("a", href=True):
        if tag.get("linktype"):
            continue
        try:
            validate_link(tag["href"])
        except ValidationError as error:
            return f"Link “{tag.get_text()}”: {error.messages[0]}"
    return None


class ArticleRichTextBlock(SafeRichTextBlock):
    """Rich text that turns a malformed editor post into a form error instead of a 500.

    Draftail posts its content as JSON (Draft.js ContentState), which Wagtail's widget converts
    to HTML in ``value_from_datadict``; input that is not JSON, or JSON of another shape, raises
    there (JSONDecodeError, AttributeError, draftjs_exporter's ExporterException), and so does
    JSON nested deeper than Python's recursion limit (RecursionError from ``json.loads``). A link to a
    page whose id is not a page pk is refused too, as Wagtail would fail to render it, and so is a
    typed link that ``home.links.validate_link`` refuses (e.g. ``//evil.example``).
    Stored HTML is cleaned of script on load (``home.rich_text_safety``) and of such links.
    """

    def value_from_datadict(self, data, files, prefix):
        try:
            value = super().value_from_datadict(data, files, prefix)
        except (ValueError, TypeError, AttributeError, KeyError, IndexError, RecursionError, ExporterException):
            return _UnreadableRichText()
        source = value.source if value else ""
        cleaned = without_bad_page_links(source)
        if cleaned != source:
            return _RichTextWithBadPageLinks(cleaned)
        message = typed_link_error(source)
        return _RichTextWithBadLinks(source, message) if message else value

    def clean(self, value):
        if isinstance(value, _UnreadableRichText):
            raise ValidationError("This text could not be read from the editor. Reload the page and type it again.")
        if isinstance(value, _RichTextWithBadPageLinks):
            raise ValidationError(
                "A link pointed to a page that does not exist and was removed. Check the text, then save."
            )
        if isinstance(value, _RichTextWithBadLinks):
            raise ValidationError(value.message)
        # Draftail posts an empty editor as markup without text, which Wagtail's required check
        # lets through; a published block needs words (drafts defer it: field.required is False).
        if self.field.required and not strip_tags(value.source if value else "").strip():
            raise ValidationError("This field is required.", code="required")
        value = super().clean(value)
        if problems := rich_text_math_problems(value.source if value else ""):
            raise ValidationError(
                "Inline math that cannot be rendered: "
                + "; ".join(problems)
                + ". Fix the LaTeX, or write \\$ for a dollar sign."
            )
        return value

    def normalize(self, value):
        # StreamValue normalizes child values; keep the markers clean() looks for.
        if isinstance(value, (_UnreadableRichText, _RichTextWithBadPageLinks, _RichTextWithBadLinks)):
            return value
        return super().normalize(value)

    def to_python(self, value):
        return super().to_python(without_bad_page_links(value) if isinstance(value, str) else value)


class ParagraphBlock(ArticleRichTextBlock):
    """Body text: paragraphs, lists, emphasis, inline code and links (no headings or images).

    Stored HTML is cleaned of script on load (``home.rich_text_safety``); malformed editor posts
    are form errors (``ArticleRichTextBlock``)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("features", PARAGRAPH_FEATURES)
        super().__init__(**kwargs)

    class Meta:
        icon = "pilcrow"
        template = "components/streamfield/blocks/paragraph_block.html"
        description = "Paragraphs and lists with bold, italic, inline code and links."
        preview_value = (
            "<p>Idle GPU-hours cost the same as busy ones: the bill counts <b>paid hours</b>, "
            "not <i>useful</i> ones.</p>"
        )

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        context["footnotes"] = (parent_context or {}).get("footnotes")  # see footnote_references
        return context


class ExistingImageChooserBlock(ImageChooserBlock):
    """An image chooser whose posted id must name an image in the library.

    Wagtail's ImageChooserBlock turns an unknown id into "no image" (which a draft may save,
    silently dropping the figure) and a non-numeric one into a ValueError (a 500). Here either
    is kept as posted and refused by the form field ("Select a valid choice").
    """

    def deconstruct(self):
        # Stores what ImageChooserBlock stores; migrations record it as one (no migration).
        _path, args, kwargs = super().deconstruct()
        return "wagtail.images.blocks.ImageChooserBlock", args, kwargs

    def value_from_form(self, value):
        if value is None or isinstance(value, self.model_class):
            return value
        try:
            return self.model_class.objects.get(pk=int(value))
        except (TypeError, ValueError, OverflowError, self.model_class.DoesNotExist):
            return str(value)

    def clean(self, value):
        if isinstance(value, str):
            raise ValidationError("That image is not in the library. Choose the image again.")
        return super().clean(value)

    def get_form_state(self, value):
        return super().get_form_state(value if not isinstance(value, str) else None)


class FigureBlock(blocks.StructBlock):
    """An image from the library with required alt text and an optional caption.

    Value: ``{"image": SiteImage, "alt_text": str, "caption": str}``. Alt text is required
    (WCAG 2.2, 1.1.1 Non-text Content); it describes what the image shows in this article.
    """

    image = ExistingImageChooserBlock()
    alt_text = blocks.CharBlock(
        max_length=500,
        help_text="Describe what the image shows for readers who cannot see it (required).",
    )
    caption = blocks.CharBlock(required=False, max_length=300)

    class Meta:
        icon = "image"
        template = "components/streamfield/blocks/figure_block.html"
        description = "An illustration or chart with alt text and a caption."
        form_classname = "struct-block figure-block"

    def clean(self, value):
        value = super().clean(value)
        # A draft may keep an incomplete figure (Wagtail defers required checks on "Save draft").
        if not self.is_deferred_validation and not (value.get("alt_text") or "").strip():
            raise StructBlockValidationError(
                block_errors={"alt_text": ValidationError("Describe the image for readers who cannot see it.")}
            )
        return value


# Highlighted lines an editor may name in one code block (``CodeBlock.highlight_lines``): enough
# for any listing worth reading, few enough that the field cannot ask for a million spans.
MAX_HIGHLIGHTED_LINES = 200
_LINE_RANGE = re.compile(r"([0-9]+)(?:\s*-\s*([0-9]+))?")


def parse_line_ranges(text: str, line_count: int) -> list[int]:
    """The line numbers named by ``text`` ("3, 5-7" gives ``[3, 5, 6, 7]``), sorted and unique.

    Lines count from 1 to ``line_count`` (the lines of the listing). Raises ``ValidationError``
    with a message saying how to fix it for anything else: not numbers or ranges ("a", "-1",
    "3-"), line 0, a range that runs backwards ("5-3"), a line past the end of the listing, or
    more than ``MAX_HIGHLIGHTED_LINES`` lines. An empty ``text`` names no line.
    """
    lines: set[int] = set()
    for part in (part.strip() for part in text.split(",")):
        if not part:
            continue
        match = _LINE_RANGE.fullmatch(part)
        if match is None:
            raise ValidationError(f"“{part}” is not a line number or a range: write e.g. “3, 5-7”.")
        # Digits only, so int() cannot fail; long digit strings are caught by the range checks.
        first, last = int(match[1]), int(match[2] or match[1])
        if first < 1:
            raise ValidationError("Lines are numbered from 1.")
        if last < first:
            raise ValidationError(f"“{part}” runs backwards: write the lower line first ({last}-{first}).")
        if last > line_count:
            raise ValidationError(f"The listing has {line_count} lines; “{part}” goes past the end.")
        if last - first + 1 + len(lines) > MAX_HIGHLIGHTED_LINES:
            raise ValidationError(f"Highlight at most {MAX_HIGHLIGHTED_LINES} lines.")
        lines.update(range(first, last + 1))
    return sorted(lines)


def listing_line_count(source: str) -> int:
    """The number of lines Pygments shows for ``source`` (a final newline ends the last line)."""
    return len(source.splitlines()) or 1


class CodeSourceComparison(CharBlockComparison):
    """The code in History's compare view inside ``<pre>``, so its line breaks and indentation
    show (Wagtail's text comparison is right, but HTML collapses the whitespace)."""

    def htmlvalue(self, val):
        return format_html('<pre class="code-compare">{}</pre>', val or "")

    def htmldiff(self):
        return format_html('<pre class="code-compare">{}</pre>', mark_safe(super().htmldiff()))  # noqa: S308 - diff_text escapes


class CodeSourceBlock(blocks.TextBlock):
    """The source of a code listing: a growing, monospace text area (``code-source``, styled by
    ``static/css/admin/editor.css``) that keeps every character as typed or pasted.

    Wagtail's ``TextBlock`` uses Django's ``CharField`` with ``strip=True``, which removes the
    leading tab or spaces of the first line and trailing blank lines; code needs them, so the
    field is built here with ``strip=False``. Spell checking and autocapitalisation are off.
    """

    @cached_property
    def field(self):
        attrs = {"rows": self.rows, "class": "code-source", "spellcheck": "false", "autocapitalize": "off"}
        return forms.CharField(strip=False, widget=AdminAutoHeightTextInput(attrs=attrs), **self.field_options)

    def get_comparison_class(self):
        return CodeSourceComparison


class CodeBlock(blocks.StructBlock):
    """A code listing, highlighted on the server with Pygments; the page's script adds a copy button.

    Value: ``{"language": one of CODE_LANGUAGES, "filename": str, "source": str,
    "show_line_numbers": bool, "highlight_lines": str}``; ``highlight_lines`` names lines of
    ``source`` as "3, 5-7" (``parse_line_ranges``). The rendered HTML comes from Pygments'
    ``HtmlFormatter`` (its ``linenos`` and ``hl_lines`` options), which escapes the source.
    """

    language = blocks.ChoiceBlock(
        choices=[(value, label) for value, label, _lexer in CODE_LANGUAGES],
        default="python",
        help_text="The language the code is highlighted as.",
        search_index=False,  # a setting: readers see highlighted code, not the language's name
    )
    filename = blocks.CharBlock(required=False, max_length=120, help_text="Optional, e.g. 'cost_per_token.py'.")
    source = CodeSourceBlock(
        rows=10, help_text="Paste the code as it should be shown; tabs and indentation are kept as they are."
    )
    show_line_numbers = blocks.BooleanBlock(
        required=False, default=False, help_text="Number the lines (readers' copies leave the numbers out)."
    )
    highlight_lines = blocks.CharBlock(
        required=False,
        max_length=100,
        help_text="Optional lines to highlight, e.g. “3, 5-7” (line 1 is the first line of the code).",
    )

    class Meta:
        icon = "code"
        template = "components/streamfield/blocks/code_block.html"
        description = "A code listing with syntax highlighting, optional line numbers and highlighted lines."
        preview_value = {
            "language": "python",
            "filename": "cost_per_token.py",
            "source": "def cost_per_token(fleet_cost, tokens):\n    return fleet_cost / tokens\n",
            "show_line_numbers": True,
            "highlight_lines": "2",
        }

    def clean(self, value):
        value = super().clean(value)
        language = value.get("language")
        if language not in _LEXER_NAMES and not (self.is_deferred_validation and not language):
            raise StructBlockValidationError(
                block_errors={"language": ValidationError("Choose one of the listed languages.")}
            )
        try:
            parse_line_ranges(value.get("highlight_lines") or "", listing_line_count(value.get("source") or ""))
        except ValidationError as error:
            raise StructBlockValidationError(block_errors={"highlight_lines": error}) from None
        return value

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        source, language = value.get("source") or "", value.get("language", "text")
        try:
            lines = parse_line_ranges(value.get("highlight_lines") or "", listing_line_count(source))
        except ValidationError:  # stored before the source was shortened: highlight nothing
            lines = []
        context["language_label"] = _LANGUAGE_LABELS.get(language, "Plain text")
        context["highlighted"] = highlight_code(
            source, language, line_numbers=bool(value.get("show_line_numbers")), highlight_lines=lines
        )
        return context


def highlight_code(source: str, language: str, *, line_numbers: bool = False, highlight_lines=()) -> str:
    """Return ``source`` as highlighted, escaped HTML (``<div class="highlight"><pre>``).

    ``language`` is a CODE_LANGUAGES value; unknown values fall back to plain text. With
    ``line_numbers`` Pygments numbers the lines in a separate table column (``linenos="table"``),
    so selecting the code does not select the numbers; ``highlight_lines`` (1-based line numbers)
    are wrapped in ``<span class="hll">`` (Pygments' ``hl_lines``).
    """
    return _highlighted(source, language, line_numbers, tuple(highlight_lines))


# Highlighting is the costliest part of rendering a body (lexing in Python), and a feed renders
# twenty bodies; the output depends on the arguments alone, so a bounded memo serves repeats.
@lru_cache(maxsize=512)
def _highlighted(source: str, language: str, line_numbers: bool, highlight_lines: tuple) -> str:
    lexer = get_lexer_by_name(_LEXER_NAMES.get(language, "text"), stripnl=False)
    if line_numbers or highlight_lines:
        formatter = HtmlFormatter(
            cssclass="highlight",
            wrapcode=True,
            linenos="table" if line_numbers else False,
            hl_lines=list(highlight_lines),
        )
    else:
        formatter = _CODE_FORMATTER
    return mark_safe(highlight(source, lexer, formatter))  # noqa: S308 - Pygments escapes


class DataTableBlock(TableBlock):
    """A table with an optional header row and a caption (Wagtail's TableBlock).

    Value: ``{"data": [[str, ...], ...], "first_row_is_table_header": bool,
    "first_col_is_header": bool, "table_caption": str}``. Rejects empty tables and rows of
    different lengths, so every row lines up under the header, except in drafts (Wagtail's
    deferred validation on "Save draft"); data not in the table editor's shape is always refused.
    """

    # A new table starts as three rows of three cells with the first row as its header.
    DEFAULT = {
        "data": [["", "", ""], ["", "", ""], ["", "", ""]],
        "first_row_is_table_header": True,
        "first_col_is_header": False,
        "table_header_choice": "row",
        "table_caption": "",
    }
    HELP_TEXT = (
        "To add or remove rows and columns, right-click a cell (long-press on a touch screen) and "
        "choose “Insert row above/below”, “Insert column left/right” or “Remove row/column”. "
        "The first row is the header row: change “Which cells should be displayed as headers?” "
        "for a table without one."
    )

    def __init__(self, **kwargs):
        kwargs.setdefault("default", self.DEFAULT)
        kwargs.setdefault("help_text", self.HELP_TEXT)
        kwargs.setdefault(
            "table_options",
            {
                "contextMenu": [
                    "row_above",
                    "row_below",
                    "---------",
                    "col_left",
                    "col_right",
                    "---------",
                    "remove_row",
                    "remove_col",
                    "---------",
                    "undo",
                    "redo",
                ]
            },
        )
        super().__init__(**kwargs)

    def get_searchable_content(self, value):
        """The cells (Wagtail's TableBlock) and the caption: the text readers see, not the
        header settings."""
        caption = (value or {}).get("table_caption") or ""
        return [*super().get_searchable_content(value), *([caption] if caption.strip() else [])]

    class Meta:
        icon = "table"
        template = "components/streamfield/blocks/table_block.html"
        description = "A table of figures with a header row and a caption."
        preview_value = {
            "data": [["Utilization", "Cost per 1M tokens"], ["40%", "$1.85"], ["60%", "$1.23"]],
            "first_row_is_table_header": True,
            "first_col_is_header": False,
            "table_caption": "Cost per delivered token",
        }

    def value_from_form(self, value):
        # Wagtail's TableBlock json.loads the posted string; anything that is not JSON, or JSON
        # nested past the recursion limit, would be a 500.
        try:
            return json.loads(value)
        except (TypeError, ValueError, RecursionError):
            return _UNREADABLE_TABLE

    def get_form_state(self, value):
        return None if value is _UNREADABLE_TABLE else super().get_form_state(value)

    def get_comparison_class(self):
        return TableComparison

    def clean(self, value):
        if value is _UNREADABLE_TABLE:
            raise ValidationError("The table could not be read from the editor. Reload the page and enter it again.")
        table_shape_error(value)
        if not self.is_deferred_validation and not value.get("table_header_choice"):
            # Wagtail's own error here says only "Validation error in TableBlock".
            raise ValidationError("Choose the table's header: first row, first column, both or none.")
        value = super().clean(value)
        if self.is_deferred_validation:  # a draft may keep an empty or ragged table
            return value
        rows = [row for row in value["data"] if any((cell or "").strip() for cell in row)]
        if not rows:
            raise ValidationError("Add at least one row to the table.")
        widths = {len(row) for row in rows}
        if len(widths) != 1:
            raise ValidationError("Every row must have the same number of columns.")
        return value


def table_as_text(value) -> str:
    """A table value as plain text for revision comparison: the caption, then one line per row
    with cells separated by " | " (empty rows left out)."""
    value = value or {}
    lines = [value.get("table_caption") or ""]
    for row in value.get("data") or []:
        cells = [(cell or "").strip() for cell in row or []]
        if any(cells):
            lines.append(" | ".join(cells))
    return "\n".join(line for line in lines if line)


class TableComparison(BlockComparison):
    """Revision comparison of a table, cell text row by row. Wagtail has no comparison for
    TableBlock: its fallback diffs the stored dict's Python repr."""

    def htmlvalue(self, val):
        return mark_safe(escape(table_as_text(val)).replace("\n", "<br>"))  # noqa: S308 - escaped above

    def htmldiff(self):
        html = diff_text(table_as_text(self.val_a), table_as_text(self.val_b)).to_html()
        return mark_safe(html.replace("\n", "<br>"))  # noqa: S308 - diff_text escapes the text


_UNREADABLE_TABLE = object()

# Limits on a table's size: well above any table an article needs (the demo's largest is 5 x 4),
# small enough that a page of them stays quick to render and edit. Our own editorial figures.
TABLE_MAX_ROWS = 100
TABLE_MAX_COLUMNS = 12
TABLE_MAX_CELL_LENGTH = 500


def table_shape_error(value) -> None:
    """Raise ValidationError unless ``value`` is a table as Wagtail's table editor posts it.

    Shape: a dict whose ``"data"`` is a list of at most TABLE_MAX_ROWS rows, each a list of at
    most TABLE_MAX_COLUMNS cells, each a string (at most TABLE_MAX_CELL_LENGTH characters) or
    null (an empty cell); ``"table_caption"`` a string; ``"cell"``/``"mergeCells"`` (cell
    metadata Wagtail reads when rendering) lists of objects with integer ``row``/``col``.
    """
    if not isinstance(value, dict) or not isinstance(value.get("data"), list):
        raise ValidationError("The table is not in the table editor's format. Reload the page and enter it again.")
    rows = value["data"]
    if len(rows) > TABLE_MAX_ROWS:
        raise ValidationError(f"A table can have at most {TABLE_MAX_ROWS} rows; split it or link to the data.")
    for row in rows:
        if not isinstance(row, list) or not all(cell is None or isinstance(cell, str) for cell in row):
            raise ValidationError("Every table row must be a list of text cells.")
        if len(row) > TABLE_MAX_COLUMNS:
            raise ValidationError(f"A table can have at most {TABLE_MAX_COLUMNS} columns.")
        if any(len(cell or "") > TABLE_MAX_CELL_LENGTH for cell in row):
            raise ValidationError(f"Keep each table cell under {TABLE_MAX_CELL_LENGTH} characters.")
    if not isinstance(value.get("table_caption") or "", str):
        raise ValidationError("The table caption must be text.")
    for key, fields in (("cell", ("row", "col")), ("mergeCells", ("row", "col", "rowspan", "colspan"))):
        items = value.get(key) or []
        if not isinstance(items, list) or not all(
            isinstance(item, dict) and all(type(item.get(field)) is int for field in fields) for item in items
        ):
            raise ValidationError("The table's cell settings are not in the table editor's format.")


class QuoteBlock(blocks.StructBlock):
    """A pull quote with an attribution. Value: ``{"quote": str, "attribution": str}``."""

    quote = blocks.TextBlock(max_length=500)
    attribution = blocks.CharBlock(required=False, max_length=160, help_text="Who said it, e.g. their role.")

    class Meta:
        icon = "openquote"
        template = "components/streamfield/blocks/quote_block.html"
        description = "A pull quote that stands out from the text."
        preview_value = {
            "quote": "The dashboard said busy. The bill said paid. Neither said useful.",
            "attribution": "Cedana field team",
        }


class CalloutBlock(blocks.StructBlock):
    """A boxed note, warning or key takeaway.

    Value: ``{"kind": "note" | "warning" | "takeaway", "title": str, "text": RichText}``.
    """

    kind = blocks.ChoiceBlock(
        choices=[("note", "Note"), ("warning", "Warning"), ("takeaway", "Key takeaway")],
        default="note",
        search_index=False,  # the box's label, the same on every callout of its kind
    )
    title = blocks.CharBlock(required=False, max_length=120)
    text = ArticleRichTextBlock(features=PARAGRAPH_FEATURES)

    class Meta:
        icon = "warning"
        template = "components/streamfield/blocks/callout_block.html"
        description = "A highlighted note, warning or key takeaway."
        preview_value = {
            "kind": "takeaway",
            "title": "Key takeaway",
            "text": "<p>Measure cost per <b>delivered</b> token, not per billed hour.</p>",
        }

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        context["footnotes"] = (parent_context or {}).get("footnotes")  # see footnote_references
        return context


class KeyFigureBlock(blocks.StructBlock):
    """One number the article turns on, e.g. "5.7 points to break even".

    Value: ``{"value": str, "unit": str, "label": str}``; ``value`` is text so editors can write
    "5.7", "~40" or "3x".
    """

    value = blocks.CharBlock(max_length=16, help_text="The number, e.g. '5.7'.")
    unit = blocks.CharBlock(required=False, max_length=24, help_text="e.g. 'points', 'ms', '%'.")
    label = blocks.CharBlock(max_length=120, help_text="What the number means, e.g. 'to break even'.")

    class Meta:
        icon = "snippet"
        template = "components/streamfield/blocks/key_figure_block.html"
        description = "A large key number with its unit and meaning."
        preview_value = {"value": "5.7", "unit": "points", "label": "to break even"}


class VideoEmbedBlock(blocks.StructBlock):
    """A video embedded through Wagtail's oEmbed finders. Value: ``{"video": EmbedValue, "caption": str}``.

    The page shows the provider's player in an iframe of our own markup (see ``video_player``);
    if the provider cannot be reached the block renders a plain link to the video instead.
    """

    video = EmbedBlock(help_text="A YouTube or Vimeo URL.")
    caption = blocks.CharBlock(required=False, max_length=300)

    class Meta:
        icon = "media"
        template = "components/streamfield/blocks/embed_block.html"
        description = "A video from YouTube or Vimeo."

    def get_comparison_class(self):
        return VideoEmbedComparison

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        context["player"] = video_player(value.get("video"))
        return context


def _embed_url(value) -> str:
    """The URL of an EmbedBlock value (an ``EmbedValue``, or None when blank)."""
    return getattr(value, "url", None) or ""


class EmbedURLComparison(CharBlockComparison):
    """Revision comparison of an embed by its URL. Wagtail's fallback renders both embeds (asking
    the video provider for its player over the network on every comparison) and diffs the text of
    that HTML, an iframe with no text, so a changed video never showed as a change."""

    def htmlvalue(self, val):
        return escape(_embed_url(val))

    def htmldiff(self):
        return diff_text(_embed_url(self.val_a), _embed_url(self.val_b)).to_html()


class VideoEmbedComparison(StructBlockComparison):
    """Wagtail's struct comparison (a labelled list of the child blocks), with the video compared
    by URL (``EmbedURLComparison``)."""

    def _child_comparisons(self, val_a, val_b):
        for name, block in self.block.child_blocks.items():
            if isinstance(block, EmbedBlock):
                comparison_class = EmbedURLComparison
            else:
                comparison_class = get_comparison_class_for_block(block)
            yield name, block.label, comparison_class(block, self.exists_a, self.exists_b, val_a[name], val_b[name])

    def has_changed(self):
        # EmbedValue has no equality of its own: two loads of the same URL compare unequal.
        def comparable(value):
            return {name: _embed_url(child) if name == "video" else child for name, child in value.items()}

        return comparable(self.val_a) != comparable(self.val_b)

    def htmlvalue(self, val):
        rows = [
            (label, comparison.htmlvalue(val[name])) for name, label, comparison in self._child_comparisons(val, val)
        ]
        return format_html("<dl>\n{}\n</dl>", format_html_join("\n", "    <dt>{}</dt>\n    <dd>{}</dd>", rows))

    def htmldiff(self):
        rows = [
            (label, comparison.htmldiff())
            for _name, label, comparison in self._child_comparisons(self.val_a, self.val_b)
        ]
        return format_html("<dl>\n{}\n</dl>", format_html_join("\n", "    <dt>{}</dt>\n    <dd>{}</dd>", rows))


class _IframeSource(HTMLParser):
    """Finds the ``src`` of the first ``<iframe>`` in a provider's oEmbed HTML."""

    def __init__(self):
        super().__init__()
        self.src = ""

    def handle_starttag(self, tag, attrs):
        if tag == "iframe" and not self.src:
            self.src = dict(attrs).get("src") or ""


def video_player(video) -> dict | None:
    """``{"src": player URL, "title": str}`` for an EmbedValue, or None (no value, the provider
    cannot be reached, or its player is not on ``settings.VIDEO_EMBED_ORIGINS``).

    Providers' oEmbed HTML uses obsolete attributes (``frameborder``) and may lack a title, which
    the Nu checker and WCAG 4.1.2 reject, so the template writes the iframe itself from the
    player URL and the video's title.
    """
    if not video:
        return None
    try:
        embed = get_embed(video.url, video.max_width, video.max_height)
    except EmbedException:
        return None
    parser = _IframeSource()
    parser.feed(embed.html or "")
    src = parser.src
    if not src.startswith(tuple(f"{origin}/" for origin in settings.VIDEO_EMBED_ORIGINS)):
        return None
    return {"src": src, "title": embed.title or "Video"}


class CallToActionBlock(blocks.StructBlock):
    """The seed's call to action: a heading, a sentence and a button (default "Schedule demo").

    Value: ``{"heading": str, "text": str, "label": str, "url": str}``. A blank URL uses the
    site's "Schedule demo" link from the header and footer settings.
    """

    heading = blocks.CharBlock(max_length=120)
    text = blocks.TextBlock(required=False, max_length=300)
    label = blocks.CharBlock(max_length=40, default="Schedule demo")
    url = blocks.CharBlock(
        required=False,
        search_index=False,  # where the button goes, not text readers see
        max_length=255,
        validators=[validate_link],
        help_text="Leave blank to use the site's 'Schedule demo' link.",
    )

    # The form validates the URL; these also blank a stored one that skipped the form (an
    # import, a fixture), so a ``javascript:`` URL never reaches the page. Blank means the
    # site's own demo link.
    def to_python(self, value):
        return super().to_python(_with_safe_url(value))

    def bulk_to_python(self, values):
        return super().bulk_to_python([_with_safe_url(value) for value in values])

    class Meta:
        icon = "link-external"
        template = "components/streamfield/blocks/cta_block.html"
        description = "A closing call to action with a button."
        preview_value = {
            "heading": "See where your GPU-hours go",
            "text": "We will walk through your fleet's numbers with you.",
            "label": "Schedule demo",
            "url": "",
        }


def _with_safe_url(value: dict) -> dict:
    """``value`` (a CTA block's stored dict) with its ``url`` blanked unless ``validate_link`` accepts it."""
    url = (value or {}).get("url") or ""
    try:
        validate_link(url)
    except ValidationError:
        return {**value, "url": ""} if url else value
    return value


class MathBlock(blocks.TextBlock):
    """A display formula written in LaTeX, rendered on the server as MathML (no JavaScript).

    Value: the LaTeX source (str, at most ``blog.mathml.MAX_LATEX_LENGTH`` characters). The page
    shows MathML with the LaTeX as its annotation; search indexes the LaTeX. LaTeX that does
    not render is a form error naming the problem (``blog.mathml.latex_to_mathml``). Inline math
    goes in paragraphs as ``$...$``.
    """

    def __init__(self, **kwargs):
        kwargs.setdefault("rows", 3)
        kwargs.setdefault("help_text", r"LaTeX without dollar signs, e.g. \frac{\text{cost}}{\text{tokens}}.")
        super().__init__(**kwargs)

    class Meta:
        icon = "decimal"
        template = "components/streamfield/blocks/math_block.html"
        description = "A formula on its own line, written in LaTeX."
        preview_value = r"P_{\text{ridge}} = \frac{\text{FLOP/s}}{\text{bytes/s}}"
        form_classname = "math-block"

    def clean(self, value):
        value = super().clean(value)
        if self.is_deferred_validation and not (value or "").strip():
            return value  # a draft may keep a formula not written yet; publishing needs one
        if problem := latex_problem(value):
            raise ValidationError(f"This formula cannot be rendered: {problem}.")
        return value

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        context["mathml"] = math_block_mathml(value)
        return context

    def get_api_representation(self, value, context=None):
        """``{"latex": str, "mathml": str}``; ``mathml`` is empty if the LaTeX does not render."""
        return {"latex": value, "mathml": str(math_block_mathml(value))}


def math_block_mathml(latex: str):
    """Display MathML for a math block's ``latex``; stored LaTeX that skipped the form and does
    not render is shown as its escaped source in a ``<code>``."""
    try:
        return latex_to_mathml(latex, display="block")
    except ValueError:
        return format_html("<code>{}</code>", latex)


# Axis titles and units: short, as on a printed figure.
_AXIS_TEXT = {"max_length": 60, "required": False}


class ChartBlock(blocks.StructBlock):
    """A bar, grouped bar, line or scatter chart of pasted CSV/TSV data, drawn on the server as
    an accessible SVG (``blog.charts``), with its data as a table and a CSV download.

    Value: ``{"title", "kind" (a ``blog.charts.CHART_KINDS`` value), "data" (CSV/TSV text: a
    header row, then one row per point; the first column labels or x values), "series" (column
    names to show, comma-separated; blank: all), "x_title", "x_unit", "y_title", "y_unit",
    "summary"}``, all str. ``clean`` refuses data the chart cannot show (``blog.charts.parse_chart``:
    numbers, column counts, at most ``blog.charts.MAX_POINTS`` values, at least one series),
    each as an error on the field to fix.
    """

    title = blocks.CharBlock(max_length=160, help_text="What the chart shows, e.g. 'Busy vs idle GPU-hours'.")
    kind = blocks.ChoiceBlock(choices=CHART_KINDS, default="bar", search_index=False)
    data = blocks.TextBlock(
        rows=8,
        search_index=False,  # numbers; the column names are indexed by get_searchable_content
        help_text="Paste CSV or TSV (from a spreadsheet): a header row, then one row per point. "
        "The first column holds the labels (numbers for line and scatter charts).",
    )
    series = blocks.CharBlock(
        required=False,
        max_length=300,
        search_index=False,
        help_text="Columns to show, separated by commas. Leave blank to show every column after the first.",
    )
    x_title = blocks.CharBlock(label="X axis title", **_AXIS_TEXT)
    x_unit = blocks.CharBlock(label="X axis unit", search_index=False, **_AXIS_TEXT)
    y_title = blocks.CharBlock(label="Y axis title", **_AXIS_TEXT)
    y_unit = blocks.CharBlock(label="Y axis unit", search_index=False, **_AXIS_TEXT)
    summary = blocks.CharBlock(
        required=False,
        max_length=500,
        help_text="Optional: the point of the chart in a sentence. A description of the data is added.",
    )

    class Meta:
        icon = "table"
        template = "components/streamfield/blocks/chart_block.html"
        description = "A bar, line or scatter chart of pasted CSV data, with the data as a table."
        preview_value = {
            "title": "Where the GPU-hours go",
            "kind": "grouped_bar",
            "data": "Cluster,Busy,Idle\nTraining,71,29\nInference,38,62\nNotebooks,12,88",
            "series": "",
            "x_title": "Cluster",
            "x_unit": "",
            "y_title": "Share of paid hours",
            "y_unit": "%",
            "summary": "Notebooks sit idle most of the hours they are paid for.",
        }
        form_classname = "struct-block chart-block"

    def clean(self, value):
        value = super().clean(value)
        # Pasted data arrives with the browser's line ends; stored with "\n" and no blank edges.
        value["data"] = "\n".join(line.rstrip() for line in (value.get("data") or "").splitlines()).strip("\n")
        if self.is_deferred_validation and not value["data"].strip():
            return value  # a draft may keep a chart without its data yet
        try:
            parse_chart(value["kind"], value["data"], value.get("series") or "")
        except ChartProblem as problem:
            raise StructBlockValidationError(block_errors={problem.field: ValidationError(problem.message)}) from None
        return value

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        context.update(chart_context(value))
        return context

    def get_api_representation(self, value, context=None):
        """The stored fields, plus ``"table"``: ``{"header": [str], "rows": [[str]]}`` and the
        generated ``"description"`` (None for both when stored data no longer parses)."""
        representation = super().get_api_representation(value, context=context)
        parsed = chart_context(value)
        chart = parsed.get("chart")
        representation["table"] = {"header": chart.header, "rows": chart.rows} if chart else None
        representation["description"] = parsed.get("description")
        return representation

    def get_searchable_content(self, value):
        content = super().get_searchable_content(value)
        header = (value.get("data") or "").splitlines()[:1]
        return content + [cell.strip() for cell in re.split(r"[\t,]", header[0])] if header else content


def chart_context(value) -> dict:
    """What the chart template needs: ``chart`` (``blog.charts.Chart``), ``svg``, ``description``
    and ``csv_uri``; or only ``problem`` (str) when the stored data does not parse (a draft)."""
    axes = {key: value.get(key) or "" for key in ("x_title", "x_unit", "y_title", "y_unit")}
    try:
        chart = parse_chart(value.get("kind") or "bar", value.get("data") or "", value.get("series") or "")
    except ChartProblem as problem:
        return {"problem": problem.message}
    description = " ".join(part for part in (value.get("summary") or "", chart_summary(chart, **axes)) if part)
    svg = render_svg(chart, title=value.get("title") or "Chart", description=description, **axes)
    return {
        "chart": chart,
        "svg": mark_safe(svg),  # noqa: S308 - blog.charts escapes every text it writes
        "description": description,
        "csv_uri": csv_data_uri(chart),
        "csv_name": f"{_slug(value.get('title') or '') or 'chart'}.csv",
    }


class FootnoteBlock(blocks.StructBlock):
    """One note: ``{"label": str, "text": RichText}``; the text refers to it as ``[^label]``."""

    label = blocks.CharBlock(
        max_length=40,
        search_index=False,
        help_text="Type [^label] in a paragraph where the note belongs, e.g. [^mlperf] or [^1].",
    )
    text = ArticleRichTextBlock(features=["bold", "italic", "link", "code"])

    class Meta:
        icon = "list-ol"
        label = "Note"

    def clean(self, value):
        value = super().clean(value)
        if self.is_deferred_validation and not value.get("label"):
            return value  # a draft may keep a note not labelled yet; publishing needs a label
        if not FOOTNOTE_LABEL.fullmatch(value.get("label") or ""):
            raise StructBlockValidationError(
                block_errors={
                    "label": ValidationError("Use letters, digits, hyphens and underscores only, e.g. 'mlperf'.")
                }
            )
        return value


class FootnotesBlock(blocks.StructBlock):
    """The article's numbered notes and references, listed under "Notes and references" with a
    back link to where the text refers to each (``blog.footnotes``).

    Value: ``{"notes": [{"label": str, "text": RichText}, ...]}``, numbered from 1 in list order,
    which is the order the text first refers to them (checked by ``ArticleBodyBlock.clean``).
    """

    notes = blocks.ListBlock(FootnoteBlock(), min_num=1, max_num=100)

    class Meta:
        icon = "list-ol"
        template = "components/streamfield/blocks/footnotes_block.html"
        description = "Numbered notes and references; refer to one in a paragraph as [^label]."
        preview_value = {
            "notes": [
                {"label": "mlperf", "text": "<p>MLCommons, <i>MLPerf Training v4.0 results</i>, 2024.</p>"},
                {"label": "idle", "text": "<p>Idle means no kernel ran for the whole minute.</p>"},
            ]
        }

    def clean(self, value):
        value = super().clean(value)
        labels = [note["label"] for note in value["notes"]]
        if repeated := next((label for label in labels if labels.count(label) > 1), None):
            raise StructBlockValidationError(
                block_errors={"notes": ValidationError(f"Two notes have the label “{repeated}”; give each its own.")}
            )
        return value

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        context["notes"] = [
            {
                "number": number,
                "text": note["text"],
                "id": footnote_anchor(note["label"]),
                "back": reference_anchor(note["label"]),
            }
            for number, note in enumerate(value["notes"], start=1)
        ]
        return context

    def get_comparison_class(self):
        return FootnotesComparison

    def get_api_representation(self, value, context=None):
        """``{"notes": [{"number": int, "label": str, "text": HTML str}, ...]}``."""
        return {
            "notes": [
                {"number": number, "label": note["label"], "text": note["text"].source}
                for number, note in enumerate(value["notes"], start=1)
            ]
        }


def notes_as_text(value) -> str:
    """A footnotes value as plain text for revision comparison: one ``[^label] text`` line per note."""
    notes = (value or {}).get("notes") or []
    return "\n".join(f"[^{note['label']}] {strip_tags(note['text'].source).strip()}" for note in notes)


class FootnotesComparison(BlockComparison):
    """Revision comparison of the notes, one line each. Wagtail's fallback for a list of structs
    inside a struct nests a comparison per note, each marked changed with its parent."""

    def htmlvalue(self, val):
        return mark_safe(escape(notes_as_text(val)).replace("\n", "<br>"))  # noqa: S308 - escaped above

    def htmldiff(self):
        html = diff_text(notes_as_text(self.val_a), notes_as_text(self.val_b)).to_html()
        return mark_safe(html.replace("\n", "<br>"))  # noqa: S308 - diff_text escapes the text


class ArticleBodyBlock(blocks.StreamBlock):
    """The body of an article: the blocks an engineering deep-dive is made of."""

    heading = HeadingBlock()
    paragraph = ParagraphBlock()
    image = FigureBlock()
    code = CodeBlock()
    table = DataTableBlock()
    quote = QuoteBlock()
    callout = CalloutBlock()
    key_figure = KeyFigureBlock()
    embed = VideoEmbedBlock()
    cta = CallToActionBlock(label="Call to action")
    math = MathBlock()
    chart = ChartBlock()
    footnotes = FootnotesBlock()

    class Meta:
        block_counts = {"cta": {"max_num": 2}, "footnotes": {"max_num": 1}}

    def clean(self, value):
        value = super().clean(value)
        if self.is_deferred_validation:  # a draft may keep notes and references out of step
            return value
        notes, references = body_notes(value)
        index = next((i for i, child in enumerate(value) if child.block_type == "footnotes"), None)
        if index is None and not references:
            return value
        if problem := order_problem(notes, references):
            if index is None:
                raise StreamBlockValidationError(
                    non_block_errors=ErrorList([ValidationError(f"{problem} (Add a “Footnotes” block.)")])
                )
            raise StreamBlockValidationError(block_errors={index: ValidationError(problem)})
        return value
