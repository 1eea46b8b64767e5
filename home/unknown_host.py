"""A 404 for public URLs that no Wagtail site serves.

With no default site, a request whose ``Host`` matches no site (an allowed but unconfigured
name, or any port of one) has no root page, no site settings and no site-relative URLs; left to
the views, each fails its own way (500s in the sitemap, robots.txt, feeds, templates reading
site settings). ``UnknownHostMiddleware`` answers all of them at once with a static 404 page
(``templates/404_unknown_host.html``, no site needed). Left alone: the admin (editors reach it
by any allowed host), the health probes and static files (served before this middleware).
"""

from django.http import HttpResponseNotFound
from django.template import loader

from wagtail.models import Site

EXEMPT_PREFIXES = ("/admin/", "/static/")
EXEMPT_PATHS = frozenset({"/healthz", "/readyz"})


class UnknownHostMiddleware:
    """404 (never cached by the page cache: not a 200) for a public URL with no site to serve it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path in EXEMPT_PATHS or request.path.startswith(EXEMPT_PREFIXES):
            return self.get_response(request)
        # Wagtail keeps the site it finds on the request: the page's own lookup reuses it.
        if Site.find_for_request(request) is None:
            response = HttpResponseNotFound(loader.get_template("404_unknown_host.html").render())
            response["Cache-Control"] = "private, no-store"
            return response
        return self.get_response(request)
