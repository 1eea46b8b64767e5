"""The site's own 404 and 500 pages on a DEBUG laptop (``make run``, config/settings/dev.py).

With ``DEBUG = True`` Django answers an exception with its technical pages (the URL patterns or
the traceback), so a missing article never looks as it does for readers. This middleware, listed
only in dev settings, answers the views' ``Http404`` with the URLconf's 404 handler (Django's
``page_not_found``, our templates/404.html, unless ``handler404`` names another) and any other
uncaught exception with its 500 handler (templates/500.html),
after writing the traceback to the console. ``DEBUG_ERROR_PAGES=true`` in the environment brings
Django's technical pages back. Permission and bad-request exceptions are left to Django: a 403
is the site's page as in production, but with DEBUG on Django answers ``BadRequest`` and
``SuspiciousOperation`` (an unknown Host, an over-size post) with its technical 400 page, raised
before any view, where no middleware's ``process_exception`` sees them.
"""

import logging

from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation
from django.http import Http404
from django.urls import get_resolver, get_urlconf

logger = logging.getLogger("django.request")


class SiteErrorPagesMiddleware:
    """Turn a view's ``Http404`` or crash into the reader-facing 404 or 500 page (see module)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

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
