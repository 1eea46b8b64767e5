"""A last check on stored rich text, so script never reaches readers even if the editor is bypassed.

Wagtail's Draftail editor already drops ``javascript:`` links and any element or attribute that
is not an enabled feature when an editor saves (``wagtail.whitelist.check_url``). But Wagtail
renders stored rich text as it finds it, so HTML that arrives another way (a fixture, an import
script, a data migration, a direct database edit) would reach readers unchanged.
``remove_active_content`` cleans such HTML when it is loaded: ``SafeRichTextBlock`` applies it
to every rich text block of the article body.
"""

from wagtail import blocks
from wagtail.rich_text import RichText
from wagtail.whitelist import check_url

from bs4 import BeautifulSoup

from .links import is_other_host_path

# Elements that run code or pull in other documents; never part of our rich text features.
# (Wagtail's own <embed embedtype="..."> placeholders are rewritten by Wagtail and are kept.)
ACTIVE_ELEMENTS = {
    *("script", "style", "iframe", "frame", "frameset", "object", "applet"),
    *("form", "base", "meta", "link", "svg", "math"),
}
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "poster", "background"}


def remove_active_content(html: str, keep: frozenset[str] = frozenset()) -> str:
    """Return ``html`` without script: active elements removed, ``on*`` event attributes removed,
    and URL attributes with a scheme other than http(s), ftp, mailto or tel removed (Wagtail's
    ``check_url``, which also sees through entities and control characters, e.g. ``jav&#9;ascript:``),
    and scheme-relative URLs (``//host`` in any spelling: ``home.links.is_other_host_path``).

    Wagtail's link and embed placeholders (``<a linktype=...>``, ``<embed embedtype=...>``) are
    kept, and so are the elements named in ``keep`` (e.g. ``{"math"}`` for HTML whose MathML our
    own renderer made from an allow-list, ``blog.mathml``), with their attributes still checked.
    Unchanged input is returned as the same string, so clean rich text is not reformatted.
    """
    if not html or "<" not in html:
        return html
    soup = BeautifulSoup(html, "html.parser")
    changed = False
    for tag in soup.find_all(True):
        if tag.decomposed:  # inside an element removed before it (<svg><g>, <form><input>)
            continue
        if (tag.name in ACTIVE_ELEMENTS and tag.name not in keep) or (
            tag.name == "embed" and "embedtype" not in tag.attrs
        ):
            tag.decompose()
            changed = True
            continue
        for name in list(tag.attrs):
            value = tag.attrs[name]
            value = " ".join(value) if isinstance(value, list) else str(value)
            if name.startswith("on") or (
                name in URL_ATTRIBUTES and (check_url(value) is None or is_other_host_path(value))
            ):
                del tag.attrs[name]
                changed = True
    return str(soup) if changed else html


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
        return RichText(remove_active_content(value.source)) if value.source else value
