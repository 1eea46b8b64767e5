"""StreamField blocks for article bodies: engineering deep-dives and field reports.

Every block names its icon, template (under ``templates/components/streamfield/blocks/``),
description and preview value, so Wagtail's block picker shows editors what they insert.
"""

from html.parser import HTMLParser

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.safestring import mark_safe
from django.utils.text import slugify

from wagtail import blocks
from wagtail.blocks.struct_block import StructBlockValidationError
from wagtail.contrib.table_block.blocks import TableBlock
from wagtail.embeds.blocks import EmbedBlock
from wagtail.embeds.embeds import get_embed
from wagtail.embeds.exceptions import EmbedException
from wagtail.images.blocks import ImageChooserBlock

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name

from home.models import validate_link
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

_CODE_FORMATTER = HtmlFormatter(cssclass="highlight", wrapcode=True)


class HeadingBlock(blocks.StructBlock):
    """A section heading (h2 or h3) with a stable anchor for links and the table of contents.

    Value: ``{"text": str, "level": "h2" | "h3", "anchor": str}``. A blank anchor is derived
    from the text with ``slugify`` so links keep working as long as the text does not change;
    editors set it explicitly to keep old links alive after a rewording.
    """

    text = blocks.CharBlock(max_length=120, help_text="Keep it short: it also appears in the contents list.")
    level = blocks.ChoiceBlock(
        choices=[("h2", "Section (h2)"), ("h3", "Subsection (h3)")],
        default="h2",
        help_text="Use h3 only inside an h2 section.",
    )
    anchor = blocks.CharBlock(
        required=False,
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
        if anchor and slugify(anchor) != anchor:
            raise StructBlockValidationError(
                block_errors={
                    "anchor": ValidationError(
                        f"Use lowercase letters, digits and hyphens only, e.g. '{slugify(anchor) or 'section'}'."
                    )
                }
            )
        return value

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        context["anchor"] = heading_anchor(value)
        return context


def heading_anchor(value) -> str:
    """The id of a heading block's value: its explicit anchor, else the slug of its text."""
    return value.get("anchor") or slugify(value.get("text", "")) or "section"


class ParagraphBlock(SafeRichTextBlock):
    """Body text: paragraphs, lists, emphasis, inline code and links (no headings or images).

    Stored HTML is cleaned of script on load (``home.rich_text_safety``)."""

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


class FigureBlock(blocks.StructBlock):
    """An image from the library with required alt text and an optional caption.

    Value: ``{"image": SiteImage, "alt_text": str, "caption": str}``. Alt text is required
    (WCAG 2.2, 1.1.1 Non-text Content); it describes what the image shows in this article.
    """

    image = ImageChooserBlock()
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
        if not (value.get("alt_text") or "").strip():
            raise StructBlockValidationError(
                block_errors={"alt_text": ValidationError("Describe the image for readers who cannot see it.")}
            )
        return value


class CodeBlock(blocks.StructBlock):
    """A code listing, highlighted on the server with Pygments (no JavaScript).

    Value: ``{"language": one of CODE_LANGUAGES, "filename": str, "source": str}``. The
    rendered HTML comes from Pygments' ``HtmlFormatter``, which escapes the source.
    """

    language = blocks.ChoiceBlock(
        choices=[(value, label) for value, label, _lexer in CODE_LANGUAGES],
        default="python",
    )
    filename = blocks.CharBlock(required=False, max_length=120, help_text="Optional, e.g. 'cost_per_token.py'.")
    source = blocks.TextBlock(rows=10, help_text="Paste the code as it should be shown.")

    class Meta:
        icon = "code"
        template = "components/streamfield/blocks/code_block.html"
        description = "A code listing with syntax highlighting."
        preview_value = {
            "language": "python",
            "filename": "cost_per_token.py",
            "source": "def cost_per_token(fleet_cost, tokens):\n    return fleet_cost / tokens\n",
        }

    def clean(self, value):
        value = super().clean(value)
        if value.get("language") not in _LEXER_NAMES:
            raise StructBlockValidationError(
                block_errors={"language": ValidationError("Choose one of the listed languages.")}
            )
        return value

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        context["highlighted"] = highlight_code(value.get("source", ""), value.get("language", "text"))
        return context


def highlight_code(source: str, language: str) -> str:
    """Return ``source`` as highlighted, escaped HTML (``<div class="highlight"><pre>``).

    ``language`` is a CODE_LANGUAGES value; unknown values fall back to plain text.
    """
    lexer = get_lexer_by_name(_LEXER_NAMES.get(language, "text"), stripnl=False)
    return mark_safe(highlight(source, lexer, _CODE_FORMATTER))  # noqa: S308 - Pygments escapes


class DataTableBlock(TableBlock):
    """A table with an optional header row and a caption (Wagtail's TableBlock).

    Value: ``{"data": [[str, ...], ...], "first_row_is_table_header": bool,
    "first_col_is_header": bool, "table_caption": str}``. Rejects empty tables and rows of
    different lengths, so every row lines up under the header.
    """

    def __init__(self, **kwargs):
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

    def clean(self, value):
        value = super().clean(value)
        rows = (value or {}).get("data") or []
        rows = [row for row in rows if any((cell or "").strip() for cell in row)]
        if not rows:
            raise ValidationError("Add at least one row to the table.")
        widths = {len(row) for row in rows}
        if len(widths) != 1:
            raise ValidationError("Every row must have the same number of columns.")
        return value


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
    )
    title = blocks.CharBlock(required=False, max_length=120)
    text = SafeRichTextBlock(features=PARAGRAPH_FEATURES)

    class Meta:
        icon = "warning"
        template = "components/streamfield/blocks/callout_block.html"
        description = "A highlighted note, warning or key takeaway."
        preview_value = {
            "kind": "takeaway",
            "title": "Key takeaway",
            "text": "<p>Measure cost per <b>delivered</b> token, not per billed hour.</p>",
        }


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

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        context["player"] = video_player(value.get("video"))
        return context


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
    cta = CallToActionBlock()

    class Meta:
        block_counts = {"cta": {"max_num": 2}}
