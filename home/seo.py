"""Absolute URLs, site names and JSON-LD for feeds, sitemaps and the SEO tags in the page head.

Absolute URLs are built from the Wagtail ``Site`` that serves the request (its hostname, port
and scheme), the same source Wagtail uses for ``Page.get_full_url``, so canonical links, feed
links and image URLs always agree.
"""

import json

from django.core.serializers.json import DjangoJSONEncoder
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from wagtail.models import Page, Site

from .caching import memo


def current_site(request) -> Site | None:
    """The Wagtail site for ``request``, else the default site; ``None`` if there is no site at all."""
    site = Site.find_for_request(request) if request is not None else None
    if site is None:
        site = Site.objects.filter(is_default_site=True).first()
    return site


def site_name(request) -> str:
    """The site's name as editors set it under Settings → Sites, else ``"Blog"``."""
    site = current_site(request)
    return (site.site_name if site else "") or "Blog"


def absolute_url(request, url: str) -> str:
    """``url`` made absolute against the site's root URL (``http://localhost/media/x.png``).

    URLs that already have a scheme (media on a CDN) are returned unchanged; without a site the
    request's own host is used.
    """
    if url.startswith(("http://", "https://")):
        return url
    site = current_site(request)
    if site is not None:
        return site.root_url + url
    return request.build_absolute_uri(url)


# The characters that could end a <script> element or open a comment inside it, escaped the way
# Django's json_script filter does, so editor-typed text can never break out of the JSON-LD block.
_JSON_SCRIPT_ESCAPES = {ord(">"): "\\u003E", ord("<"): "\\u003C", ord("&"): "\\u0026"}


def json_ld_script(data: dict) -> str:
    """``data`` as ``<script type="application/ld+json">…</script>`` (a data block, never executed).

    Dates are serialised by DjangoJSONEncoder (ISO 8601); ``<``, ``>`` and ``&`` become ``\\u003C``
    style escapes, which JSON parsers read back as the same characters.
    """
    text = json.dumps(data, cls=DjangoJSONEncoder, ensure_ascii=False).translate(_JSON_SCRIPT_ESCAPES)
    return format_html('<script type="application/ld+json">{}</script>', mark_safe(text))  # noqa: S308 - escaped above


def website_data(request) -> dict:
    """schema.org ``WebSite`` with a ``SearchAction`` pointing at the site search (``/search/?query=``)."""
    root = absolute_url(request, "/")
    search = absolute_url(request, reverse("search"))
    return {
        "@context": "https://schema.org",
        "@type": "WebSite",
        "name": site_name(request),
        "url": root,
        "potentialAction": {
            "@type": "SearchAction",
            "target": {"@type": "EntryPoint", "urlTemplate": f"{search}?query={{search_term_string}}"},
            "query-input": "required name=search_term_string",
        },
    }


def _ancestor_crumbs(request, site, parent_path: str) -> tuple:
    """``((title, absolute url), ...)`` of the live pages from ``site``'s root page down to the
    page at ``parent_path``; remembered per site and parent (``home.caching.memo``)."""

    def build():
        if not parent_path:
            return ()
        paths = [parent_path[:end] for end in range(Page.steplen, len(parent_path) + 1, Page.steplen)]
        ancestors = (
            Page.objects.filter(path__in=paths).filter(depth__gte=site.root_page.depth).live().order_by("depth")
        )
        return tuple((ancestor.title, ancestor.get_full_url(request)) for ancestor in ancestors)

    return memo.memoized(("breadcrumbs", site.pk, parent_path), build)


def ancestor_crumbs(request, page) -> tuple:
    """``((title, absolute url), ...)``: what ``page``'s breadcrumbs show of its ancestors (the
    live pages from the site's root page down to its parent, ``breadcrumb_data``); () without a
    site. One query per site and parent, remembered for the cache generation."""
    site = current_site(request)
    return _ancestor_crumbs(request, site, page.path[: -page.steplen]) if site is not None else ()


def breadcrumb_data(request, page, extra: list[tuple[str, str]] = ()) -> dict | None:
    """schema.org ``BreadcrumbList`` from the site's home page down to ``page``, then ``extra``.

    ``extra`` is ``[(name, absolute url), ...]`` for routes below the page (an author page).
    Returns None when the trail would have fewer than two items (the home page itself).
    """
    site = current_site(request)
    crumbs = []
    if site is not None:
        crumbs = list(ancestor_crumbs(request, page))
        if page.live and page.depth >= site.root_page.depth:
            crumbs.append((page.title, page.get_full_url(request)))
    crumbs += list(extra)
    if len(crumbs) < 2:
        return None
    return {
        "@context": "https://schema.org",
        "@type": "BreadcrumbList",
        "itemListElement": [
            {"@type": "ListItem", "position": position, "name": name, "item": url}
            for position, (name, url) in enumerate(crumbs, start=1)
        ],
    }
