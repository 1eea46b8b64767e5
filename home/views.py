"""Site-wide views that are not pages: ``robots.txt``."""

from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe

from .seo import absolute_url


@require_safe
def robots_txt(request):
    """``/robots.txt`` as text/plain: keep crawlers out of the admin and search results, point to the sitemap."""
    return render(
        request,
        "robots.txt",
        {"sitemap_url": absolute_url(request, reverse("sitemap"))},
        content_type="text/plain; charset=utf-8",
    )
