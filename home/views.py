"""Site-wide views that are not pages: ``robots.txt`` and ``favicon.ico``."""

from django.http import HttpResponsePermanentRedirect
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from .seo import absolute_url


@csrf_exempt  # read-only: another method gets its 405, not a CSRF 403
@require_safe
def robots_txt(request):
    """``/robots.txt`` as text/plain: keep crawlers out of the admin and search results, point to the sitemap."""
    return render(
        request,
        "robots.txt",
        {"sitemap_url": absolute_url(request, reverse("sitemap"))},
        content_type="text/plain; charset=utf-8",
    )


@csrf_exempt  # read-only: another method gets its 405, not a CSRF 403
@require_safe
def favicon(request):
    """``/favicon.ico``, which browsers and crawlers ask for whatever the pages link: a permanent
    redirect to the site's icon (an SVG static file, hashed and cached for a year by WhiteNoise),
    instead of a 404 page rendered for every first visit."""
    response = HttpResponsePermanentRedirect(static("img/favicon.svg"))
    response["Cache-Control"] = "public, max-age=86400"
    return response
