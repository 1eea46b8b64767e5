"""The site's ``sitemap.xml``: Wagtail's page sitemap, minus pages past their expiry time."""

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

    Articles are read in one query of their own: Wagtail's ``specific()`` iterates in chunks of
    2,000 pages, one more query per chunk, so the sitemap's query count would grow with the
    archive. The other pages (a handful) go through ``specific()`` as before.
    """

    def items(self):
        from blog.models import ArticlePage

        pages = super().items().exclude(expire_at__lte=timezone.now())
        articles = ArticlePage.objects.filter(pk__in=pages.type(ArticlePage).values("pk")).defer_streamfields()
        return _Pages(sorted([*pages.not_type(ArticlePage), *articles], key=lambda page: page.path))
