"""Rich text links that lead readers only where they can go.

Wagtail stores a rich text link to a page as ``<a linktype="page" id="...">`` and to a document as
``<a linktype="document" id="...">``, and its link handlers turn them into ``<a href>`` when the
text is rendered: on the page, in feeds, in search excerpts. Wagtail's page handler writes the
page's URL whatever the page's state, so a link to an unpublished, expired or private page leads
into a 404 or a login, and one to a page moved out of every site gets ``href="None"`` (the page
has no URL). ``ReaderPageLinkHandler`` replaces it (``register_rich_text_features`` in
``home/wagtail_hooks.py``): a page a reader cannot open is rendered as ``<a>`` without ``href``,
its text stays and nothing is a link, as Wagtail already does for deleted pages and documents.
Stored text is not changed, so the link works again once the page is republished, and editors
can save and publish the linking page meanwhile. ``pages_with_unavailable_links`` finds the pages
whose links are affected, for the admin report (``home.link_report``), from their stored text.
"""

import re

from django.db.models import TextField
from django.db.models.functions import Cast
from django.utils import timezone
from django.utils.html import escape

from wagtail.documents import get_document_model
from wagtail.fields import RichTextField, StreamField
from wagtail.models import Page, get_page_models
from wagtail.rich_text.pages import PageLinkHandler

from .public_pages import restricted_paths


def is_open_to_readers(page, now=None) -> bool:
    """True when a reader following a link to ``page`` (a Page) would see it: live, not past its
    expiry time, under no view restriction (password, login, groups; its own or an ancestor's),
    and inside a site (it has a URL)."""
    now = now or timezone.now()
    if not page.live or (page.expire_at and page.expire_at <= now):
        return False
    if any(page.path.startswith(path) for path in restricted_paths()):
        return False
    return page.localized.url is not None


class ReaderPageLinkHandler(PageLinkHandler):
    """Wagtail's page link handler, writing ``<a>`` (no ``href``) for a page that is deleted or not
    open to readers (``is_open_to_readers``), instead of a link into a 404, a login or "None"."""

    @classmethod
    def expand_db_attributes_many(cls, attrs_list: list[dict]) -> list[str]:
        now = timezone.now()
        return [
            f'<a href="{escape(page.localized.url)}">' if page and is_open_to_readers(page, now) else "<a>"
            for page in cls.get_many(attrs_list)
        ]


# A stored rich text link as Wagtail writes it, e.g. <a linktype="page" id="3">, inside a
# StreamField's JSON (quotes escaped as \") or a RichTextField's HTML; attributes in any order.
_LINK_TAG = re.compile(r"<a\s[^>]*linktype=[^>]*>")
_LINK_TYPE = re.compile(r'linktype="(page|document)"')
_LINK_ID = re.compile(r'\bid="([^"]*)"')


def stored_links(text: str) -> set[tuple[str, str]]:
    """``{(link type, id)}`` of the page and document links in ``text`` (stored rich text, or a
    StreamField's stored JSON)."""
    links = set()
    for tag in _LINK_TAG.findall(text.replace('\\"', '"')):
        link_type, link_id = _LINK_TYPE.search(tag), _LINK_ID.search(tag)
        if link_type and link_id:
            links.add((link_type.group(1), link_id.group(1)))
    return links


def _page_links() -> dict[int, set[tuple[str, str]]]:
    """``{page pk: stored links}`` for every page whose StreamField or RichTextField holds a page
    or document link: one query per page type that has such fields, on the stored text."""
    found = {}
    for model in get_page_models():
        fields = [f.name for f in model._meta.local_fields if isinstance(f, (StreamField, RichTextField))]
        for name in fields:
            rows = (
                model.objects.annotate(stored=Cast(name, TextField()))
                .filter(stored__contains="linktype")
                .values_list("pk", "stored")
            )
            for pk, stored in rows:
                links = stored_links(stored or "")
                if links:
                    found.setdefault(pk, set()).update(links)
    return found


def pages_with_unavailable_links():
    """A queryset of the pages whose current content links to something readers cannot open: a
    page that is deleted or not ``is_open_to_readers``, or a deleted document. Reads the stored
    text, because Wagtail's reference index forgets references to deleted objects."""
    links = _page_links()
    page_ids = {link_id for pk_links in links.values() for kind, link_id in pk_links if kind == "page"}
    document_ids = {link_id for pk_links in links.values() for kind, link_id in pk_links if kind == "document"}
    now = timezone.now()
    numeric = [int(pk) for pk in page_ids if pk.isdigit() and len(pk) < 10]
    open_pages = {str(page.pk) for page in Page.objects.filter(pk__in=numeric) if is_open_to_readers(page, now)}
    numeric = [int(pk) for pk in document_ids if pk.isdigit() and len(pk) < 10]
    documents = {str(pk) for pk in get_document_model().objects.filter(pk__in=numeric).values_list("pk", flat=True)}
    broken = {("page", pk) for pk in page_ids - open_pages} | {("document", pk) for pk in document_ids - documents}
    return Page.objects.filter(pk__in=[pk for pk, pk_links in links.items() if pk_links & broken])
