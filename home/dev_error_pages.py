"""The site's own 404 and 500 pages on a DEBUG laptop (``make run``, config/settings/dev.py).

With ``DEBUG = True`` Django answers an exception with its technical pages (the URL patterns or
the traceback), so a missing article never looks as it does for readers. This middleware, listed
only in dev settings, answers the views' ``Http404`` with the URLconf's 404 handler (Django's
``page_not_found``, our templates/404.html, unless ``handler404`` names another) and any other
uncaught exception with its 500 handler (templates/500.html),
after writing the traceback to the console. A path no URL pattern matches (``/robots.txt/``,
``/blog//x/``, ``/;/``) raises ``Resolver404`` before any view, where no ``process_exception``
sees it, and Django turns it into its technical 404 response; the middleware sees that response
come back with no route resolved (``request.resolver_match`` is None) and answers it with the
404 handler as production does. It is listed innermost (only django-axes, which must be last,
is inside it), so nothing but the URL resolver answers between it and the view, and the site's
404 page it returns passes through every other middleware (security headers, CSP, redirects,
``APPEND_SLASH``), as the handler's response does in production.
``DEBUG_ERROR_PAGES=true`` in the environment brings
Django's technical pages back. Permission and bad-request exceptions are left to Django: a 403
is the site's page as in production, but with DEBUG on Django answers ``BadRequest`` and
``SuspiciousOperation`` (an unknown Host, an over-size post) with its technical 400 page, raised
before any view, where no middleware's ``process_exception`` sees them.
"""

import logging

from django.conf import settings
from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation
from django.http import Http404
from django.urls import Resolver404, get_resolver, get_urlconf, resolve

logger = logging.getLogger("django.request")


class SiteErrorPagesMiddleware:
    """Turn a view's ``Http404`` or crash, or a path no route matches, into the reader-facing 404
    or 500 page (see module)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code == 404 and request.resolver_match is None and settings.DEBUG:
            # No route matched, so the 404 is Django's technical page for the Resolver404 (with
            # DEBUG off it is already the handler's page). Resolving again gives that exception.
            try:
                resolve(request.path_info, getattr(request, "urlconf", None))
            except Resolver404 as exception:
                logger.info("404 reason for %r: no URL pattern matches", request.path)
                return error_handler(404)(request, exception)
        return response

    def process_exception(self, request, exception):
        if isinstance(exception, Http404):
            # Django logs "Not Found: <path>" for every 4xx response; the reason is for the developer.
            # %r: the path and the reason may hold control characters (a %00 in the URL).
            logger.info("404 reason for %r: %r", request.path, str(exception))
            return error_handler(404)(request, exception)
        if isinstance(exception, PermissionDenied | BadRequest | SuspiciousOperation):
            return None
        logger.error("Uncaught exception on %s", request.path, exc_info=exception)
        return error_handler(500)(request)


def error_handler(status: int):
    """The view the URLconf names for ``status`` (``handler404``/``handler500``, else Django's)."""
    return get_resolver(get_urlconf()).resolve_error_handler(status)
