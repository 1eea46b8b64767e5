"""Imports from the platforms people leave: a WordPress export (WXR) and a Ghost export (JSON).

Each post of an export becomes one source for ``blog.markdown_import.import_sources`` (the same
drafts, reports, ``--dry-run``/``--update`` and idempotence as the Markdown import). The format
is told by the file, never guessed from its name alone:

- ``.xml`` that is RSS with WordPress's export namespace ``http://wordpress.org/export/1.x/``
  (WXR 1.0 to 1.2, "Tools > Export" in WordPress). Parsed with defusedxml, which refuses a DTD,
  entity declarations (billion laughs) and external entities, and never reads the network.
- ``.json`` of Ghost's shape ``{"db": [{"data": {"posts": [...], "tags": [...], "users": [...],
  "posts_tags": [...], "posts_authors": [...], "posts_meta": [...]}}]}`` ("Settings > Labs >
  Export" in Ghost 2 to 6).

Anything else with those suffixes is refused with a message saying what was expected. Only
posts of type ``post`` are articles; pages, attachments and menu items are reported as skipped.
Bodies are HTML, read with Beautiful Soup into our blocks; see ``HtmlBodyReader``. Images are
never fetched: an image URL is looked up by its path among the export's files (folder or zip)
and the ``--media`` folder, else reported and left out.

Values are read from the export as they are; ``ExportedPostReader`` passes every text it stores
through the editor form's rule (``blog.markdown_import.checked_text``: a NUL fails the post naming
the field, other control characters are removed). A value of the wrong JSON type reads as absent
and is never turned into text whole; values quoted in reports are cut (``cut``).
"""

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit
from xml.etree.ElementTree import Element, ParseError

from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.text import slugify

from wagtail.whitelist import check_url

import defusedxml
import defusedxml.ElementTree
from bs4 import BeautifulSoup, Comment, NavigableString, Tag

from blog import markdown_import
from blog.forms import SEARCH_DESCRIPTION_MAX_LENGTH, SEO_TITLE_MAX_LENGTH, TITLE_MAX_LENGTH
from blog.markdown_import import (
    _LANGUAGE_ALIASES,
    _LANGUAGES,
    MarkdownImportError,
    ParsedArticle,
    SourceFiles,
    _join_runs,
    checked_text,
    cut,
    escape,
)
from blog.models import SUMMARY_MAX_LENGTH, Author, TopicPage
from home.links import is_other_host_path
from home.page_forms import one_line
from home.rich_text_safety import remove_active_content
from home.text_cleaning import remove_invalid_characters

# An export is one file holding every post; a blog of thousands of posts is a few tens of MB.
MAX_EXPORT_BYTES = 64 * 1024 * 1024
WXR_NAMESPACE = re.compile(r"^http://wordpress\.org/export/1\.\d+/$")
CONTENT_NAMESPACE = "http://purl.org/rss/1.0/modules/content/"
DC_NAMESPACE = "http://purl.org/dc/elements/1.1/"
# WordPress shortcodes, e.g. [gallery ids="1,2"] or [/caption]: kept as text and reported.
SHORTCODE = re.compile(r"\[/?([A-Za-z][\w-]*)(?:\s[^\]]*)?\]")
GHOST_URL = "__GHOST_URL__"
WRAPPERS = {"div", "section", "article", "main", "header", "footer", "aside", "center", "body", "html"}
# Elements an import leaves out whole, with a note: they run code, pull in other documents or
# embed players (the paragraphs it writes are then cleaned by home.rich_text_safety's allow-list).
LEFT_OUT = {
    *("script", "style", "iframe", "frame", "frameset", "object", "applet", "embed", "video", "audio"),
    *("form", "input", "base", "meta", "link", "svg", "math", "noscript", "template"),
}
INLINE = {
    *("a", "b", "strong", "i", "em", "code", "kbd", "samp", "tt", "span", "br", "u", "s", "del"),
    *("ins", "sub", "sup", "small", "mark", "abbr", "cite", "q", "time", "font", "img", "var", "dfn"),
}


@dataclass
class ExportedPost:
    """One post of an export, as read from it (plain values, nothing looked up yet).

    ``name`` is what reports show (``export.xml post 12``); ``files`` the places its images may
    be (the export's folder or zip, then the ``--media`` folder); ``skip_reason`` is set for
    items that are not articles (pages, attachments), which ``import_sources`` reports as skipped.
    ``date`` is an aware datetime or None; ``tags`` and ``authors`` are ``(slug, name)`` pairs.
    """

    name: str
    platform: str
    title: str = ""
    slug: str = ""
    html: str = ""
    excerpt: str = ""
    status: str = ""
    date: datetime | None = None
    tags: list = field(default_factory=list)
    authors: list = field(default_factory=list)
    feature_image: str = ""
    feature_image_alt: str = ""
    seo_title: str = ""
    search_description: str = ""
    skip_reason: str = ""
    problem: str = ""  # a value of the export that cannot be imported: the post fails
    notes: list = field(default_factory=list)
    files: list = field(default_factory=list)
    text: str = ""  # no Markdown: nothing for the Markdown import's link scan

    @property
    def reader_class(self):
        return ExportedPostReader

    def read_file(self, reference: str, limit: int | None = None) -> bytes | None:
        """The bytes of ``reference`` (a path found by ``local_image``) from the export's files;
        raises MarkdownImportError for a zip member that cannot be unpacked (``read_member``)."""
        for files in self.files:
            if (data := files.read(reference, limit=limit)) is not None:
                return data
        return None

    def local_image(self, url: str) -> str | None:
        """The path among this post's files of the image at ``url`` (absolute, relative or with
        Ghost's ``__GHOST_URL__``), or None. The URL's path is tried whole, then without its
        leading folders (``wp-content/uploads/2024/01/a.png``, ``uploads/2024/01/a.png``, ...,
        ``a.png``), so an export folder, a zip of ``wp-content`` or a flat media folder all work."""
        try:
            path = unquote(urlsplit(url.replace(GHOST_URL, "")).path).strip("/")
        except ValueError:  # not a URL, e.g. "http://[x/a.png" (an unclosed IPv6 address)
            return None
        parts = [part for part in path.split("/") if part and part != ".."]
        for start in range(len(parts)):
            candidate = "/".join(parts[start:])
            for files in self.files:
                if files.exists(candidate):
                    return candidate
        return None


def is_export_name(name: str) -> bool:
    """Whether ``name`` has the suffix of an export this module reads (``.xml``, ``.json``)."""
    return name.lower().endswith((".xml", ".json"))


def posts_from_export(name: str, data: bytes, files: list[SourceFiles]) -> list[ExportedPost]:
    """The posts of export ``data`` (``name`` ends in ``.xml`` or ``.json``), with ``files`` as
    the places to find their images. Raises MarkdownImportError naming the problem for a file
    that is too large, not UTF-8, not well-formed, declares entities or a DTD, or is not a
    WordPress/Ghost export."""
    if len(data) > MAX_EXPORT_BYTES:
        raise MarkdownImportError(f"{name}: larger than {MAX_EXPORT_BYTES // 2**20} MB")
    if name.lower().endswith(".xml"):
        return _wxr_posts(name, data, files)
    return _ghost_posts(name, data, files)


# WordPress (WXR) ------------------------------------------------------------------------------


def _wxr_posts(name: str, data: bytes, files) -> list[ExportedPost]:
    try:
        root = defusedxml.ElementTree.fromstring(data, forbid_dtd=True)
    except defusedxml.DTDForbidden as error:
        raise MarkdownImportError(f"{name}: the XML declares a DTD ({error}); a WordPress export has none") from error
    except (defusedxml.EntitiesForbidden, defusedxml.ExternalReferenceForbidden) as error:
        raise MarkdownImportError(f"{name}: the XML declares entities, which are refused ({error})") from error
    except ParseError as error:
        line, column = error.position
        raise MarkdownImportError(f"{name}: not well-formed XML (line {line}, column {column + 1})") from error
    wp = next(
        (ns for element in root.iter() if (ns := _namespace(element.tag)) and WXR_NAMESPACE.match(ns)),
        None,
    )
    channel = root.find("channel")
    if root.tag != "rss" or channel is None or wp is None:
        raise MarkdownImportError(
            f"{name}: not a WordPress export (WXR): expected <rss><channel> with the "
            "http://wordpress.org/export/1.2/ namespace (WordPress: Tools > Export)"
        )
    excerpt_ns = wp.rstrip("/") + "/excerpt/"

    def text(element: Element, tag: str) -> str:
        found = element.find(tag)
        return (found.text or "").strip() if found is not None else ""

    authors = {}
    for author in channel.findall(f"{{{wp}}}author"):
        login = text(author, f"{{{wp}}}author_login")
        authors[login] = (slugify(login, allow_unicode=True), text(author, f"{{{wp}}}author_display_name") or login)
    attachments = {
        text(item, f"{{{wp}}}post_id"): text(item, f"{{{wp}}}attachment_url")
        for item in channel.findall("item")
        if text(item, f"{{{wp}}}post_type") == "attachment"
    }
    posts = []
    for item in channel.findall("item"):
        post_id = text(item, f"{{{wp}}}post_id")
        kind = text(item, f"{{{wp}}}post_type") or "post"
        post = ExportedPost(name=f"{name} post {cut(post_id) or len(posts) + 1}", platform="WordPress", files=files)
        posts.append(post)
        post.title = text(item, "title")
        if kind != "post":
            post.skip_reason = f"a WordPress {cut(kind)}, not a post: not imported as an article"
            continue
        post.status = text(item, f"{{{wp}}}status")
        if post.status in {"trash", "auto-draft"}:  # deleted posts, and autosaves never written
            post.skip_reason = f"a WordPress post with status '{post.status}': not imported"
            continue
        post.slug = unquote(text(item, f"{{{wp}}}post_name"))
        post.html = _raw(item.find(f"{{{CONTENT_NAMESPACE}}}encoded"))
        post.excerpt = _raw(item.find(f"{{{excerpt_ns}}}encoded"))
        gmt, local = text(item, f"{{{wp}}}post_date_gmt"), text(item, f"{{{wp}}}post_date")
        try:
            post.date = _wxr_date(gmt, local, post.notes)
        except ValueError as error:
            post.problem = str(error)
        for category in item.findall("category"):
            domain = category.get("domain")
            if domain in {"category", "post_tag"}:
                label = (category.text or "").strip()
                post.tags.append((unquote(category.get("nicename") or slugify(label)), label))
        creator = text(item, f"{{{DC_NAMESPACE}}}creator")
        if creator:
            post.authors.append(authors.get(creator, (slugify(creator, allow_unicode=True), creator)))
        for meta in item.findall(f"{{{wp}}}postmeta"):
            if text(meta, f"{{{wp}}}meta_key") == "_thumbnail_id":
                thumbnail = text(meta, f"{{{wp}}}meta_value")
                post.feature_image = attachments.get(thumbnail, "")
                if not post.feature_image:
                    post.notes.append(f"featured image (attachment {cut(thumbnail)}) is not in the export: left out")
    return posts


def _namespace(tag) -> str | None:
    return tag[1:].split("}", 1)[0] if isinstance(tag, str) and tag.startswith("{") else None


def _raw(element) -> str:
    return (element.text or "") if element is not None else ""


def _wxr_date(gmt: str, local: str, notes: list) -> datetime | None:
    """A WXR post's date: ``post_date_gmt`` as UTC, or (drafts export it as zeros) ``post_date``
    in the site's TIME_ZONE, reported (WXR does not name the blog's time zone)."""
    for value, zone in ((gmt, UTC), (local, None)):
        if not value or value.startswith("0000-00-00"):
            continue
        try:
            parsed = datetime.strptime(value, "%Y-%m-%d %H:%M:%S")
        except ValueError as error:
            raise ValueError(f"date '{cut(value)}' is not a WordPress date (YYYY-MM-DD HH:MM:SS)") from error
        if zone is None:
            notes.append(f"no GMT date in the export: {value} read in {timezone.get_default_timezone_name()}")
            return timezone.make_aware(parsed, timezone.get_default_timezone())
        return parsed.replace(tzinfo=UTC)
    return None


# Ghost (JSON) ---------------------------------------------------------------------------------


def _ghost_posts(name: str, data: bytes, files) -> list[ExportedPost]:
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        raise MarkdownImportError(f"{name}: not UTF-8 text ({error.reason} at byte {error.start})") from error
    except json.JSONDecodeError as error:
        raise MarkdownImportError(
            f"{name}: not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
        ) from error
    except RecursionError as error:  # no Ghost export nests that deep; a hostile file could
        raise MarkdownImportError(f"{name}: JSON nested too deeply to read") from error
    except ValueError as error:  # an integer past Python's 4300-digit limit for reading one
        raise MarkdownImportError(f"{name}: not a JSON file we can read ({error})") from error
    try:
        tables = document["db"][0]["data"]
        rows = tables["posts"]
        if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
            raise TypeError
    except (KeyError, IndexError, TypeError) as error:
        raise MarkdownImportError(
            f'{name}: not a Ghost export: expected {{"db": [{{"data": {{"posts": [...]}}}}]}} '
            "(Ghost: Settings > Labs > Export your content)"
        ) from error

    def table(key: str) -> list[dict]:
        value = tables.get(key) or []
        return [row for row in value if isinstance(row, dict)] if isinstance(value, list) else []

    def by_id(key: str, rows: list[dict]) -> dict:
        """``rows`` by the id in ``key``; a row without a usable one is left out."""
        return {row_id: row for row in rows if (row_id := _id(row.get(key))) is not None}

    tags, users, meta = by_id("id", table("tags")), by_id("id", table("users")), by_id("post_id", table("posts_meta"))
    post_tags, post_authors = {}, {}
    for row in sorted(table("posts_tags"), key=lambda row: _number(row.get("sort_order"))):
        if (linked := _id(row.get("post_id"))) is not None:
            post_tags.setdefault(linked, []).append(_id(row.get("tag_id")))
    for row in sorted(table("posts_authors"), key=lambda row: _number(row.get("sort_order"))):
        if (linked := _id(row.get("post_id"))) is not None:
            post_authors.setdefault(linked, []).append(_id(row.get("author_id")))

    posts = []
    for index, row in enumerate(rows, start=1):
        post_id = _id(row.get("id"))
        shown_id = cut(str(post_id)) if post_id is not None else index
        post = ExportedPost(name=f"{name} post {shown_id}", platform="Ghost", files=files)
        posts.append(post)
        post.title = _string(row.get("title"))
        kind = _string(row.get("type")) or ("page" if row.get("page") in (True, 1) else "post")
        if kind != "post":
            post.skip_reason = f"a Ghost {cut(kind)}, not a post: not imported as an article"
            continue
        post.slug = _string(row.get("slug"))
        post.html = _string(row.get("html"))
        if not post.html and (row.get("lexical") or row.get("mobiledoc")):
            post.problem = "the post has no 'html' (only Lexical/Mobiledoc): export it again from Ghost 2 or later"
        post.excerpt = _string(row.get("custom_excerpt"))
        post.status = _string(row.get("status"))
        published = _string(row.get("published_at"))
        if published:
            parsed = _parse_iso(published)
            if parsed is None:
                post.problem = f"published_at '{published[:40]}' is not an ISO 8601 date"
            post.date = parsed
        for tag_id in post_tags.get(post_id, []):
            tag = tags.get(tag_id) or {}
            label = _string(tag.get("name"))
            if label.startswith("#") or tag.get("visibility") == "internal":
                post.notes.append(f"internal Ghost tag '{cut(label)}' left out")
            elif label:
                post.tags.append((_string(tag.get("slug")) or slugify(label), label))
        author_ids = post_authors.get(post_id, []) or ([_id(row.get("author_id"))] if row.get("author_id") else [])
        for author_id in author_ids:
            user = users.get(author_id) or {}
            if user:
                post.authors.append((_string(user.get("slug")), _string(user.get("name"))))
        post_meta = meta.get(post_id) or {}
        post.feature_image = _string(row.get("feature_image"))
        post.feature_image_alt = _string(post_meta.get("feature_image_alt") or row.get("feature_image_alt"))
        post.seo_title = _string(post_meta.get("meta_title") or row.get("meta_title"))
        post.search_description = _string(post_meta.get("meta_description") or row.get("meta_description"))
    return posts


def _string(value) -> str:
    """A Ghost value that should be text, stripped; "" for any other JSON type."""
    return value.strip() if isinstance(value, str) else ""


def _id(value) -> str | int | None:
    """A Ghost row's id (text, or a number in old exports); None for any other JSON type (a list
    or an object cannot key a row, nor be shown whole in a report)."""
    return value if isinstance(value, (str, int)) and not isinstance(value, bool) else None


def _number(value) -> float:
    return value if isinstance(value, (int, float)) else 0


def _parse_iso(value: str) -> datetime | None:
    try:
        parsed = parse_datetime(value.replace(" ", "T", 1))
    except ValueError:
        return None
    if parsed is None:
        return None
    return parsed if timezone.is_aware(parsed) else parsed.replace(tzinfo=UTC)  # Ghost stores UTC


# One post into page fields ------------------------------------------------------------------


class ExportedPostReader:
    """Reads an ExportedPost into a ParsedArticle (the interface of the Markdown import's
    ``ArticleReader``): fields, topics and authors looked up, the HTML body in blocks, and the
    featured image found among the export's files."""

    def __init__(self, source: ExportedPost, *, resolve_link, image_for):
        self.source = source
        self.image_for = image_for
        self.notes: list[str] = list(source.notes)

    def shortened(self, name: str, text: str, limit: int) -> str:
        """``text`` cut at a word to at most ``limit`` characters, an ellipsis included, with a
        note; as it is if it fits. The limits are the editor's (``blog.forms.FIELD_LIMITS``,
        ``SUMMARY_MAX_LENGTH``), so an imported draft saves in the editor as it is."""
        if len(text) <= limit:
            return text
        self.notes.append(f"the {name} was shortened to {limit} characters")
        return text[: limit - 1].rsplit(" ", 1)[0].rstrip() + "…"

    def read(self) -> ParsedArticle:
        post = self.source
        if post.problem:
            raise MarkdownImportError(post.problem)
        title = self.shortened("title", one_line(checked_text("title", post.title)), TITLE_MAX_LENGTH)
        if not title:
            raise MarkdownImportError("the post has no title")
        markdown_import.check_title(title)
        slug = checked_text("slug", post.slug) or slugify(title, allow_unicode=True)
        if not slug or slugify(slug, allow_unicode=True) != slug:
            raise MarkdownImportError(f"slug '{cut(slug)}' is not a slug; use lowercase letters, digits and hyphens")
        if post.status and post.status != "draft":
            self.notes.append(f"{post.platform} status '{cut(post.status)}': imported as a draft")
        body = HtmlBodyReader(post, self.notes.append, self.image_for).blocks(post.html)
        summary = BeautifulSoup(post.excerpt, "html.parser").get_text(" ", strip=True) if post.excerpt else ""
        if not summary:
            summary = _first_text(body)
            self.notes.append("no excerpt: the first paragraph's start is used as the summary")
        # Checked once parsed (a raw NUL stays a NUL; &#1; becomes a control character).
        summary = self.shortened("summary", checked_text("summary", summary), SUMMARY_MAX_LENGTH)
        fields = {
            "title": title,
            "slug": slug,
            "summary": summary,
            "seo_title": self.shortened("SEO title", checked_text("seo_title", post.seo_title), SEO_TITLE_MAX_LENGTH),
            "search_description": self.shortened(
                "search description",
                checked_text("search_description", post.search_description),
                SEARCH_DESCRIPTION_MAX_LENGTH,
            ),
            "image_alt": checked_text("image_alt", post.feature_image_alt)[:500],
        }
        if post.date is not None:
            fields["date_published"] = post.date
        card_image = None
        if post.feature_image:
            local = post.local_image(post.feature_image)
            if local is None:
                self.notes.append(
                    f"featured image {post.feature_image[:120]} is not in the export or the media folder "
                    "(never downloaded): imported without it"
                )
            else:
                card_image = (local, fields["image_alt"])
        return ParsedArticle(
            source=post,
            slug=slug,
            fields=fields,
            topics=self.lookup(post.tags, TopicPage, "title", "topic"),
            authors=self.lookup(post.authors, Author, "name", "author"),
            body=body,
            card_image=card_image,
            notes=self.notes,
            links=set(),
        )

    def lookup(self, wanted, model, name_field: str, kind: str) -> list:
        """Existing topics or authors for ``(slug, name)`` pairs, by slug or by name in any case;
        unknown ones are reported and left out (none is created: topics are pages editors place
        and authors snippets a moderator approves)."""
        found = []
        for slug, name in wanted:
            slug, name = checked_text(f"{kind}s", slug), checked_text(f"{kind}s", name)
            match = (model.objects.filter(slug=slug).first() if slug else None) or (
                model.objects.annotate(lower_name=Lower(name_field)).filter(lower_name=name.lower()).first()
                if name
                else None
            )
            if match is None:
                self.notes.append(
                    f"unknown {kind} '{cut(name or slug)}' left out (add it first, then import with --update)"
                )
            elif match not in found:
                found.append(match)
        return found


def _first_text(body: list[dict]) -> str:
    for block in body:
        if block["type"] == "paragraph":
            return BeautifulSoup(block["value"], "html.parser").get_text(" ", strip=True)
    return ""


# HTML bodies into blocks ---------------------------------------------------------------------


class HtmlBodyReader:
    """A post's HTML body as raw StreamField data of ``blog.blocks.ArticleBodyBlock``.

    - ``<h1>``-``<h6>``: heading (h1 becomes h2, h4-h6 h3, reported); ``id`` kept as the anchor.
    - ``<p>``, ``<ul>``, ``<ol>`` and loose text (WordPress's classic editor: a blank line starts a
      paragraph, a newline is a line break): paragraph blocks with bold, italic, code and links.
    - ``<pre>`` (with ``<code class="language-x">``, or ``lang-x``): code block; an unknown
      language is plain text, reported.
    - ``<table>`` (in a ``<figure>`` or not): table block with the ``<th>`` row as header, the
      ``<caption>``/``<figcaption>`` as caption; short rows are padded.
    - ``<figure>``/``<img>`` alone in a paragraph: figure block (alt text, figcaption); the image
      comes from the export's files only; without alt text or a local file it is left out, reported.
    - ``<blockquote>``: quote, with ``<cite>`` or a last ``— name`` paragraph as attribution.
    - Gutenberg's ``<!-- wp:... -->`` comments and other comments are ignored; wrappers (``div``,
      ``section``, Ghost's cards) are read through; ``<hr>`` is left out; script, iframes and other
      active elements are removed (``home.rich_text_safety``); shortcodes stay as text, reported.
    """

    def __init__(self, post: ExportedPost, note, image_for):
        self.post = post
        self.note = note
        self.image_for = image_for
        self.blocks_out: list[dict] = []
        self.pending: list[str] = []  # paragraphs and lists that make one paragraph block
        self.loose: list = []  # top-level inline nodes (classic editor text)
        self.shortcodes: set[str] = set()

    def blocks(self, html: str) -> list[dict]:
        """The blocks of ``html``; raises MarkdownImportError for a NUL (``checked_text``; other
        control characters are removed) or HTML nested deeper than Python's recursion limit (no
        editor writes that; a hostile export could)."""
        html = checked_text("body", html)
        try:
            soup = BeautifulSoup(html, "html.parser")
            self.walk(soup.contents)
            self.flush()
        except RecursionError as error:
            raise MarkdownImportError("the post's HTML is nested too deeply to read") from error
        if self.shortcodes:
            self.note(f"shortcodes kept as text: {', '.join(f'[{name}]' for name in sorted(self.shortcodes))}")
        return self.blocks_out

    def add(self, block: dict | None):
        self.flush()
        if block is not None:
            self.blocks_out.append(block)

    def flush_loose(self):
        if not self.loose:
            return
        runs: list = []
        for node in self.loose:
            self.inline(node, runs, classic=True)
        self.loose = []
        paragraph: list = []
        for run in [*runs, ("break", "")]:
            if run[0] == "break":
                if html := self.paragraph_html(paragraph):
                    self.pending.append(f"<p>{html}</p>")
                paragraph = []
            else:
                paragraph.append(run)

    def flush(self):
        self.flush_loose()
        if self.pending:
            self.blocks_out.append({"type": "paragraph", "value": remove_active_content("".join(self.pending))})
            self.pending = []

    def walk(self, nodes):
        for node in list(nodes):
            if isinstance(node, Comment):
                text = node.strip()
                # Gutenberg's block delimiters, its "more"/"nextpage" markers and Ghost's card markers.
                if not text.startswith(("wp:", "/wp:", "kg-card-")) and text not in {"more", "nextpage"}:
                    self.note(f"an HTML comment was left out: <!--{text[:60]}-->")
                continue
            if isinstance(node, NavigableString):
                if type(node) is NavigableString:
                    self.loose.append(node)
                continue
            name = node.name
            if name in LEFT_OUT:
                self.note(f"<{name}> was removed (no active content or embeds from an import)")
                continue
            if name in INLINE and not (name == "img" or node.find("img")):
                self.loose.append(node)
                continue
            self.flush_loose()
            if name == "p":
                if (image := _only_image(node)) is not None:
                    self.add(self.figure(image, ""))
                elif html := self.paragraph_html(self.runs_of(node)):
                    self.pending.append(f"<p>{html}</p>")
            elif name in {"ul", "ol"}:
                self.pending.append(self.list_html(node))
            elif re.fullmatch(r"h[1-6]", name):
                self.add(self.heading(node))
            elif name == "pre":
                self.add(self.code(node))
            elif name == "table":
                self.add(self.table(node, ""))
            elif name == "figure":
                self.figure_element(node)
            elif name == "img" or (name in INLINE and node.find("img")):
                image = node if name == "img" else node.find("img")
                self.add(self.figure(image, ""))
            elif name == "blockquote":
                self.add(self.quote(node))
            elif name == "hr":
                self.note("a horizontal rule was left out (sections start with headings)")
            elif name in WRAPPERS:
                self.walk(node.contents)
            else:
                self.note(f"<{name}> has no block here: its content was kept as text")
                self.walk(node.contents)

    # Inline ----------------------------------------------------------------------------------

    def runs_of(self, node) -> list:
        runs: list = []
        for child in node.children:
            self.inline(child, runs)
        return runs

    def inline(self, node, runs, classic=False):
        """Append ``("text", str)``/``("html", markup)`` runs (``blog.markdown_import._join_runs``)
        for ``node``; with ``classic``, text outside elements follows WordPress's ``wpautop``."""
        if isinstance(node, Comment) or (isinstance(node, NavigableString) and type(node) is not NavigableString):
            return
        if isinstance(node, NavigableString):
            # Before whitespace is collapsed: \x1f from "&#31;" is whitespace to re's \s.
            text = remove_invalid_characters(str(node))
            for name in SHORTCODE.findall(text):
                self.shortcodes.add(name)
            if classic:
                for index, part in enumerate(re.split(r"\n\s*\n", text)):
                    if index:
                        runs.append(("break", ""))
                    lines = part.split("\n")
                    for number, line in enumerate(lines):
                        if number and lines[number - 1].strip() and line.strip():
                            runs.append(("html", "<br/>"))
                        runs.append(("text", re.sub(r"\s+", " ", line)))
            else:
                runs.append(("text", re.sub(r"\s+", " ", text)))
            return
        name = node.name
        if name in LEFT_OUT:
            self.note(f"<{name}> was removed (no active content or embeds from an import)")
        elif name in {"b", "strong", "i", "em"}:
            tag = "b" if name in {"b", "strong"} else "i"
            runs.append(("html", f"<{tag}>"))
            for child in node.children:
                self.inline(child, runs)
            runs.append(("html", f"</{tag}>"))
        elif name in {"code", "kbd", "samp", "tt"}:
            runs.append(("html", f"<code>{escape(node.get_text())}</code>"))
        elif name == "a":
            href = str(node.get("href") or "").replace(GHOST_URL, "").strip() or ""
            usable = href and check_url(href) is not None and not is_other_host_path(href)
            if href and not usable:
                self.note(f"link {href[:80]!r} was refused (not http, https, mailto or a path): kept as text")
            runs.append(("html", f'<a href="{escape(href).replace(chr(34), "&quot;")}">' if usable else ""))
            for child in node.children:
                self.inline(child, runs)
            runs.append(("html", "</a>" if usable else ""))
        elif name == "br":
            runs.append(("html", "<br/>"))
        elif name == "img":
            self.note("an image inside text was kept as its alt text (put images in their own paragraph)")
            runs.append(("text", str(node.get("alt") or "")))
        else:
            for child in node.children:
                self.inline(child, runs)

    def paragraph_html(self, runs) -> str:
        """Rich text of ``runs`` with outer whitespace trimmed, or "" if they hold no text."""
        runs = [list(run) for run in runs]
        texts = [run for run in runs if run[0] == "text"]
        if texts:
            texts[0][1] = texts[0][1].lstrip()
            texts[-1][1] = texts[-1][1].rstrip()
        if not any(run[1].strip() for run in texts) and not any(run[1].startswith("<code>") for run in runs):
            return ""
        return _join_runs([tuple(run) for run in runs]).strip()

    def list_html(self, node) -> str:
        tag = "ol" if node.name == "ol" else "ul"
        items = []
        for item in node.find_all("li", recursive=False):
            runs, nested = [], []
            for child in item.children:
                if isinstance(child, Tag) and child.name in {"ul", "ol"}:
                    nested.append(self.list_html(child))
                elif isinstance(child, Tag) and child.name == "p":
                    runs.extend([*self.runs_of(child), ("text", " ")])
                else:
                    self.inline(child, runs)
            items.append(f"<li>{self.paragraph_html(runs)}{''.join(nested)}</li>")
        return f"<{tag}>{''.join(items)}</{tag}>"

    # Blocks ----------------------------------------------------------------------------------

    def heading(self, node) -> dict:
        level = node.name
        if level == "h1":
            self.note("a level-1 heading became a section (h2): the title is the page's h1")
            level = "h2"
        elif level not in {"h2", "h3"}:
            self.note(f"a level-{level[1]} heading became a subsection (h3)")
            level = "h3"
        anchor = str(node.get("id") or "")
        if slugify(anchor, allow_unicode=True) != anchor:
            anchor = ""
        return {
            "type": "heading",
            "value": {"text": node.get_text(" ", strip=True)[:120], "level": level, "anchor": anchor[:80]},
        }

    def code(self, node) -> dict:
        code = node.find("code") or node
        classes = [*(code.get("class") or []), *(node.get("class") or [])]
        word = next((name.split("-", 1)[1].lower() for name in classes if name.startswith(("language-", "lang-"))), "")
        language = _LANGUAGE_ALIASES.get(word, word)
        if language not in _LANGUAGES:
            self.note(f"code language '{word}' is not one we highlight: shown as plain text")
            language = "text"
        source = code.get_text().strip("\n")
        return {"type": "code", "value": {"language": language, "filename": "", "source": source}}

    def table(self, node, caption: str) -> dict | None:
        rows, header_cells = [], []
        for row in node.find_all("tr"):
            if row.find_parent("table") is not node:
                continue
            cells = row.find_all(["th", "td"], recursive=False)
            rows.append([cell.get_text(" ", strip=True) for cell in cells])
            header_cells.append([cell.name == "th" for cell in cells])
            if any(cell.get("colspan") or cell.get("rowspan") for cell in cells):
                self.note("a table cell spanning several columns or rows was split into one cell")
        if not rows:
            self.note("an empty table was left out")
            return None
        width = max(len(row) for row in rows)
        rows = [row + [""] * (width - len(row)) for row in rows]
        header_row = bool(node.find("thead")) or all(header_cells[0] or [False])
        first_col = all(flags[:1] == [True] for flags in header_cells[1:]) and len(rows) > 1
        if element := node.find("caption"):
            caption = element.get_text(" ", strip=True)
        value = {
            "data": rows,
            "first_row_is_table_header": header_row,
            "first_col_is_header": first_col,
            # Given, not derived: Wagtail's TableBlock.to_python derives "col" for a first-column
            # header, which its clean() (expecting "column", its form's choice) reads as none.
            "table_header_choice": {(True, True): "both", (True, False): "row", (False, True): "column"}.get(
                (header_row, first_col), "neither"
            ),
            "table_caption": caption[:300],
        }
        return {"type": "table", "value": value}

    def figure_element(self, node):
        caption_element = node.find("figcaption")
        caption = caption_element.get_text(" ", strip=True) if caption_element else ""
        if (table := node.find("table")) is not None:
            self.add(self.table(table, caption))
        elif (image := node.find("img")) is not None:
            self.add(self.figure(image, caption))
        elif (quote := node.find("blockquote")) is not None:
            self.add(self.quote(quote))
        elif (pre := node.find("pre")) is not None:
            self.add(self.code(pre))
        else:
            if caption_element is not None:
                caption_element.extract()
            self.walk(node.contents)
            if caption:
                self.pending.append(f"<p>{escape(caption)}</p>")

    def figure(self, image: Tag, caption: str) -> dict | None:
        src = str(image.get("src") or "")
        alt = str(image.get("alt") or "").strip() or str(image.get("title") or "").strip() or caption
        if not alt:
            self.note(f"image {src[:120]} has no alt text: left out (add it in the editor with its description)")
            return None
        local = self.post.local_image(src) if src and not src.startswith("data:") else None
        if local is None:
            self.note(f"image {src[:120]} is not in the export or the media folder (never downloaded): left out")
            return None
        library_image = self.image_for(self.post, local, alt, self.note)
        if library_image is None:
            return None
        return {"type": "image", "value": {"image": library_image.pk, "alt_text": alt[:500], "caption": caption[:300]}}

    def quote(self, node) -> dict:
        attribution = ""
        if cite := node.find(["cite", "footer"]):
            attribution = cite.get_text(" ", strip=True)
            cite.extract()
        paragraphs = [p.get_text(" ", strip=True) for p in node.find_all("p")] or [node.get_text(" ", strip=True)]
        paragraphs = [text for text in paragraphs if text]
        if not attribution and len(paragraphs) > 1 and paragraphs[-1].startswith(("— ", "-- ")):  # noqa: RUF001
            attribution = paragraphs.pop()[2:].strip()
        return {"type": "quote", "value": {"quote": "\n\n".join(paragraphs), "attribution": attribution[:160]}}


def _only_image(paragraph: Tag) -> Tag | None:
    """The ``<img>`` of a paragraph that holds only it (perhaps inside a link), else None."""
    images = paragraph.find_all("img")
    if len(images) != 1 or paragraph.get_text(strip=True):
        return None
    return images[0]


# Where the import command and view find their sources ------------------------------------------


def sources_from_path(path: Path, media: Path | None = None) -> list:
    """The sources of ``path`` for ``import_sources``: a WordPress ``.xml`` or Ghost ``.json``
    export (its images beside it), a ``.zip`` holding one at its top level with its images, a
    folder with exports at its top level, or anything the Markdown import reads
    (``blog.markdown_import.sources_from_path``); Markdown files in a folder or zip are read too.
    ``media`` is a further folder to find images in. Raises MarkdownImportError."""
    extra = [SourceFiles(folder=media)] if media is not None else []
    if path.is_dir():
        sources = []
        for export in sorted(item for item in path.iterdir() if item.is_file() and is_export_name(item.name)):
            sources += posts_from_export(export.name, _read(export), [SourceFiles(folder=path), *extra])
        return sources + markdown_import.sources_from_path(path)
    if path.is_file() and is_export_name(path.name):
        return posts_from_export(path.name, _read(path), [SourceFiles(folder=path.parent), *extra])
    if path.is_file() and path.suffix.lower() == ".zip":
        return sources_from_zip(path.name, path.read_bytes(), extra)
    return markdown_import.sources_from_path(path)


def sources_from_upload(name: str, data: bytes) -> list:
    """The sources of an uploaded export (``.xml``/``.json``: no images can come with it), a
    ``.zip`` or a Markdown file; see ``sources_from_path``."""
    if is_export_name(name):
        return posts_from_export(PurePosixPath(name).name, data, [])
    if name.lower().endswith(".zip"):
        return sources_from_zip(name, data, [])
    return markdown_import.sources_from_upload(name, data)


def sources_from_zip(name: str, data: bytes, extra: list) -> list:
    """The exports at the top level of zip ``data`` (its other members as their images) and its
    Markdown files."""
    archive = markdown_import.open_zip(name, data)
    files = SourceFiles(archive=archive)
    sources = []
    for info in sorted(archive.infolist(), key=lambda member: member.filename):
        if info.is_dir() or "/" in info.filename or not is_export_name(info.filename):
            continue
        if info.file_size > MAX_EXPORT_BYTES:
            raise MarkdownImportError(f"{info.filename}: larger than {MAX_EXPORT_BYTES // 2**20} MB")
        try:
            export = markdown_import.read_member(archive, info)
        except MarkdownImportError as error:
            raise MarkdownImportError(f"{name}: {error}") from error
        sources += posts_from_export(info.filename, export, [files, *extra])
    return sources + markdown_import.sources_from_zip(name, data)


def _read(path: Path) -> bytes:
    if path.stat().st_size > MAX_EXPORT_BYTES:
        raise MarkdownImportError(f"{path.name}: larger than {MAX_EXPORT_BYTES // 2**20} MB")
    return path.read_bytes()
