"""Markdown articles in: files with YAML front matter become draft ArticlePages made of our blocks.

Parsers: python-frontmatter's handlers (YAML front matter with ``FrontMatterLoader``, a safe
loader without anchors, aliases or deep nesting; or JSON between ``{`` and ``}`` lines), markdown-it-py with
mdit-py-plugins (front_matter, footnote, dollarmath) and its GFM table rule. The Markdown
written by ``blog.markdown_export`` reads back into an equal body; the conventions both share
are in docs/editor-guide.md ("Markdown in and out"):

- ``## Heading {#anchor}`` (h2, h3), paragraphs and lists; ``<!-- -->`` between two paragraph
  blocks; ``[text](other-article.md)`` is a page link to that article.
- Fenced code ```` ```python title="kv.py" ````, pipe tables with a ``Table: caption`` line,
  ``![alt](images/x.png "caption")`` alone in a paragraph (a figure), ``> quote`` with a last
  ``> — attribution`` line, GitHub alerts ``> [!NOTE]``/``[!WARNING]``/``[!TIP]`` (callouts,
  an optional first ``**Title**`` line), ``$...$`` and ``$$...$$`` (math).
- MyST-style directives for blocks Markdown has no syntax for: ```` ```{key-figure} ````,
  ```` ```{cta} ````, ```` ```{embed} ````, ```` ```{chart} ```` (the data as the body) with
  ``:field: value`` lines.
- Footnotes ``[^label]`` and ``[^label]: text`` (the footnotes block, where a
  ``<!-- footnotes -->`` line stands, else at the end).

Anything else (raw HTML, rules, deeper headings) is kept as text or mapped to the nearest block, and reported.

Every text an import stores passes the editor form's rule (``checked_text``): a NUL fails the file
naming the field, other control characters are removed. A front matter value's type is checked
before it is measured, turned into text or quoted in a message (``_text_field``, ``_shown``).
"""

import io
import json
import posixpath
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from datetime import date, datetime, time
from functools import cached_property
from html import escape as html_escape
from pathlib import Path, PurePosixPath
from types import SimpleNamespace
from urllib.parse import unquote

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.db.models.functions import Lower
from django.template.defaultfilters import filesizeformat
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.text import slugify

from wagtail.images import get_image_model
from wagtail.images.forms import get_image_form
from wagtail.utils.file import hash_filelike

import yaml
from frontmatter.default_handlers import JSONHandler, YAMLHandler
from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from blog.blocks import CODE_LANGUAGES, ArticleBodyBlock
from blog.footnotes import FOOTNOTE_LABEL, FOOTNOTES_PLACE
from blog.forms import SEARCH_DESCRIPTION_MAX_LENGTH, SEO_TITLE_MAX_LENGTH, TITLE_MAX_LENGTH
from blog.mathml import INLINE_MATH, needs_dollar_escape
from blog.models import SUMMARY_MAX_LENGTH, ArticlePage, Author, BlogIndexPage, TopicPage
from home.page_forms import EARLIEST_SHOWABLE, LATEST_SHOWABLE, one_line
from home.slugs import reserved_slug_problem
from home.text_cleaning import XML_INVALID_CHARACTERS, form_text, has_visible_character, remove_invalid_characters

# Limits on what one import reads: far above a long article (the demo's longest is 30 KB) and a
# blog's images, small enough that a hostile upload cannot fill memory or disk. Our own figures;
# images are also held to Wagtail's WAGTAILIMAGES_MAX_UPLOAD_SIZE by its image form.
MAX_MARKDOWN_BYTES = 1024 * 1024
MAX_ZIP_MEMBERS = 2000
MAX_ZIP_BYTES = 200 * 1024 * 1024
# What opening a zip or reading a member raises: a damaged one (a bad CRC, a truncated or corrupt
# stream, a bad central directory or zip64 record), an encrypted member (RuntimeError) and a
# compression method or zip version zipfile does not read (NotImplementedError).
ZIP_READ_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, RuntimeError, NotImplementedError)
# The compression methods zipfile reads; others are named in the message where we know them.
ZIP_METHODS_READ = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}
ZIP_METHOD_NAMES = {9: "Deflate64", 93: "Zstandard", 95: "XZ", 98: "PPMd"}
# Flag bit 0: encrypted (ZipCrypto); bit 6: strong encryption. Method 99 is WinZip's AES.
ZIP_ENCRYPTED_FLAGS = 0x1 | 0x40
ZIP_AES_METHOD = 99
IMAGE_SUFFIXES = {".avif", ".gif", ".jpg", ".jpeg", ".png", ".webp"}
# Front matter is a mapping of values and lists (three levels); 20 is far past any real post's and
# far short of Python's recursion limit, which PyYAML's composer (one call per level) would reach.
MAX_FRONT_MATTER_DEPTH = 20

_LANGUAGES = {value for value, _label, _lexer in CODE_LANGUAGES}
# Fence info strings people write for our languages (GitHub linguist's common aliases).
_LANGUAGE_ALIASES = {
    "py": "python",
    "python3": "python",
    "sh": "bash",
    "shell": "bash",
    "console": "bash",
    "zsh": "bash",
    "yml": "yaml",
    "c++": "cpp",
    "cxx": "cpp",
    "docker": "dockerfile",
    "plain": "text",
    "plaintext": "text",
    "txt": "text",
    "": "text",
}
_ALERT_KINDS = {"NOTE": "note", "TIP": "takeaway", "IMPORTANT": "note", "WARNING": "warning", "CAUTION": "warning"}
_ALERT = re.compile(r"\[!([A-Za-z]+)\]")
_HEADING_ANCHOR = re.compile(r"\s*\{#([^\s{}]+)\}\s*$")
_FENCE_TITLE = re.compile(r"""title=(?:"([^"]*)"|'([^']*)'|(\S+))""")
# pymdownx.highlight's options in a fence's info string: line numbers and highlighted lines.
_FENCE_LINE_NUMBERS = re.compile(r"""\blinenums=["']?\d""")
_FENCE_HIGHLIGHT = re.compile(r"""\bhl_lines=(?:"([^"]*)"|'([^']*)')""")
_DIRECTIVE = re.compile(r"^\{([a-z-]+)\}\s*(.*)$")
_DIRECTIVE_OPTION = re.compile(r"^:([a-z_]+):(?:\s(.*))?$")
_TABLE_CAPTION = re.compile(r"^Table:\s*(.*?)\s*((?:\{\.[a-z-]+\}\s*)*)$", re.DOTALL)
_ATTRIBUTION = ("— ", "-- ")  # noqa: RUF001 - an em dash starts an attribution line
BLOCK_SEPARATOR = "<!-- -->"


# A new image that passed the image form in a dry run: nothing is stored, so it has no pk.
DRY_RUN_IMAGE = SimpleNamespace(pk=None)


def escape(text: str) -> str:
    """``text`` for rich text HTML: ``&``, ``<`` and ``>`` escaped, as Wagtail's editor stores
    text (an apostrophe or a quote stays as it is)."""
    return html_escape(text, quote=False)


class MarkdownImportError(Exception):
    """A file that cannot be imported; nothing is written for it. The message says why."""


class RefusedYAML(yaml.MarkedYAMLError):
    """Valid YAML that front matter does not take (``FrontMatterLoader``); ``problem_mark`` is where."""


class FrontMatterLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing as each node is composed (before anything is built) what no
    post's front matter needs and a hostile one uses: anchors and aliases (``&a``, ``*a``: seven
    levels of ten aliases each make 10**7 values of a 374-byte file, "billion laughs") and nesting
    deeper than MAX_FRONT_MATTER_DEPTH. Raises RefusedYAML."""

    def __init__(self, stream):
        super().__init__(stream)
        self.depth = 0

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            kind = "an alias (*name)" if isinstance(event, yaml.AliasEvent) else "an anchor (&name)"
            raise RefusedYAML(
                problem=f"has {kind}",
                problem_mark=event.start_mark,
                note="anchors and aliases are not read, write each value out",
            )
        if self.depth >= MAX_FRONT_MATTER_DEPTH:
            raise RefusedYAML(
                problem=f"nests deeper than {MAX_FRONT_MATTER_DEPTH} levels", problem_mark=event.start_mark
            )
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


# The formats python-frontmatter reads by default (TOML only with the toml package, not ours).
FRONT_MATTER_HANDLERS = (YAMLHandler(), JSONHandler())


def read_front_matter(text: str) -> tuple[dict, str]:
    """``(fields, body)`` of a Markdown file's ``text``: its front matter (YAML between ``---``
    lines, or JSON between ``{`` and ``}`` lines) as a dict (empty if there is none), and the
    text with the front matter's lines left blank, so the body's line numbers are the file's.

    Raises MarkdownImportError naming the line for front matter that does not parse, is not a
    mapping, has an anchor or alias, or nests deeper than MAX_FRONT_MATTER_DEPTH (JSON: deeper
    than Python's recursion limit)."""
    handler = next((handler for handler in FRONT_MATTER_HANDLERS if handler.detect(text)), None)
    if handler is None:
        return {}, text
    try:
        front, body = handler.split(text)
    except ValueError:  # an opening line without a closing one: no front matter, as python-frontmatter reads it
        return {}, text
    options = {"Loader": FrontMatterLoader} if isinstance(handler, YAMLHandler) else {}
    try:
        fields = handler.load(front, **options)
    except RefusedYAML as error:
        advice = f": {error.note}" if error.note else ""
        raise MarkdownImportError(
            f"the front matter {error.problem} on line {error.problem_mark.line + 1}{advice}"
        ) from error
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark else ""
        raise MarkdownImportError(
            f"the front matter is not valid YAML{where}: {getattr(error, 'problem', error)}"
        ) from error
    except json.JSONDecodeError as error:
        raise MarkdownImportError(
            f"the front matter is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
        ) from error
    except RecursionError as error:  # JSON's decoder stops at Python's recursion limit
        raise MarkdownImportError("the front matter is nested too deeply to read") from error
    except ValueError as error:  # a date that does not exist (2026-02-30), a number past 4300 digits
        raise MarkdownImportError(f"the front matter has a value that is not valid: {error}") from error
    if fields is None:  # "---" twice: empty front matter
        fields = {}
    if not isinstance(fields, dict):
        raise MarkdownImportError("the front matter must be a mapping of fields (title: ..., slug: ...)")
    return fields, "\n" * text[: len(text) - len(body)].count("\n") + body


def checked_text(name: str, value: str) -> str:
    """``value`` as the editor's form keeps it (``home.text_cleaning.form_text``): control
    characters removed; raises MarkdownImportError naming field ``name`` for a NUL, which the
    form refuses."""
    try:
        return form_text(value)
    except ValidationError as error:
        raise MarkdownImportError(f"'{name}': {' '.join(error.messages)}") from error


def _checked_values(name: str, value):
    """``value`` (raw StreamField data: dicts and lists of text and numbers) with ``checked_text``
    applied to every string."""
    if isinstance(value, str):
        return checked_text(name, value)
    if isinstance(value, list):
        return [_checked_values(name, item) for item in value]
    if isinstance(value, dict):
        return {key: _checked_values(name, item) for key, item in value.items()}
    return value


def cut(text: str, limit: int = 60) -> str:
    """``text`` for a message: at most ``limit`` characters, an ellipsis marking a cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shown_name(name: str) -> str:
    """A file name or path for a message: characters that do not print (control characters, a
    NUL, a bidi override such as U+202E that would turn the report's text around) as escapes
    (``\\x00``, ``\\u202e``), then ``cut``; letters of any script and emoji stay as they are."""
    return cut("".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in name))


def _shown(value) -> str:
    """A front matter value (or key) for a message: text in quotes and ``cut``; a number as itself;
    anything else by its type ("a list"), never turned into text whole (a list may be a nest of
    aliases or past the recursion limit, an integer past Python's 4300-digit limit)."""
    if isinstance(value, str):
        return f"'{cut(value)}'"
    if isinstance(value, float) or (isinstance(value, int) and value.bit_length() <= 64):
        return str(value)
    if isinstance(value, int):
        return "a very long number"
    return {list: "a list", dict: "a mapping"}.get(type(value), f"a {type(value).__name__} value")


@dataclass
class FileReport:
    """What the import did with one file: ``action`` is created, updated, unchanged, skipped,
    failed, or "would create"/"would update" in a dry run; ``notes`` lists what was mapped,
    kept as text or left out."""

    name: str
    action: str = ""
    slug: str = ""
    page_id: int | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return self.action == "failed"

    def line(self) -> str:
        """One line for a terminal or the admin: ``name: action slug (notes)``."""
        text = f"{self.name}: {self.action}"
        if self.slug:
            text += f" '{self.slug}'"
        if self.page_id:
            text += f" (page {self.page_id})"
        return text + "".join(f"\n    - {note}" for note in self.notes)


@dataclass
class MarkdownSource:
    """One Markdown file to import: ``name`` (its path within the import, POSIX), ``text``, and
    ``read_file(relative_path) -> bytes | None`` for the images beside it."""

    name: str
    text: str
    files: "SourceFiles"

    @cached_property
    def front_matter(self) -> tuple[dict, str]:
        """``read_front_matter(self.text)``, read once for the slugs of an import and its article."""
        return read_front_matter(self.text)

    def read_file(self, reference: str, limit: int | None = None) -> bytes | None:
        """The bytes of ``reference`` (relative to this file, decoded: ``my card.png``), or None if
        it is missing, outside the import or over ``limit`` bytes. Raises MarkdownImportError for
        a zip member that cannot be unpacked (``read_member``)."""
        path = posixpath.normpath(posixpath.join(posixpath.dirname(self.name), reference))
        return self.files.read(path, limit=limit)


class SourceFiles:
    """The files of one import (a folder or a zip), read by POSIX path inside it.

    Paths that leave the import (``..``, absolute paths, drive letters) read as missing, as do
    names the file system refuses (too long).
    """

    def __init__(self, folder: Path | None = None, archive: zipfile.ZipFile | None = None):
        self.folder = folder.resolve() if folder else None
        self.archive = archive

    def read(self, path: str, limit: int | None = None) -> bytes | None:
        """The bytes of ``path``, or None if it is missing, outside the import or over ``limit``
        bytes. Raises MarkdownImportError (``read_member``) for a zip member that is there but
        cannot be unpacked (encrypted, an unknown compression method, damaged)."""
        if not _safe_member(path):
            return None
        if self.archive is not None:
            try:
                info = self.archive.getinfo(path)
            except KeyError:
                return None
            if info.file_size > (limit or MAX_ZIP_BYTES):
                return None
            return read_member(self.archive, info)
        target = self._file(path)
        if target is None or target.stat().st_size > (limit or MAX_ZIP_BYTES):
            return None
        return target.read_bytes()

    def exists(self, path: str) -> bool:
        """Whether ``path`` is a file of the import (without reading it)."""
        if not _safe_member(path):
            return False
        if self.archive is not None:
            try:
                self.archive.getinfo(path)
            except KeyError:
                return False
            return True
        return self._file(path) is not None

    def _file(self, path: str) -> Path | None:
        """The file at ``path`` in the folder, or None (no folder, outside it, not a file)."""
        if self.folder is None:
            return None
        try:
            target = (self.folder / path).resolve()
            return target if target.is_relative_to(self.folder) and target.is_file() else None
        except OSError:  # a name past the file system's limit (ENAMETOOLONG): no such file
            return None


def _safe_member(path: str) -> bool:
    """Whether ``path`` stays inside the import: relative, no ``..``, no drive or backslash, and no
    character a file name cannot take (a NUL, ``%00`` in an export's URL, is an error to the file system)."""
    pure = PurePosixPath(path)
    return (
        bool(path)
        and not pure.is_absolute()
        and ".." not in pure.parts
        and ":" not in path
        and "\\" not in path
        and not XML_INVALID_CHARACTERS.search(path)
    )


def sources_from_path(path: Path) -> list[MarkdownSource]:
    """The Markdown files of ``path``: a ``.md`` file, a folder (every ``*.md`` inside, sorted)
    or a ``.zip`` of such a folder. Raises MarkdownImportError for a path that is none of
    these, a zip that is not one, has members outside itself (zip slip) or is too large."""
    if path.is_dir():
        files = SourceFiles(folder=path)
        return [
            _source(file.relative_to(path).as_posix(), file.read_bytes(), files)
            for file in sorted(path.rglob("*.md"))
            if file.stat().st_size <= MAX_MARKDOWN_BYTES or _too_large(file.name)
        ]
    if not path.is_file():
        raise MarkdownImportError(f"{path}: no such file or folder")
    if path.suffix.lower() == ".zip":
        return sources_from_zip(path.name, path.read_bytes())
    if path.suffix.lower() not in {".md", ".markdown"}:
        raise MarkdownImportError(f"{path}: not a .md file, a folder or a .zip")
    if path.stat().st_size > MAX_MARKDOWN_BYTES:
        _too_large(path.name)
    return [_source(path.name, path.read_bytes(), SourceFiles(folder=path.parent))]


def sources_from_upload(name: str, data: bytes) -> list[MarkdownSource]:
    """The Markdown files of an uploaded ``.md`` or ``.zip`` (``data`` its bytes); see
    ``sources_from_path`` for the errors."""
    if name.lower().endswith(".zip"):
        return sources_from_zip(name, data)
    if not name.lower().endswith((".md", ".markdown")):
        raise MarkdownImportError(f"{name}: upload a .md file or a .zip of a folder of them")
    if len(data) > MAX_MARKDOWN_BYTES:
        _too_large(name)
    return [_source(PurePosixPath(name).name, data, SourceFiles())]


def sources_from_zip(name: str, data: bytes) -> list[MarkdownSource]:
    """The ``*.md`` members of zip ``data``, with the zip's other members as their images."""
    archive = open_zip(name, data)
    members = archive.infolist()
    files = SourceFiles(archive=archive)
    sources = []
    for info in sorted(members, key=lambda member: member.filename):
        if info.is_dir() or not info.filename.lower().endswith((".md", ".markdown")):
            continue
        if info.filename.startswith("__MACOSX/"):
            continue
        if info.file_size > MAX_MARKDOWN_BYTES:
            _too_large(info.filename)
        try:
            data = read_member(archive, info)
        except MarkdownImportError as error:
            raise MarkdownImportError(f"{name}: {error}") from error
        sources.append(_source(info.filename, data, files))
    return sources


def read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """The bytes of ``archive``'s member ``info``. Raises MarkdownImportError naming it
    ("a.md cannot be unpacked: ...") if it is encrypted, uses a compression method zipfile does
    not read (Deflate64, AES) or is damaged (a bad CRC, a truncated stream)."""
    problem = f"{shown_name(info.filename)} cannot be unpacked"
    # Checked before reading: zipfile's own error quotes the whole ZipInfo and asks for a password.
    if info.flag_bits & ZIP_ENCRYPTED_FLAGS or info.compress_type == ZIP_AES_METHOD:
        raise MarkdownImportError(f"{problem}: it is encrypted (zip it again without a password)")
    try:
        return archive.read(info)
    except NotImplementedError as error:
        if info.compress_type in ZIP_METHODS_READ:  # another zip feature, e.g. "patched data"
            raise MarkdownImportError(f"{problem}: it uses a zip feature that is not supported ({error})") from error
        method = ZIP_METHOD_NAMES.get(info.compress_type)
        raise MarkdownImportError(
            f"{problem}: it uses a compression method ({info.compress_type}{f', {method}' if method else ''}) "
            "that is not supported (zip it again with the usual Deflate compression)"
        ) from error
    except ZIP_READ_ERRORS as error:
        raise MarkdownImportError(f"{problem} ({cut(str(error), 120)})") from error


def open_zip(name: str, data: bytes) -> zipfile.ZipFile:
    """Zip ``data`` opened for reading, once it is known to be a zip with at most
    MAX_ZIP_MEMBERS members, MAX_ZIP_BYTES unpacked and no member outside itself (zip slip);
    raises MarkdownImportError otherwise."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except ZIP_READ_ERRORS as error:  # e.g. NotImplementedError "zip file version 25.2"
        raise MarkdownImportError(f"{name}: not a readable zip file ({cut(str(error), 120)})") from error
    if len(members) > MAX_ZIP_MEMBERS:
        raise MarkdownImportError(f"{name}: more than {MAX_ZIP_MEMBERS} files in the zip")
    if sum(info.file_size for info in members) > MAX_ZIP_BYTES:
        raise MarkdownImportError(f"{name}: the zip unpacks to more than {MAX_ZIP_BYTES // 2**20} MB")
    unsafe = [shown_name(info.filename) for info in members if not _safe_member(info.filename.rstrip("/"))]
    if unsafe:
        raise MarkdownImportError(
            f"{name}: the zip has paths outside its folder ({', '.join(unsafe[:3])}); nothing imported"
        )
    return archive


def _too_large(name: str):
    raise MarkdownImportError(f"{name}: larger than {MAX_MARKDOWN_BYTES // 1024} KB; split the article")


def _source(name: str, data: bytes, files: SourceFiles) -> MarkdownSource:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise MarkdownImportError(f"{name}: not UTF-8 text ({error.reason} at byte {error.start})") from error
    return MarkdownSource(name=name, text=text.replace("\r\n", "\n"), files=files)


def markdown_parser() -> MarkdownIt:
    """CommonMark with GFM tables, front matter, footnotes and ``$``/``$$`` math (Pandoc's
    dollar rule, as ``blog.mathml.INLINE_MATH``)."""
    return (
        MarkdownIt("commonmark", {"html": True})
        .enable("table")
        # Backslash escapes stay tokens of their own (text_special), so "\\$" (a literal dollar
        # sign) reads back as our rich text's "\\$".
        .disable("text_join")
        .use(front_matter_plugin)
        .use(footnote_plugin)
        .use(dollarmath_plugin, allow_space=False, allow_digits=False, allow_labels=False)
    )


@dataclass
class ParsedArticle:
    """A Markdown file read into page fields: ``fields`` for ArticlePage, ``topics``/``authors``
    as pages/snippets found, ``body`` as raw StreamField data, ``images`` to enter the library."""

    source: MarkdownSource
    slug: str
    fields: dict
    topics: list
    authors: list
    body: list
    card_image: object  # (path, alt) as read; the library image (or None) after read_article
    notes: list[str]
    links: set[str]
    links_waiting: bool = False  # links to files of the same import that are not pages yet


class ArticleReader:
    """Reads one source into a ParsedArticle. ``resolve_link(href) -> page | None`` turns links
    to other articles into page links; ``image_for(source, reference, alt) -> image`` enters
    images in the library (or returns a stand-in in a dry run)."""

    def __init__(self, source: MarkdownSource, *, resolve_link, image_for):
        self.source = source
        self.resolve_link = resolve_link
        self.image_for = image_for
        self.notes: list[str] = []
        self.links: set[str] = set()
        self.text = ""  # the body's text as parsed (read() sets it)

    # Front matter -------------------------------------------------------------------------

    def read(self) -> ParsedArticle:
        """The article; raises MarkdownImportError, also for Markdown nested past Python's
        recursion limit (emphasis inside emphasis thousands deep: no writer does that, a hostile
        file can, and markdown-it's syntax tree is built one call per level)."""
        try:
            return self.read_article()
        except RecursionError as error:
            raise MarkdownImportError("the Markdown is nested too deeply to read") from error

    def read_article(self) -> ParsedArticle:
        meta, body_text = self.source.front_matter
        # markdown-it would turn a NUL into U+FFFD: refused first, as the editor refuses it.
        self.text = checked_text("body", body_text)
        tree = SyntaxTreeNode(markdown_parser().parse(self.text))
        nodes = [node for node in tree.children if node.type != "front_matter"]
        title = one_line(_text_field(meta, "title", 255))
        if not title and nodes and nodes[0].type == "heading" and nodes[0].tag == "h1":
            title = one_line(_plain(nodes.pop(0).children[0]))
        if not title:
            raise MarkdownImportError("no title: add 'title:' to the front matter or start with '# Title'")
        check_title(title)
        slug = _text_field(meta, "slug", 255) or slugify(title, allow_unicode=True)
        if not slug or slugify(slug, allow_unicode=True) != slug:
            raise MarkdownImportError(f"slug '{cut(slug)}' is not a slug; use lowercase letters, digits and hyphens")
        body = self.body(nodes)
        summary = _text_field(meta, "summary", None)
        if len(summary) > SUMMARY_MAX_LENGTH:
            raise MarkdownImportError(f"the summary is longer than {SUMMARY_MAX_LENGTH} characters")
        if not summary:
            summary = checked_text("summary", _first_paragraph_text(body))[:SUMMARY_MAX_LENGTH]
            self.notes.append("no summary in the front matter: the first paragraph's start is used")
        fields = {
            "title": title,
            "slug": slug,
            "summary": summary,
            "seo_title": _text_field(meta, "seo_title", SEO_TITLE_MAX_LENGTH),
            "search_description": _text_field(meta, "search_description", SEARCH_DESCRIPTION_MAX_LENGTH)
            or _text_field(meta, "description", SEARCH_DESCRIPTION_MAX_LENGTH),
            "image_alt": _text_field(meta, "image_alt", 500),
        }
        published = meta.get("date")
        if published is not None:
            fields["date_published"] = _date(published)
        card_image = None
        if image := _text_field(meta, "image", 1000):
            card_image = (image, fields["image_alt"])
        known = {"title", "slug", "summary", "seo_title", "search_description", "description", "image"}
        known |= {"image_alt", "date", "topics", "authors"}
        # Keys may be numbers or dates too (YAML), which do not sort with text.
        for key in sorted(_shown(key) for key in meta if key not in known):
            self.notes.append(f"front matter {key} is not an article field and was left out")
        return ParsedArticle(
            source=self.source,
            slug=slug,
            fields=fields,
            topics=self.lookup(meta, "topics", TopicPage, "title"),
            authors=self.lookup(meta, "authors", Author, "name"),
            body=body,
            card_image=card_image,
            notes=self.notes,
            links=self.links,
        )

    def lookup(self, meta: dict, key: str, model, name_field: str) -> list:
        """Topics or authors named in the front matter (by name or slug, any case); unknown
        names are reported and left out."""
        wanted = meta.get(key) or []
        if isinstance(wanted, str):
            wanted = [wanted]
        if not isinstance(wanted, list) or not all(isinstance(name, str) for name in wanted):
            raise MarkdownImportError(f"'{key}' must be a list of names or slugs")
        found = []
        for name in wanted:
            name = checked_text(key, name).strip()
            match = (
                model.objects.annotate(lower_name=Lower(name_field)).filter(lower_name=name.lower()).first()
                or model.objects.filter(slug=slugify(name)).first()
            )
            if match is None:
                self.notes.append(
                    f"unknown {key[:-1]} {_shown(name)} left out (add it first, then import with --update)"
                )
            elif match not in found:
                found.append(match)
        return found

    # Body ---------------------------------------------------------------------------------

    def note(self, node, message: str):
        line = f"line {node.map[0] + 1}: " if node.map else ""
        self.notes.append(line + message)

    def body(self, nodes) -> list[dict]:
        blocks: list[dict] = []
        footnotes_at = None  # where the export's FOOTNOTES_PLACE comment put the footnotes block
        pending: list[str] = []  # HTML of paragraphs and lists that make one paragraph block

        def flush():
            if pending:
                blocks.append({"type": "paragraph", "value": "".join(pending)})
                pending.clear()

        for node in nodes:
            kind = node.type
            if kind == "html_block" and node.content.strip() == BLOCK_SEPARATOR:
                flush()
            elif kind == "html_block" and node.content.strip() == FOOTNOTES_PLACE:
                flush()
                footnotes_at = len(blocks)
            elif kind == "footnote_block" and footnotes_at is not None:
                flush()
                blocks[footnotes_at:footnotes_at] = self.footnotes(node)
            elif kind == "paragraph" and (figure := self.figure(node)):
                flush()
                blocks.append(figure)
            elif kind == "paragraph" and blocks and not pending and (caption := _table_caption(node)):
                if blocks[-1]["type"] == "table":
                    blocks[-1]["value"].update(caption)
                else:
                    pending.append(self.paragraph(node))
            elif kind in {"paragraph", "bullet_list", "ordered_list"}:
                pending.append(self.paragraph(node) if kind == "paragraph" else self.list_html(node))
            else:
                flush()
                blocks.extend(self.block(node))
        flush()
        return blocks

    def block(self, node) -> list[dict]:
        kind = node.type
        if kind == "heading":
            return [self.heading(node)]
        if kind in {"fence", "code_block"}:
            return [self.fence(node)]
        if kind == "table":
            return [self.table(node)]
        if kind == "blockquote":
            return [self.blockquote(node)]
        if kind == "math_block":
            return [{"type": "math", "value": node.content.strip()}]
        if kind == "footnote_block":
            return self.footnotes(node)
        if kind == "hr":
            self.note(node, "a horizontal rule was left out (sections start with headings)")
            return []
        self.note(node, f"{kind.replace('_', ' ')} has no block here and was kept as text")
        return [{"type": "paragraph", "value": f"<p>{escape(self.source_lines(node))}</p>"}]

    def source_lines(self, node) -> str:
        lines = self.text.split("\n")
        start, end = node.map or (0, 0)
        return "\n".join(lines[start:end]).strip()

    def heading(self, node) -> dict:
        text = _plain(node.children[0])
        anchor = ""
        if match := _HEADING_ANCHOR.search(text):
            anchor, text = match.group(1), text[: match.start()]
        level = node.tag
        if level == "h1":
            self.note(node, "a level-1 heading became a section (h2): the title is the page's h1")
            level = "h2"
        elif level not in {"h2", "h3"}:
            self.note(node, f"a level-{level[1]} heading became a subsection (h3)")
            level = "h3"
        return {"type": "heading", "value": {"text": text[:120], "level": level, "anchor": anchor}}

    def fence(self, node) -> dict:
        info = (node.info or "").strip()
        if directive := _DIRECTIVE.match(info):
            return self.directive(node, directive.group(1), directive.group(2))
        language_word = info.split(maxsplit=1)[0].lower() if info else ""
        language = _LANGUAGE_ALIASES.get(language_word, language_word)
        if language not in _LANGUAGES:
            self.note(node, f"code language {_shown(language_word)} is not one we highlight: shown as plain text")
            language = "text"
        title = _FENCE_TITLE.search(info)
        filename = next((group for group in title.groups() if group is not None), "") if title else ""
        source = node.content[:-1] if node.content.endswith("\n") else node.content
        value = {"language": language, "filename": filename[:120], "source": source}
        if _FENCE_LINE_NUMBERS.search(info):
            value["show_line_numbers"] = True
        if highlight := _FENCE_HIGHLIGHT.search(info):
            value["highlight_lines"] = ", ".join((highlight.group(1) or highlight.group(2) or "").split())
        return {"type": "code", "value": value}

    def directive(self, node, name: str, argument: str) -> dict:
        options, body_lines = {}, []
        lines = node.content.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        in_options = True
        for line in lines:
            option = _DIRECTIVE_OPTION.match(line) if in_options else None
            if option:
                options[option.group(1)] = option.group(2) or ""
                continue
            if in_options and line == "" and not body_lines:
                in_options = False
                continue
            in_options = False
            body_lines.append(line)
        text = "\n".join(body_lines)
        if name == "chart":
            keys = ("title", "kind", "series", "x_title", "x_unit", "y_title", "y_unit", "summary")
            return {"type": "chart", "value": {**{key: options.get(key, "") for key in keys}, "data": text}}
        if name == "key-figure":
            value = {key: options.get(key, "") for key in ("value", "unit", "label")}
            return {"type": "key_figure", "value": value}
        if name == "cta":
            value = {"heading": options.get("heading", ""), "text": text, "label": options.get("label", "")}
            value["url"] = options.get("url", "")
            return {"type": "cta", "value": value}
        if name == "embed":
            return {
                "type": "embed",
                "value": {"video": argument or options.get("url", ""), "caption": options.get("caption", "")},
            }
        self.note(node, f"directive {{{cut(name)}}} is not one of ours: kept as a plain-text code listing")
        return {"type": "code", "value": {"language": "text", "filename": "", "source": node.content.rstrip("\n")}}

    def table(self, node) -> dict:
        rows = []
        for section in node.children:
            for row in section.children:
                rows.append([_plain(cell.children[0]) if cell.children else "" for cell in row.children])
        value = {"data": rows, "first_row_is_table_header": True, "first_col_is_header": False, "table_caption": ""}
        return {"type": "table", "value": value}

    def blockquote(self, node) -> dict:
        children = list(node.children)
        first = children[0] if children else None
        if first is not None and first.type == "paragraph":
            inline = first.children[0]
            lead = inline.children[0] if inline.children else None
            if lead is not None and lead.type == "text" and (alert := _ALERT.fullmatch(lead.content.strip())):
                return self.callout(node, alert.group(1).upper(), inline, children[1:])
        if any(child.type != "paragraph" for child in children):
            self.note(node, "a block quote with lists or other blocks became plain text in a quote")
        paragraphs = [self.plain_block(child) for child in children]
        attribution = ""
        if len(paragraphs) > 1 and paragraphs[-1].startswith(_ATTRIBUTION):
            attribution = paragraphs.pop()[2:].strip()
        return {"type": "quote", "value": {"quote": "\n\n".join(paragraphs), "attribution": attribution}}

    def callout(self, node, alert: str, first_inline, rest) -> dict:
        kind = _ALERT_KINDS.get(alert)
        if kind is None:
            self.note(node, f"alert [!{cut(alert)}] is not one we know: shown as a note")
            kind = "note"
        elif alert in {"IMPORTANT", "CAUTION"}:
            self.note(node, f"alert [!{alert}] shown as a {kind}")
        after = list(first_inline.children[1:])
        while after and (after[0].type == "softbreak" or (after[0].type == "text" and not after[0].content)):
            after.pop(0)
        while after and after[-1].type == "text" and not after[-1].content:
            after.pop()
        title, paragraphs = "", []
        if len(after) == 1 and after[0].type == "strong":
            title = _plain(after[0])
        elif after:
            paragraphs.append(f"<p>{self.inline_html(after)}</p>")
        for child in rest:
            if child.type == "paragraph":
                paragraphs.append(self.paragraph(child))
            elif child.type in {"bullet_list", "ordered_list"}:
                paragraphs.append(self.list_html(child))
            else:
                self.note(child, f"{child.type.replace('_', ' ')} in a callout was kept as text")
                paragraphs.append(f"<p>{escape(self.source_lines(child))}</p>")
        return {"type": "callout", "value": {"kind": kind, "title": title[:120], "text": "".join(paragraphs)}}

    def footnotes(self, node) -> list[dict]:
        """The footnotes block (``blog.blocks.FootnotesBlock``) from markdown-it's footnote block:
        the notes in the order the text first refers to them, as the block numbers them."""
        notes = []
        for footnote in node.children:
            label = self.footnote_label(footnote.meta)
            parts = [
                f"<p>{self.inline_html(child.children[0].children)}</p>"
                for child in footnote.children
                if child.type == "paragraph"
            ]
            for child in footnote.children:
                if child.type != "paragraph":
                    self.note(child, f"{child.type.replace('_', ' ')} in footnote {label} was left out")
            notes.append({"label": label, "text": "".join(parts)})
        return [{"type": "footnotes", "value": {"notes": notes}}]

    def footnote_label(self, meta: dict) -> str:
        """Our label for a Markdown footnote: its own when it fits ``blog.footnotes.FOOTNOTE_LABEL``,
        else its number."""
        label = str(meta.get("label") or "")
        return label if FOOTNOTE_LABEL.fullmatch(label) else str(meta.get("id", 0) + 1)

    def figure(self, node) -> dict | None:
        inline = node.children[0]
        parts = [child for child in inline.children if not (child.type == "text" and not child.content.strip())]
        if len(parts) != 1 or parts[0].type != "image":
            return None
        image_node = parts[0]
        alt = _plain(image_node)
        # markdown-it percent-encodes link targets (images/caf%C3%A9.png, my%20card.png): the file
        # is looked up, and named in notes, by its decoded name, as front matter's image: is.
        src = unquote(str(image_node.attrs.get("src") or ""))
        image = self.image_for(self.source, src, alt, self.note_for(node))
        if image is None:
            return {"type": "paragraph", "value": f"<p>{escape(self.source_lines(node))}</p>"}
        caption = str(image_node.attrs.get("title") or "")[:300]
        return {"type": "image", "value": {"image": image.pk, "alt_text": alt[:500], "caption": caption}}

    def note_for(self, node):
        return lambda message: self.note(node, message)

    def plain_block(self, node) -> str:
        if node.type == "paragraph":
            return _plain(node.children[0], softbreak="\n")
        return self.source_lines(node)

    def paragraph(self, node) -> str:
        return f"<p>{self.inline_html(node.children[0].children)}</p>"

    def list_html(self, node) -> str:
        tag = "ul" if node.type == "bullet_list" else "ol"
        if tag == "ol" and node.attrs.get("start") not in (None, 1, "1"):
            self.note(node, "a numbered list's start number was left out (lists start at 1)")
        items = []
        for item in node.children:
            parts = []
            for child in item.children:
                if child.type == "paragraph":
                    parts.append(self.inline_html(child.children[0].children))
                elif child.type in {"bullet_list", "ordered_list"}:
                    parts.append(self.list_html(child))
                else:
                    self.note(child, f"{child.type.replace('_', ' ')} inside a list item was kept as text")
                    parts.append(escape(self.source_lines(child)))
            joined = ""
            for part in parts:
                nested = part.startswith(("<ul>", "<ol>"))
                joined += part if nested or not joined else f" {part}"
            items.append(f"<li>{joined}</li>")
        return f"<{tag}>{''.join(items)}</{tag}>"

    def inline_html(self, nodes) -> str:
        """Wagtail's rich text HTML for inline nodes (``<b>``, ``<i>``, ``<code>``, links)."""
        runs: list[tuple[str, str]] = []  # ("html", markup) / ("text", literal) / ("math", latex)
        self._inline_runs(nodes, runs)
        return _join_runs(runs)

    def _inline_runs(self, nodes, runs):
        for node in nodes:
            kind = node.type
            if kind == "text":
                runs.append(("text", node.content))
            elif kind == "text_special":
                runs.append(("dollar", "\\$") if node.markup == "\\$" else ("text", node.content))
            elif kind == "softbreak":
                runs.append(("text", " "))
            elif kind == "hardbreak":
                runs.append(("html", "<br/>"))
            elif kind == "code_inline":
                runs.append(("html", f"<code>{escape(node.content)}</code>"))
            elif kind == "math_inline":
                runs.append(("math", node.content))
            elif kind in {"em", "strong"}:
                tag = "i" if kind == "em" else "b"
                runs.append(("html", f"<{tag}>"))
                self._inline_runs(node.children, runs)
                runs.append(("html", f"</{tag}>"))
            elif kind == "link":
                runs.append(("html", self.link_open(node)))
                self._inline_runs(node.children, runs)
                runs.append(("html", "</a>"))
            elif kind == "image":
                self.note(node, "an image inside text was kept as its alt text (put images in their own paragraph)")
                runs.append(("text", _plain(node)))
            elif kind == "footnote_ref":
                runs.append(("html", f"[^{self.footnote_label(node.meta)}]"))
            elif kind == "footnote_anchor":
                continue  # the back link; the footnotes block draws its own
            elif kind == "html_inline":
                self.note(node, f"inline HTML {cut(repr(node.content))} was kept as text")
                runs.append(("text", node.content))
            else:
                self.note(node, f"{kind.replace('_', ' ')} was kept as text")
                runs.append(("text", node.content))

    def link_open(self, node) -> str:
        href = str(node.attrs.get("href") or "")
        page = self.resolve_link(self.source, href)
        if page is not None:
            self.links.add(href)
            return f'<a linktype="page" id="{page.pk}">'
        if _is_markdown_link(href):
            self.note(node, f"link to {cut(href)} kept as a plain link: no article with that slug")
        return f'<a href="{html_escape(href)}">'


def _join_runs(runs) -> str:
    """Rich text HTML for inline runs. A literal ``$`` is written ``\\$`` only in a text run that
    would otherwise read as inline math (``blog.mathml.INLINE_MATH``), or everywhere if the
    joined runs would read differently from the math runs given."""
    expected = [text for kind, text in runs if kind == "math"]

    def write(escape_all: bool) -> tuple[str, str]:
        html, plain = [], []
        for kind, text in runs:
            if kind == "text":
                literal = text.replace("$", "\\$") if escape_all or needs_dollar_escape(text) else text
                html.append(escape(literal))
                plain.append(literal)
            elif kind == "math":
                html.append(escape(f"${text}$"))
                plain.append(f"${text}$")
            elif kind == "dollar":
                html.append(text)
                plain.append(text)
            else:
                html.append(text)
                plain.append("\x00")
        return "".join(html), "".join(plain)

    html, plain = write(escape_all=False)
    if [match.group(1) for match in INLINE_MATH.finditer(plain)] != expected:
        html, _plain_text = write(escape_all=True)
    return html


def _plain(node, softbreak: str = " ") -> str:
    """The text of an inline node and its children (code and math as written)."""
    if node.type in {"text", "text_special"}:
        return node.content
    if node.type in {"softbreak", "hardbreak"}:
        return softbreak
    if node.type == "code_inline":
        return node.content
    if node.type == "math_inline":
        return f"${node.content}$"
    return "".join(_plain(child, softbreak) for child in node.children)


def _table_caption(node) -> dict | None:
    text = _plain(node.children[0])
    match = _TABLE_CAPTION.match(text)
    if not match:
        return None
    classes = set(re.findall(r"\{\.([a-z-]+)\}", match.group(2)))
    return {
        "table_caption": match.group(1),
        "first_col_is_header": "first-column-header" in classes,
        "first_row_is_table_header": "no-header-row" not in classes,
    }


def _is_markdown_link(href: str) -> bool:
    return "://" not in href and not href.startswith(("mailto:", "#", "/")) and href.split("#")[0].endswith(".md")


def check_title(title: str) -> None:
    """Raise MarkdownImportError for a non-empty title the editor would refuse: one that shows
    nothing (``home.text_cleaning.has_visible_character``: only spaces, control or zero-width
    characters), or one over ``TITLE_MAX_LENGTH`` characters."""
    if not has_visible_character(title):
        raise MarkdownImportError("the title shows nothing: it has only spaces, control or zero-width characters")
    too_long("title", title, TITLE_MAX_LENGTH)


def too_long(name: str, text: str, limit: int) -> None:
    """Raise MarkdownImportError if ``text`` has more than ``limit`` characters: the editor's limit
    on that field (``blog.forms.FIELD_LIMITS``), so an imported draft saves in the editor as it is."""
    if len(text) > limit:
        raise MarkdownImportError(f"the {name} is longer than {limit} characters (it has {len(text)}); shorten it")


def _text_field(meta: dict, key: str, max_length: int | None) -> str:
    """Front matter ``key`` as text ("" if absent), through ``checked_text``; a number reads as its
    digits. Raises MarkdownImportError for any other type (a list, a mapping, true/false), checked
    before the value is measured or turned into text (a list may be a nest of aliases), for a
    number too long to be a title, text over ``max_length`` characters, or a NUL."""
    value = meta.get(key)
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise MarkdownImportError(f"'{key}' must be text (write it in quotes)")
    if isinstance(value, int) and value.bit_length() > 64:
        raise MarkdownImportError(f"'{key}' is a number too long to be text (write it in quotes)")
    value = str(value).strip()
    if max_length and len(value) > max_length:
        raise MarkdownImportError(f"'{key}' is longer than {max_length} characters")
    return checked_text(key, value)


def _date(value) -> datetime:
    """A front matter ``date`` (YAML date or datetime, or ISO 8601 text) as an aware datetime."""
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        parsed = datetime.combine(value, time(9, 0))
    elif isinstance(value, str):
        try:
            parsed = parse_datetime(value.strip()) or (
                datetime.combine(day, time(9, 0)) if (day := parse_date(value.strip())) else None
            )
        except ValueError:
            parsed = None
        if parsed is None:
            raise MarkdownImportError(
                f"date {_shown(value)} is not a date; write it as 2026-11-24 or 2026-11-24T09:00:00Z"
            )
    else:
        raise MarkdownImportError(f"date ({_shown(value)}) is not a date; write it as 2026-11-24")
    return parsed if timezone.is_aware(parsed) else timezone.make_aware(parsed, timezone.get_default_timezone())


def _first_paragraph_text(body: list[dict]) -> str:
    from bs4 import BeautifulSoup

    for block in body:
        if block["type"] == "paragraph":
            return BeautifulSoup(block["value"], "html.parser").get_text(" ", strip=True)
    return ""


# Import ------------------------------------------------------------------------------------


class _DryRunRollback(Exception):
    pass


def import_sources(
    sources: list[MarkdownSource],
    *,
    parent: BlogIndexPage,
    topic: TopicPage | None = None,
    user=None,
    update: bool = False,
    dry_run: bool = False,
) -> list[FileReport]:
    """Import ``sources`` as draft articles under ``parent``; one FileReport per source.

    Each file is imported in its own transaction: a file that fails (MarkdownImportError, or a
    body block or page field that does not validate) writes nothing and is reported as failed;
    the others go ahead. An article whose slug exists under ``parent`` is skipped, or with
    ``update`` given a new draft revision (never published; an unchanged one is reported as
    such). ``dry_run`` validates and reports without writing anything (images included).
    Files that link to each other (``other.md``) are imported targets first. ``topic`` (one of
    ``parent``'s topics) is added to every article. A source with a ``skip_reason`` (a page or
    attachment of a WordPress or Ghost export, ``blog.platform_import``) is reported as skipped;
    a source with a ``reader_class`` is read by it instead of ``ArticleReader``.
    """
    batch_slugs = _batch_slugs(sources)
    reports, seen_slugs, relink = [], {}, []
    # What a dry run would have stored by now, as in the real run (``_library_image``).
    dry_run_images = set()
    for source in _link_order(sources, batch_slugs):
        report = FileReport(name=source.name)
        reports.append(report)
        if skip_reason := getattr(source, "skip_reason", ""):  # e.g. a WordPress page or attachment
            report.action = "skipped"
            report.notes.append(skip_reason)
            continue
        try:
            with transaction.atomic():
                if _import_one(
                    source, report, parent, topic, user, update, dry_run, batch_slugs, seen_slugs, dry_run_images
                ):
                    relink.append((source, report))
                if dry_run:
                    raise _DryRunRollback
        except _DryRunRollback:
            report.action = {"created": "would create", "updated": "would update"}.get(report.action, report.action)
        except MarkdownImportError as error:
            report.action, report.page_id = "failed", None
            report.notes.insert(0, str(error))
        except ValidationError as error:
            report.action, report.page_id = "failed", None
            report.notes.insert(0, "; ".join(_validation_messages(error)))
    for source, report in relink:
        # Files that link to each other in a cycle: the links to files imported after this one
        # become page links in a second draft revision, now that those pages exist.
        if report.action in {"created", "updated"}:
            with transaction.atomic():
                second = FileReport(name=source.name)
                _import_one(source, second, parent, topic, user, True, dry_run, batch_slugs, {}, dry_run_images)
            report.notes = [note for note in report.notes if "kept as a plain link" not in note]
            report.notes.append("links to files imported after this one were set in a second draft revision")
    order = {source.name: index for index, source in enumerate(sources)}
    reports.sort(key=lambda report: order[report.name])
    for report in reports:  # names and notes quote the files; a terminal or page shows them
        report.name = remove_invalid_characters(report.name)
        report.notes = [remove_invalid_characters(note) for note in report.notes]
    return reports


def _validation_messages(error: ValidationError) -> list[str]:
    if hasattr(error, "error_dict"):
        return [
            f"{name}: {' '.join(_validation_messages(ValidationError(errors)))}"
            for name, errors in error.error_dict.items()
        ]
    return [str(message) for message in error.messages]


def _batch_slugs(sources) -> dict[str, str]:
    """Markdown source name -> slug, read from front matter or title without importing (for
    links). A file whose front matter cannot be read is left out (it fails when imported); so are
    an export's posts (no Markdown links lead to them)."""
    slugs = {}
    for source in sources:
        if not isinstance(source, MarkdownSource):
            continue
        try:
            meta, _body = source.front_matter
            title = _text_field(meta, "title", 255) or PurePosixPath(source.name).stem
            slugs[source.name] = _text_field(meta, "slug", 255) or slugify(title, allow_unicode=True)
        except MarkdownImportError:
            continue
    return slugs


def _link_order(sources, batch_slugs) -> list[MarkdownSource]:
    """``sources`` with each file after the files it links to, where the links allow (a cycle
    keeps file order)."""
    by_name = {source.name: source for source in sources}
    ordered, visiting, done = [], set(), set()

    def visit(source):
        if source.name in done or source.name in visiting:
            return
        visiting.add(source.name)
        for href in re.findall(r"\]\(([^)\s]+\.md)(?:#[^)\s]*)?(?:\s[^)]*)?\)", source.text):
            target = posixpath.normpath(posixpath.join(posixpath.dirname(source.name), unquote(href)))
            if target in by_name:
                visit(by_name[target])
        visiting.discard(source.name)
        done.add(source.name)
        ordered.append(source)

    for source in sources:
        visit(source)
    return ordered


def read_article(
    source: MarkdownSource, *, batch_slugs=None, user=None, dry_run=False, dry_run_images=None
) -> "ParsedArticle":
    """Read ``source`` into page fields and a body of raw blocks (no page is written; images
    enter the library unless ``dry_run``, which adds the SHA-1 of each image it would store to
    ``dry_run_images``, a set shared by the files of one import). Links to ``.md`` files become
    page links to the article with that file's slug (``batch_slugs``: source name -> slug of the
    files imported together), or else the file name's slug. Raises MarkdownImportError."""
    batch_slugs = batch_slugs or {}
    waiting_for_batch = []

    def resolve_link(from_source, href):
        if not _is_markdown_link(href):
            return None
        path = unquote(href.split("#")[0])  # markdown-it percent-encodes link targets, as for images
        target = posixpath.normpath(posixpath.join(posixpath.dirname(from_source.name), path))
        slug = batch_slugs.get(target) or PurePosixPath(path).stem
        page = ArticlePage.objects.filter(slug=slug).first()
        if page is None and target in batch_slugs:
            waiting_for_batch.append(href)
        return page

    def image_for(*args):
        return _library_image(*args, user=user, dry_run=dry_run, dry_run_images=dry_run_images)

    # A post of a WordPress or Ghost export brings its own reader (blog.platform_import).
    reader_class = getattr(source, "reader_class", ArticleReader)
    parsed = reader_class(source, resolve_link=resolve_link, image_for=image_for).read()
    if parsed.card_image:
        parsed.card_image = image_for(source, parsed.card_image[0], parsed.card_image[1], parsed.notes.append)
    parsed.links_waiting = bool(waiting_for_batch)
    return parsed


def _import_one(source, report, parent, topic, user, update, dry_run, batch_slugs, seen_slugs, dry_run_images) -> bool:
    """Import one file into ``report``; True if some of its links wait for files imported later."""
    parsed = read_article(source, batch_slugs=batch_slugs, user=user, dry_run=dry_run, dry_run_images=dry_run_images)
    report.slug = parsed.slug
    report.notes.extend(parsed.notes)
    if parsed.slug in seen_slugs:
        raise MarkdownImportError(f"slug '{parsed.slug}' is also the slug of {seen_slugs[parsed.slug]} in this import")
    seen_slugs[parsed.slug] = source.name
    if problem := reserved_slug_problem(parsed.slug, parent):  # e.g. 'feed': the blog's /blog/feed/rss/
        raise MarkdownImportError(problem)
    body = _validated_body(parsed.body, report)
    card_image = parsed.card_image if parsed.card_image is not DRY_RUN_IMAGE else None
    existing = ArticlePage.objects.child_of(parent).filter(slug=parsed.slug).first()
    if existing is not None and not update:
        report.action, report.page_id = "skipped", existing.pk
        report.notes.insert(0, "an article with this slug exists (import with --update for a new draft revision)")
        return False
    page = existing.get_latest_revision_as_object() if existing else ArticlePage(live=False)
    before = _content(page) if existing else None
    for name, value in parsed.fields.items():
        if name == "date_published" and existing and page.date_published and page.live:
            continue  # a live article keeps the date readers saw
        setattr(page, name, value)
    if page.date_published and not EARLIEST_SHOWABLE <= page.date_published < LATEST_SHOWABLE:
        raise MarkdownImportError(
            f"date {page.date_published.date().isoformat()}: a time at either end of the calendar cannot be shown "
            "in every time zone; give a date between 0001-01-02 and 9999-12-29"
        )
    if card_image is not None:
        page.image = card_image
    page.body = body
    topics = parsed.topics + ([topic] if topic is not None and topic not in parsed.topics else [])
    if topics or not existing:
        page.topics = topics
    if parsed.authors or not existing:
        page.authors = parsed.authors
    if existing is not None:
        if _content(page) == before:
            report.action, report.page_id = "unchanged", existing.pk
            return False
        _clean_draft(page)
        page.save_revision(user=user, log_action=True, clean=False)
        report.action, report.page_id = "updated", existing.pk
        return parsed.links_waiting
    page.owner = user
    parent.add_child(instance=page)  # a draft: Wagtail checks the title and slug
    _clean_draft(page)
    page.save_revision(user=user, log_action=True, clean=False)
    report.action, report.page_id = "created", page.pk
    return parsed.links_waiting


def _clean_draft(page: ArticlePage) -> None:
    """Validate ``page``'s fields as a draft: a blank field is allowed (drafts may be incomplete,
    as in Wagtail's editor; the publish gates ask for it), anything given must be valid."""
    blank = [field.name for field in page._meta.concrete_fields if getattr(page, field.attname) in (None, "")]
    page.full_clean(exclude=blank)


def _content(page: ArticlePage) -> tuple:
    """What an import sets on a page, as comparable values (to tell an unchanged file)."""
    fields = ("title", "slug", "summary", "seo_title", "search_description", "image_alt", "image_id", "date_published")
    return (
        tuple(getattr(page, name) for name in fields),
        sorted(topic.pk for topic in page.topics.all()),
        sorted(author.pk for author in page.authors.all()),
        comparable_body(page.body),
    )


def comparable_body(body) -> list:
    """A StreamField value as ``[(type, value)]`` of stored data, without block and list item ids and with
    rich text ``data-block-key`` attributes removed: two bodies equal here render the same. Both
    sides pass through the body block, so a field added since a body was stored reads as its
    default on either side."""
    raw = body if isinstance(body, list) else body.get_prep_value()
    # Each child through its block (a StreamValue hands back blocks it never read as stored).
    return [
        (child.block_type, _without_block_keys(child.block.get_prep_value(child.value)))
        for child in ArticleBodyBlock().to_python(raw)
    ]


def _without_block_keys(value):
    if isinstance(value, dict) and "table_header_choice" in value:
        # The table editor's own setting; the first_row/first_col flags say the same.
        value = {key: item for key, item in value.items() if key != "table_header_choice"}
    if value is None:
        return ""  # an optional text block stored as null renders as an empty one
    if isinstance(value, str):
        return re.sub(r' data-block-key="[^"]*"', "", value)
    if isinstance(value, dict) and set(value) == {"type", "value", "id"} and value["type"] == "item":
        return _without_block_keys(value["value"])  # a ListBlock item: its id is not content
    if isinstance(value, dict):
        return {key: _without_block_keys(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_without_block_keys(item) for item in value]
    return value


def _validated_body(raw: list[dict], report: FileReport) -> list[dict]:
    """``raw`` blocks, with ``checked_text`` applied to their text, that pass their block's
    validation; one that does not becomes a paragraph of its text, with the reason reported.
    Raises MarkdownImportError for a NUL."""
    # Checked again once parsed: a character reference (&#1; in HTML) is a control character now.
    raw = _checked_values("body", raw)
    stream_block = ArticleBodyBlock()
    kept = []
    for index, block in enumerate(raw, start=1):
        child = stream_block.child_blocks[block["type"]]
        if block["type"] == "image" and block["value"]["image"] is None:
            kept.append(block)  # a dry run's new image: checked by the image form, not stored
            continue
        try:
            child.clean(child.to_python(block["value"]))
        except ValidationError as error:
            messages = (
                "; ".join(_validation_messages(error)) if not hasattr(error, "block_errors") else _block_errors(error)
            )
            report.notes.append(f"block {index} ({block['type']}) does not validate and was kept as text: {messages}")
            kept.append({"type": "paragraph", "value": f"<p>{escape(_block_text(block['value']))}</p>"})
            continue
        kept.append(block)
    return kept


def _block_errors(error) -> str:
    parts = [f"{name}: {' '.join(child.messages)}" for name, child in (error.block_errors or {}).items()]
    parts += [" ".join(child.messages) for child in getattr(error, "non_block_errors", None) or []]
    return "; ".join(parts) or str(error)


def _block_text(value) -> str:
    if isinstance(value, dict):
        return " ".join(_block_text(item) for item in value.values() if item)
    if isinstance(value, list):
        return " ".join(_block_text(item) for item in value)
    return str(value)


def _library_image(
    source: MarkdownSource, reference: str, alt: str, note, *, user=None, dry_run=False, dry_run_images=None
):
    """The library image for ``reference`` (a path beside ``source``): an image with the same
    file (SHA-1, Wagtail's ``file_hash``) is reused, otherwise the file enters the library
    through Wagtail's image form (its format, size and pixel checks) with ``alt`` as its
    description. None, with a note, if the file is missing, remote or refused; DRY_RUN_IMAGE for
    a new image in a dry run (its checks ran; nothing is stored), and for a file that the dry
    run would already have stored (its SHA-1 in ``dry_run_images``, which it adds to), which the
    real run reuses: a featured image with no alt text that the body showed with one."""
    shown = shown_name(reference)
    if "://" in reference or reference.startswith("data:"):
        note(f"image {shown} is not in the import (no network): kept as text")
        return None
    if PurePosixPath(reference).suffix.lower() not in IMAGE_SUFFIXES:
        note(f"image {shown} is not a {'/'.join(sorted(s[1:] for s in IMAGE_SUFFIXES))} file: kept as text")
        return None
    max_bytes = settings.WAGTAILIMAGES_MAX_UPLOAD_SIZE
    try:
        data = source.read_file(reference, limit=max_bytes)
    except MarkdownImportError as error:  # there, but encrypted or damaged: the article goes ahead
        note(f"image {error}: kept as text")
        return None
    if data is None:
        note(
            f"image {shown} is not beside the file in the import "
            f"(or is larger than {filesizeformat(max_bytes)}): kept as text"
        )
        return None
    image_model = get_image_model()
    digest = hash_filelike(io.BytesIO(data))
    # Images uploaded before Wagtail stored hashes (or made by scripts) have none: hash them once.
    for unhashed in image_model.objects.filter(file_hash=""):
        unhashed.get_file_hash()
    if existing := image_model.objects.filter(file_hash=digest).first():
        return existing
    if dry_run and dry_run_images is not None and digest in dry_run_images:
        return DRY_RUN_IMAGE
    form_class = get_image_form(image_model)
    name = PurePosixPath(reference).name
    alt = remove_invalid_characters(alt)  # as the body's alt text is stored (checked_text)
    title = (alt or PurePosixPath(reference).stem)[:255]
    form = form_class(
        data={"title": title, "description": alt[:500], "collection": _root_collection_id()},
        files={"file": SimpleUploadedFile(name, data)},
        user=user,
    )
    if not form.is_valid():
        messages = "; ".join(" ".join(errors) for errors in form.errors.values())
        note(f"image {shown} was refused: {messages}")
        return None
    if dry_run:
        if dry_run_images is not None:
            dry_run_images.add(digest)
        return DRY_RUN_IMAGE
    image = form.save()
    image.get_file_hash()  # stored, so the next import of the same file finds this image
    return image


def _root_collection_id() -> int:
    from wagtail.models import Collection

    return Collection.get_first_root_node().pk
