"""While the database is down: a styled 503 with ``Retry-After`` instead of a 500.

Django turns an exception raised anywhere below a middleware into the response of the
``handler500`` view (``config/urls.py``), so this one view covers views, middleware and
template rendering alike. A lost or refused database connection (``OperationalError``,
``InterfaceError``; also a locked SQLite database or a PostgreSQL statement timeout) is not a
bug in the page: readers get ``templates/503.html`` and ``Retry-After``, and the next request
connects afresh (Django closes a connection that raised), so service comes back by itself.
Pages in the full-page cache keep being served meanwhile (``home.caching.page_cache``). Every
other error is Django's own 500 page.
"""

import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse
from django.template import loader
from django.views import defaults

# Seconds a client (or crawler) should wait before trying again: the scheduler's and a
# database failover's time scale, not a tight retry loop.
RETRY_AFTER_SECONDS = 30


def is_database_outage(error: BaseException | None) -> bool:
    """Whether ``error`` means the database could not be reached or did not answer."""
    return isinstance(error, (OperationalError, InterfaceError))


def server_error(request, template_name: str = defaults.ERROR_500_TEMPLATE_NAME):
    """``handler500``: a 503 page with ``Retry-After`` for a database outage (see module), else
    Django's ``server_error``. Renders without context, so it needs neither database nor request."""
    if is_database_outage(sys.exc_info()[1]):
        response = HttpResponse(loader.get_template("503.html").render(), status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        response["Cache-Control"] = "no-store"
        return response
    return defaults.server_error(request, template_name)
