"""A last check on stored rich text, so script never reaches readers even if the editor is bypassed.

Wagtail's Draftail editor already drops ``javascript:`` links and any element or attribute that
is not an enabled feature when an editor saves (``wagtail.whitelist.check_url``). But Wagtail
renders stored rich text as it finds it, so HTML that arrives another way (a fixture, an import
script, a data migration, a direct database edit) would reach readers unchanged.
``remove_active_content`` cleans such HTML when it is loaded: ``SafeRichTextBlock`` applies it
to every rich text block of the article body.

The cleaning is nh3's (the Python binding of the Rust sanitiser ammonia): an allow-list, so
an element or attribute nobody listed here is dropped, whatever new trick it is.
``allow_list`` builds such a cleaner with the site's URL rules for other HTML (the feeds use it
for the rendered article body).
"""

import re
from collections.abc import Iterable, Mapping

from wagtail import blocks
from wagtail.rich_text import RichText
from wagtail.whitelist import ALLOWED_URL_SCHEMES, check_url

import nh3

from .links import is_other_host_path

# Wagtail's stored rich-text format for its built-in features (Wagtail docs, "Rich text
# internals" and "Rich text features"): Draftail writes <p>, <h2>..., lists, <b>, <i>, <code>,
# <sup>, <sub>, <s>, <kbd>, <blockquote>, <hr/>, <br/> and links, with a data-block-key on each
# block; page and document links are <a linktype="page" id="..">, images and media embeds are
# <embed embedtype="image" id=".." format=".." alt=".."/> and <embed embedtype="media" url=".."/>.
_BLOCK_ELEMENTS = ("p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote")
RICH_TEXT_TAGS = frozenset({*_BLOCK_ELEMENTS, "b", "i", "code", "sup", "sub", "s", "kbd", "hr", "br", "a", "embed"})
RICH_TEXT_ATTRIBUTES: Mapping[str, frozenset[str]] = {
    **{name: frozenset({"data-block-key"}) for name in _BLOCK_ELEMENTS},
    "a": frozenset({"href", "linktype", "id"}),
    "embed": frozenset({"embedtype", "id", "format", "alt", "url"}),
}

# Removed with everything inside them (the others not allowed lose their tags, keep their text).
_CLEAN_CONTENT_TAGS = frozenset(
    {"script", "style", "iframe", "object", "applet", "noscript", "noembed", "noframes", "template", "xmp"}
)


def _same_site_or_dropped(url: str) -> str | None:
    """nh3's hook for relative URLs: site paths and fragments stay, ``//host`` in any
    spelling (another host behind what looks like a path, ``home.links``) is dropped."""
    return None if is_other_host_path(url) else url


def allow_list(
    tags: Iterable[str],
    attributes: Mapping[str, Iterable[str]],
    *,
    relative_url=_same_site_or_dropped,
    attribute_filter=None,
) -> nh3.Cleaner:
    """An nh3 cleaner keeping only ``tags`` and, per tag, the ``attributes`` named
    (``{"a": {"href"}, "*": {"class"}}``), with the site's URL rules on ``href`` and ``src``:
    absolute URLs only in Wagtail's schemes (``wagtail.whitelist.ALLOWED_URL_SCHEMES``: http(s),
    ftp, mailto, tel; so no ``javascript:`` or ``data:``, in any spelling nh3's URL parser
    reads as one), relative URLs through ``relative_url(url) -> url or None`` (default: keep
    site paths, drop ``//host``); ``attribute_filter(tag, attribute, value) -> value or None``
    rewrites or drops any kept attribute (nh3's hook). Scripts, styles, frames and objects go with their content;
    comments go; no ``rel`` is added to links. Call ``.clean(html) -> str``."""
    tags = frozenset(tags)
    return nh3.Cleaner(
        tags=set(tags),
        clean_content_tags=set(_CLEAN_CONTENT_TAGS - tags),
        # "*" is always given: ammonia's default allows lang and title on every element.
        attributes={"*": set(), **{name: set(values) for name, values in attributes.items()}},
        url_schemes=set(ALLOWED_URL_SCHEMES),
        url_relative=relative_url,
        attribute_filter=attribute_filter,
        link_rel=None,
        strip_comments=True,
    )


def _embed_url(tag: str, attribute: str, value: str) -> str | None:
    """nh3 checks URLs in ``href`` and ``src`` only; a media embed's ``url`` (the address
    Wagtail asks the provider about) gets the same rule: http(s) and the like, no ``//host``."""
    if attribute == "url" and (check_url(value) is None or is_other_host_path(value)):
        return None
    return value


_RICH_TEXT = allow_list(RICH_TEXT_TAGS, RICH_TEXT_ATTRIBUTES, attribute_filter=_embed_url)

# nh3 writes HTML5 (<br>, <embed ...>, attribute values always in double quotes with < > " &
# escaped); Wagtail's stored format closes void elements (<br/>), and its embed rewriter only
# finds an <embed .../> (wagtail.rich_text.rewriters.FIND_EMBED_TAG).
_EMBED_WITHOUT_TYPE = re.compile(r"<embed(?![^>]*\sembedtype=)[^>]*>")
_VOID_ELEMENT = re.compile(r"<(br|hr|embed)((?:\s[^>]*)?)>")


_LONE_SURROGATES = re.compile("[\ud800-\udfff]")


def _as_stored_rich_text(html: str) -> str:
    html = _EMBED_WITHOUT_TYPE.sub("", html)  # only Wagtail's own embeds have a meaning here
    return _VOID_ELEMENT.sub(r"<\1\2/>", html)


def remove_active_content(html: str) -> str:
    """Return stored rich text ``html`` (str) with only what Wagtail's rich-text format holds
    (``RICH_TEXT_TAGS`` with ``RICH_TEXT_ATTRIBUTES``): any other element loses its tags (its
    text stays; script, style, frames and objects go whole, and so does MathML or SVG), any other
    attribute (``on*``, ``style``, ``class``) goes, and so does a URL that ``allow_list`` refuses.

    Wagtail's page and document links (``<a linktype="page" id="..">``) and image and media
    embeds (``<embed embedtype="image" .../>``) are kept; an ``<embed>`` without ``embedtype``
    is removed. Input that is already clean comes back as the same string, so stored rich text
    is not reformatted.
    """
    if not html or "<" not in html:
        return html
    # nh3 takes UTF-8, which a lone surrogate (an escaped "\ud800" in a JSON post) cannot be; it
    # is never text, and every form removes it anyway (home.text_cleaning), so it goes here too.
    html = _LONE_SURROGATES.sub("", html)
    cleaned = _as_stored_rich_text(_RICH_TEXT.clean(html))
    return html if cleaned == html else cleaned


class SafeRichTextBlock(blocks.RichTextBlock):
    """A RichTextBlock whose stored HTML passes through ``remove_active_content`` when loaded.

    Stored data is the same as RichTextBlock's, so migrations record it as one (no migration).
    """

    def deconstruct(self):
        _path, args, kwargs = super().deconstruct()
        return "wagtail.blocks.RichTextBlock", args, kwargs

    def to_python(self, value):
        if isinstance(value, str):
            value = remove_active_content(value)
        return super().to_python(value)

    def normalize(self, value):
        value = super().normalize(value)
        # A NUL is a form error (Django's ProhibitNullCharactersValidator on the block's field);
        # the sanitiser would drop it first, so such a post is left for that check, which refuses it.
        if not value.source or "\x00" in value.source:
            return value
        return RichText(remove_active_content(value.source))
