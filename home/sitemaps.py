"""The site's ``sitemap.xml``: Wagtail's page sitemap, minus pages past their expiry time."""

from django.utils import timezone

from wagtail.contrib.sitemaps import Sitemap


class LivePageSitemap(Sitemap):
    """Live, public pages of the request's site, with ``lastmod`` from each page's last publish.

    Wagtail unpublishes expired pages only when ``publish_scheduled`` runs (every minute), so
    pages whose ``expire_at`` has passed are left out here too, as the listings leave them out.
    Page types add URLs of their own through ``get_sitemap_urls`` (the blog index adds author pages).
    """

    def items(self):
        return super().items().exclude(expire_at__lte=timezone.now())
