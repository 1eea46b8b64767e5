"""Articles out as Markdown with YAML front matter, in the conventions ``blog.markdown_import``
reads back into an equal body (see that module and docs/editor-guide.md).

``article_markdown`` gives the text; ``articles_zip`` a zip of ``<slug>.md`` files with their
images in ``images/``, which ``import_articles`` takes as it is.
"""

import io
import re
import zipfile
from pathlib import PurePosixPath

from django.utils import timezone

import yaml
from bs4 import BeautifulSoup, NavigableString, Tag

from blog.footnotes import FOOTNOTE_REF, FOOTNOTES_PLACE
from blog.mathml import INLINE_MATH

# Characters with a meaning in inline Markdown, written with a backslash (CommonMark allows a
# backslash before any ASCII punctuation).
_INLINE_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~$])")
_ENTITY_LIKE = re.compile(r"&(?=#?[0-9A-Za-z]+;)")
_LINE_START_SPECIAL = re.compile(r"^(\s*)([-+=>]|\d+(?=[.)]))")
_ALERTS = {"note": "NOTE", "warning": "WARNING", "takeaway": "TIP"}


def escape_text(text: str) -> str:
    """Literal ``text`` as Markdown that reads back as the same text (no emphasis, links, math)."""
    text = _INLINE_SPECIAL.sub(r"\\\1", text)
    return _ENTITY_LIKE.sub(r"\\&", text)


def _escape_line_start(markdown: str) -> str:
    """``markdown`` with a leading list marker, quote, setext underline or number escaped."""
    match = _LINE_START_SPECIAL.match(markdown)
    if not match:
        return markdown
    lead, marker = match.groups()
    if marker.isdigit():
        end = len(lead) + len(marker)
        return markdown[:end] + "\\" + markdown[end:]
    return f"{lead}\\{markdown[len(lead) :]}"


def _rich_text_literal(text: str) -> str:
    """Text of a rich text node: ``$...$`` spans stay as math; ``\\$`` (our rich text's literal
    dollar sign, ``blog.mathml``) stays ``\\$`` and a lone ``$`` stays ``$`` (Markdown reads
    both as the rich text had them); the rest is escaped."""
    parts, end = [], 0
    for match in INLINE_MATH.finditer(text):
        parts.append(_escape_literal(text[end : match.start()]))
        parts.append(match.group())
        end = match.end()
    parts.append(_escape_literal(text[end:]))
    return "".join(parts)


def _escape_literal(text: str) -> str:
    # Footnote references ``[^label]`` (blog.footnotes) stay as Markdown writes them.
    parts, end = [], 0
    for match in FOOTNOTE_REF.finditer(text):
        parts.append(_escape_dollars(text[end : match.start()]))
        parts.append(match.group())
        end = match.end()
    parts.append(_escape_dollars(text[end:]))
    return "".join(parts)


def _escape_dollars(text: str) -> str:
    return "\\$".join(escape_text(part).replace("\\$", "$") for part in text.split("\\$"))


def _code_span(code: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if code.startswith(("`", " ")) or code.endswith(("`", " ")) else ""
    return f"{fence}{pad}{code}{pad}{fence}"


def _link_target(url: str) -> str:
    return f"<{url}>" if re.search(r"[\s()<>]", url) else url


class RichTextWriter:
    """Wagtail rich text HTML to Markdown blocks. ``page_link(id) -> str | None`` gives the
    Markdown target of a page link (``other-slug.md``); None keeps the link's text only."""

    def __init__(self, page_link):
        self.page_link = page_link

    def blocks(self, html: str) -> list[str]:
        soup = BeautifulSoup(html or "", "html.parser")
        blocks, previous_list = [], None
        for node in soup.children:
            if isinstance(node, Tag) and node.name in {"ul", "ol"}:
                # Two lists in a row would read as one: alternate the bullet.
                bullet = "*" if previous_list == "-" else "-"
                blocks.append(self.list_markdown(node, bullet=bullet))
                previous_list = bullet if node.name == "ul" else None
                continue
            previous_list = None
            if isinstance(node, NavigableString) and not node.strip():
                continue
            text = self.inline(node).strip()
            if text:
                blocks.append(_escape_line_start(text))
        return blocks

    def list_markdown(self, node: Tag, *, bullet: str = "-", indent: str = "") -> str:
        lines = []
        for number, item in enumerate(node.find_all("li", recursive=False), start=1):
            marker = f"{number}." if node.name == "ol" else bullet
            inline_parts, nested = [], []
            for child in item.children:
                if isinstance(child, Tag) and child.name in {"ul", "ol"}:
                    nested.append(child)
                else:
                    inline_parts.append(self.inline(child))
            text = _escape_line_start("".join(inline_parts).strip())
            lines.append(f"{indent}{marker} {text}".rstrip())
            for child in nested:
                lines.append(self.list_markdown(child, indent=indent + " " * (len(marker) + 1)))
        return "\n".join(lines)

    def inline(self, node) -> str:
        if isinstance(node, NavigableString):
            return _rich_text_literal(str(node).replace("\n", " "))
        name = node.name
        if name == "br":
            return "\\\n"
        if name == "code":
            return _code_span(node.get_text())
        inner = "".join(self.inline(child) for child in node.children)
        if name in {"b", "strong", "i", "em"}:
            marker = "**" if name in {"b", "strong"} else "*"
            stripped = inner.strip()
            if not stripped:
                return inner
            lead = inner[: len(inner) - len(inner.lstrip())]
            trail = inner[len(inner.rstrip()) :]
            return f"{lead}{marker}{stripped}{marker}{trail}"
        if name == "a":
            if node.get("linktype") == "page":
                target = self.page_link(node.get("id"))
                return f"[{inner}]({target})" if target else inner
            href = node.get("href")
            return f"[{inner}]({_link_target(href)})" if href else inner
        return inner


def _front_matter(page, image_path, live_relations_only=False) -> str:
    topics, authors = page.topics.all(), page.authors.all()
    fields = {
        "title": page.title,
        "slug": page.slug,
        "summary": page.summary,
        "topics": [topic.slug for topic in topics if topic.live or not live_relations_only],
        "authors": [author.slug for author in authors if author.live or not live_relations_only],
    }
    if page.date_published:
        fields["date"] = timezone.localtime(page.date_published).isoformat()
    if page.image_id:
        fields["image"] = image_path(page.image)
    if page.image_alt:
        fields["image_alt"] = page.image_alt
    if page.seo_title:
        fields["seo_title"] = page.seo_title
    if page.search_description:
        fields["search_description"] = page.search_description
    return yaml.safe_dump(fields, sort_keys=False, allow_unicode=True, width=1000)


def image_file_path(image) -> str:
    """Where an image goes in an export: ``images/<pk>-<file name>`` (unique per library image)."""
    return f"images/{image.pk}-{PurePosixPath(image.file.name).name}"


def page_link_target(page_id) -> str | None:
    """``<slug>.md`` for a page link to an article (how exported files link to each other)."""
    from blog.models import ArticlePage

    try:
        page = ArticlePage.objects.filter(pk=int(page_id)).only("slug").first()
    except (TypeError, ValueError):
        return None
    return f"{page.slug}.md" if page else None


def body_markdown(body, *, image_path=image_file_path, page_link=page_link_target) -> str:
    """An article body (StreamValue) as Markdown blocks separated by blank lines."""
    writer = RichTextWriter(page_link)
    out: list[str] = []
    previous = None
    for child in body:
        kind, value = child.block_type, child.value
        if kind == "paragraph" and previous == "paragraph":
            out.append("<!-- -->")
        out.extend(_block_markdown(kind, value, writer, image_path))
        previous = kind
    return "\n\n".join(part for part in out if part is not None) + "\n"


def _block_markdown(kind, value, writer, image_path) -> list[str]:
    if kind == "heading":
        anchor = f" {{#{value['anchor']}}}" if value.get("anchor") else ""
        return [f"{'##' if value['level'] == 'h2' else '###'} {escape_text(value['text'])}{anchor}"]
    if kind == "paragraph":
        return writer.blocks(value.source)
    if kind == "image":
        image = value["image"]
        if image is None:
            return []
        alt = escape_text(value.get("alt_text") or "")
        caption = (value.get("caption") or "").replace("\\", "\\\\").replace('"', '\\"')
        title = f' "{caption}"' if caption else ""
        return [f"![{alt}]({_link_target(image_path(image))}{title})"]
    if kind == "code":
        return [
            _fence(
                value["source"],
                value["language"],
                value.get("filename") or "",
                line_numbers=bool(value.get("show_line_numbers")),
                highlight_lines=value.get("highlight_lines") or "",
            )
        ]
    if kind == "table":
        return _table(value)
    if kind == "quote":
        lines = [_escape_line_start(escape_text(line)) if line else "" for line in value["quote"].split("\n")]
        if value.get("attribution"):
            lines += ["", f"— {escape_text(value['attribution'])}"]  # noqa: RUF001 - an em dash
        return [_quoted(lines)]
    if kind == "callout":
        lines = [f"[!{_ALERTS.get(value['kind'], 'NOTE')}]"]
        if value.get("title"):
            lines.append(f"**{escape_text(value['title'])}**")
        for block in writer.blocks(value["text"].source):
            lines += ["", *block.split("\n")]
        return [_quoted(lines)]
    if kind == "math":
        return [f"$$\n{value}\n$$"]
    if kind == "chart":
        options = ("title", "kind", "series", "x_title", "x_unit", "y_title", "y_unit", "summary")
        return [_directive("chart", value, options, body=value.get("data") or "")]
    if kind == "footnotes":
        # Markdown moves footnote definitions to the end; the comment keeps the block's place.
        definitions = []
        for note in value["notes"]:
            paragraphs = writer.blocks(note["text"].source)
            text = "\n\n".join("    " + line if number else line for number, line in enumerate(paragraphs))
            definitions.append(f"[^{note['label']}]: {text}")
        return [FOOTNOTES_PLACE, *definitions]
    if kind == "key_figure":
        return [_directive("key-figure", value, ("value", "unit", "label"))]
    if kind == "cta":
        return [_directive("cta", value, ("heading", "label", "url"), body=value.get("text") or "")]
    if kind == "embed":
        url = getattr(value.get("video"), "url", "") or ""
        return [_directive("embed", value, ("caption",), argument=url)]
    return []


def _quoted(lines: list[str]) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in lines)


def _fence(source: str, language: str, filename: str, *, line_numbers=False, highlight_lines="") -> str:
    """A fenced code block; the file name, line numbers and highlighted lines go in the info
    string as MkDocs' pymdownx.highlight writes them (``title="x.py" linenums="1" hl_lines="3 5-7"``)."""
    longest = max((len(run) for run in re.findall(r"^\s*(`{3,})", source, re.MULTILINE)), default=0)
    fence = "`" * max(3, longest + 1)
    title = (
        f' title="{filename}"' if filename and '"' not in filename else (f" title='{filename}'" if filename else "")
    )
    options = (' linenums="1"' if line_numbers else "") + (
        f' hl_lines="{" ".join(part.strip() for part in highlight_lines.split(","))}"' if highlight_lines else ""
    )
    return f"{fence}{language}{title}{options}\n{source}\n{fence}"


def _directive(name: str, value, options, *, body: str = "", argument: str = "") -> str:
    lines = [f":{option}: {value.get(option) or ''}".rstrip() for option in options]
    text = "\n".join(lines) + (f"\n\n{body}" if body else "")
    fence = "`" * max(3, max((len(run) for run in re.findall(r"`{3,}", text)), default=0) + 1)
    return f"{fence}{{{name}}}{(' ' + argument) if argument else ''}\n{text}\n{fence}"


def _table(value) -> list[str]:
    rows = [[escape_text((cell or "").replace("\n", " ")).strip() for cell in row] for row in value.get("data") or []]
    if not rows:
        return []
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "|".join([" --- "] * width) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
    classes = []
    if value.get("first_col_is_header"):
        classes.append("{.first-column-header}")
    if not value.get("first_row_is_table_header", True):
        classes.append("{.no-header-row}")
    out = ["\n".join(lines)]
    caption = escape_text(value.get("table_caption") or "")
    if caption or classes:
        out.append(" ".join(part for part in [f"Table: {caption}".rstrip(), *classes] if part))
    return out


def article_markdown(
    page, *, image_path=image_file_path, page_link=page_link_target, live_relations_only=False
) -> str:
    """``page`` (an ArticlePage, e.g. its latest revision) as Markdown: YAML front matter (title,
    slug, summary, topic and author slugs, date, card image, SEO fields) and the body.

    ``image_path(image) -> str`` is how images are referenced (``images/...`` in a zip, a file
    URL in the API); ``page_link(page_id) -> str | None`` how page links are written.
    ``live_relations_only``: leave out unpublished topics and authors, as readers' pages do (the
    public API); an editor's export keeps every one, so that it imports back as it was.
    """
    body = body_markdown(page.body, image_path=image_path, page_link=page_link)
    return f"---\n{_front_matter(page, image_path, live_relations_only)}---\n\n{body}"


def _images_of(page) -> list:
    images = [page.image] if page.image_id else []
    for child in page.body:
        if child.block_type == "image" and child.value["image"] is not None:
            images.append(child.value["image"])
    return images


def articles_zip(pages) -> bytes:
    """A zip of ``<slug>.md`` for each page with every image it uses under ``images/``: what
    ``import_articles`` reads back (links between the articles become page links again)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        written = set()
        for page in pages:
            archive.writestr(f"{page.slug}.md", article_markdown(page))
            for image in _images_of(page):
                path = image_file_path(image)
                if path in written:
                    continue
                written.add(path)
                with image.open_file() as file:
                    archive.writestr(path, file.read())
    return buffer.getvalue()
