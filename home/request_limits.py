"""A page that explains a refused oversized form post, instead of Django's bare 400.

Django refuses a request whose form data (everything but uploaded files) is larger than
``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes, or has more than ``DATA_UPLOAD_MAX_NUMBER_FIELDS``
fields, by raising ``RequestDataTooBig``/``TooManyFieldsSent`` when the form is first read
(the CSRF check). Django turns those into a 400 through the URLconf's ``handler400``
(``config/urls.py``: ``bad_request``), which answers them with 413 (Content Too Large, RFC 9110
section 15.5.14) and ``413.html``: it says that nothing was saved, which limit applies and how
to keep the text. Other bad requests get Django's 400 view with our ``400.html``. With DEBUG on, Django shows its
technical page instead, as for every error.
"""

import math

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.views import defaults


def megabytes(size: int) -> str:
    """``size`` bytes as "5 MB" / "2.5 MB" / "6.1 MB", at most one decimal, never rounded down to
    the limit it passed ("5 MB" for 5 MB and a byte would read as no excess: "5.1 MB")
    (1 MB = 1,048,576 bytes)."""
    exact = size / (1024 * 1024)
    shown = math.ceil(exact * 10) / 10
    return f"{shown:g} MB"


def too_large(request, limit: str) -> HttpResponse:
    """The 413 page for a post over ``limit`` (a phrase such as "5 MB of form data")."""
    sent = request.META.get("CONTENT_LENGTH") or ""
    context = {
        "limit": limit,
        "sent": megabytes(int(sent)) if sent.isdigit() else "",
        "in_admin": request.path.startswith("/admin/"),
    }
    return HttpResponse(render_to_string("413.html", context), status=413)


def bad_request(request, exception):
    """The site's ``handler400``: the 413 page for a post over Django's size or field-count
    limits (``RequestDataTooBig``, ``TooManyFieldsSent``), Django's 400 page otherwise."""
    if isinstance(exception, RequestDataTooBig):
        return too_large(request, f"{megabytes(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)} of form data")
    if isinstance(exception, TooManyFieldsSent):
        return too_large(request, f"{settings.DATA_UPLOAD_MAX_NUMBER_FIELDS:,} form fields")
    return defaults.bad_request(request, exception)
