"""The site's ``sitemap.xml``: Wagtail's page sitemap, minus pages past their expiry time."""

from django.contrib.contenttypes.models import ContentType
from django.utils import timezone

from wagtail.contrib.sitemaps import Sitemap


class _Pages(list):
    """A list of pages that Wagtail's sitemap can page through and iterate like a queryset."""

    def __getitem__(self, key):
        items = super().__getitem__(key)
        return _Pages(items) if isinstance(key, slice) else items

    def iterator(self):
        return iter(self)


class LivePageSitemap(Sitemap):
    """Live, public pages of the request's site, with ``lastmod`` from each page's last publish.

    Wagtail unpublishes expired pages only when ``publish_scheduled`` runs (every minute), so
    pages whose ``expire_at`` has passed are left out here too, as the listings leave them out.
    Page types add URLs of their own through ``get_sitemap_urls`` (the blog index adds author pages).

    Pages are read one query per page type (``defer_streamfields``: a sitemap shows no body),
    not through Wagtail's ``specific()``, which iterates in chunks of 2,000 pages, one more query
    per chunk, so that the query count does not grow with the archive.
    """

    def items(self):
        pages = super().items().exclude(expire_at__lte=timezone.now())
        specific = []
        for content_type_id in pages.order_by().values_list("content_type", flat=True).distinct():
            content_type = ContentType.objects.get_for_id(content_type_id)  # cached after the first request
            model = content_type.model_class()
            if model is None:  # a page type whose code was removed: Wagtail serves it as a plain Page
                specific += pages.filter(content_type=content_type)
                continue
            specific += model.objects.filter(
                pk__in=pages.filter(content_type=content_type).values("pk")
            ).defer_streamfields()
        return _Pages(sorted(specific, key=lambda page: page.path))
