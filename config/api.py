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
    """Wagtail's pages endpoint without expired pages."""

    def get_base_queryset(self):
        return super().get_base_queryset().exclude(expire_at__lte=timezone.now())


api_router = WagtailAPIRouter("wagtailapi")
api_router.register_endpoint("pages", LivePagesAPIViewSet)
api_router.register_endpoint("images", ImagesAPIViewSet)
api_router.register_endpoint("documents", DocumentsAPIViewSet)
