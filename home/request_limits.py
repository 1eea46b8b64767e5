"""A page that explains a refused oversized form post, instead of Django's bare 400.

Django refuses a request whose form data (everything but uploaded files) is larger than
``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes, or has more than ``DATA_UPLOAD_MAX_NUMBER_FIELDS``
fields, by raising ``RequestDataTooBig``/``TooManyFieldsSent`` when the form is first read
(the CSRF check). That becomes a 400: Django's technical page with DEBUG on, a one-line
"Bad Request (400)" without it. ``RequestLimitsMiddleware`` reads the form first and answers
413 (Content Too Large, RFC 9110 section 15.5.14) with ``413.html``, which says that nothing was
saved, which limit applies and how to keep the text.
"""

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.http import HttpResponse, UnreadablePostError
from django.template.loader import render_to_string


def megabytes(size: int) -> str:
    """``size`` bytes as "5 MB" / "2.5 MB" (1 MB = 1,048,576 bytes)."""
    return f"{size / (1024 * 1024):g} MB"


class RequestLimitsMiddleware:
    """Answer an over-limit POST with the explanatory 413 page (place before CsrfViewMiddleware).

    Reading ``request.POST`` here is what the CSRF check does next for every POST, so it adds no
    work; only the exception is handled differently.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method == "POST":
            try:
                request.POST  # noqa: B018 - parsing is the check
            except RequestDataTooBig:
                limit = f"{megabytes(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)} of form data"
                return too_large(request, limit)
            except TooManyFieldsSent:
                return too_large(request, f"{settings.DATA_UPLOAD_MAX_NUMBER_FIELDS:,} form fields")
            except UnreadablePostError:
                pass  # the client went away mid-upload: left to the CSRF check, as before
        return self.get_response(request)


def too_large(request, limit: str) -> HttpResponse:
    """The 413 page for a post over ``limit`` (a phrase such as "5 MB of form data")."""
    sent = request.META.get("CONTENT_LENGTH") or ""
    context = {
        "limit": limit,
        "sent": megabytes(int(sent)) if sent.isdigit() else "",
        "in_admin": request.path.startswith("/admin/"),
    }
    return HttpResponse(render_to_string("413.html", context), status=413)
