"""The site's sitemaps: ``/sitemap.xml`` is a sitemap index with one section per page type
(``/sitemap-<app>-<model>.xml``), each paged at ``SITEMAP_PAGE_SIZE`` URLs (``?p=2``...).

Django's sitemap framework does the index, the paging (a LIMIT/OFFSET query per page, so a page
costs the same at 10,000 articles as at 100) and the 404 for a page number out of range or not
a number; Wagtail's sitemap views hand each section the request. A section reads one page type
only, so its pages need no ``specific()`` pass.
"""

import dataclasses
from functools import cache
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.http import Http404
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from wagtail.contrib.sitemaps import Sitemap
from wagtail.contrib.sitemaps import views as sitemap_views
from wagtail.models import Page, Site, get_page_models

from .page_numbers import page_number
from .public_pages import exclude_private


class PageTypeSitemap(Sitemap):
    """Live, public pages of one page type (``model``) in the request's site, in tree order, with
    ``lastmod`` from each page's last publish.

    Wagtail unpublishes expired pages only when ``publish_scheduled`` runs (every minute), so
    pages whose ``expire_at`` has passed are left out here too, as the listings leave them out.
    Page types add URLs of their own through ``get_sitemap_urls`` (the blog index adds author
    pages). The index shows no ``lastmod`` per section: it would read every page of the section.
    """

    model = Page

    @property
    def limit(self) -> int:
        return settings.SITEMAP_PAGE_SIZE

    def items(self):
        site = self.get_wagtail_site()
        pages = (
            self.model.objects.descendant_of(site.root_page, inclusive=True)
            .live()
            .filter(content_type=ContentType.objects.get_for_model(self.model))
            .exclude(expire_at__lte=timezone.now())
            .defer_streamfields()
            .order_by("path")
        )
        return exclude_private(pages)

    def get_latest_lastmod(self):
        return None  # Django's default reads every page of the section for the index

    @classmethod
    def for_model(cls, model) -> type["PageTypeSitemap"]:
        return type(f"{model.__name__}Sitemap", (cls,), {"model": model})


@cache
def page_type_sitemaps() -> dict[str, type[PageTypeSitemap]]:
    """``{"<app>-<model>": section class}`` for every page type in the project (Wagtail's
    ``get_page_models``), Wagtail's base ``Page`` left out (the tree's root is no site page)."""
    return {
        model._meta.label_lower.replace(".", "-"): PageTypeSitemap.for_model(model)
        for model in get_page_models()
        if model is not Page and not model._meta.abstract
    }


@csrf_exempt  # read-only: another method gets its 405, not a CSRF 403
@require_safe
def index(request):
    """``/sitemap.xml``: the sitemap index (Django's view, through Wagtail's, which hands each
    section the request), its sections' addresses on the site's root URL (``Site.root_url``).

    Django builds them from the request's Host header, but the full-page cache keeps one copy for
    every Host that reaches the site (``home.caching.page_cache.canonical_host``): one request
    with ``Host: localhost:9999`` made every reader's index point there until the copy expired.
    The response is a ``TemplateResponse`` whose ``sitemaps`` items (``location``, ``last_mod``,
    as Django documents for the index template) are rewritten before it renders."""
    response = sitemap_views.index(request, page_type_sitemaps(), sitemap_url_name="sitemap_section")
    site = Site.find_for_request(request)
    if site is not None:
        response.context_data["sitemaps"] = [
            dataclasses.replace(item, location=site.root_url + _path_and_query(item.location))
            for item in response.context_data["sitemaps"]
        ]
    return response


def _path_and_query(url: str) -> str:
    """``/sitemap-x.xml?p=2`` from ``http://host/sitemap-x.xml?p=2``."""
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


@csrf_exempt
@require_safe
def section(request, section: str):
    """``/sitemap-<section>.xml?p=N``: one page of a section; 404 for an unknown section, a page
    past the end, or a ``p`` that is not a plain page number (``home.page_numbers``: Django's
    paginator would take ``+1`` or ``１`` as page 1) or is given twice."""
    if "p" in request.GET and (len(request.GET.getlist("p")) > 1 or page_number(request.GET["p"]) is None):
        raise Http404("No such sitemap page.")
    return sitemap_views.sitemap(request, page_type_sitemaps(), section=section)
