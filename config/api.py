"""The read-only headless API (Wagtail API v2) at ``/api/v2/``: pages, images and documents.

Wagtail's endpoints only answer GET/HEAD and already limit pages to live, public pages of the
request's site and documents to public collections; pages past their ``expire_at`` are left out
here too, as the listings leave them out before ``publish_scheduled`` unpublishes them.
"""

from django.utils import timezone

from wagtail.api.v2.router import WagtailAPIRouter
from wagtail.api.v2.views import PagesAPIViewSet
from wagtail.documents.api.v2.views import DocumentsAPIViewSet
from wagtail.images.api.v2.views import ImagesAPIViewSet


class LivePagesAPIViewSet(PagesAPIViewSet):
    """Wagtail's pages endpoint without expired pages; article listings prefetch what they show."""

    def get_base_queryset(self):
        return super().get_base_queryset().exclude(expire_at__lte=timezone.now())

    def get_queryset(self):
        from blog.models import ArticlePage

        queryset = super().get_queryset()
        if queryset.model is ArticlePage:  # ?type=blog.ArticlePage: avoid a query per article and field
            queryset = queryset.select_related("image").prefetch_related("topics", "authors", "image__renditions")
        return queryset


api_router = WagtailAPIRouter("wagtailapi")
api_router.register_endpoint("pages", LivePagesAPIViewSet)
api_router.register_endpoint("images", ImagesAPIViewSet)
api_router.register_endpoint("documents", DocumentsAPIViewSet)
