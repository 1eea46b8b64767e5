"""A page that explains a 405, instead of the empty body Django and Wagtail send.

A request with a method an address does not take (a POST to an article, a DELETE to the search
page, a GET to an admin action that only takes POST) is refused with 405 by Django's
``require_safe``/``require_http_methods`` decorators, class-based views'
``http_method_not_allowed``, and our ``only_reading_methods`` hook (``home/wagtail_hooks.py``),
each with Django's ``HttpResponseNotAllowed``, and WhiteNoise for a static file: the right
status and ``Allow`` header, and no body, so a browser shows a blank page. Django has no
``handler405`` to render one, so this middleware (listed above WhiteNoise) gives every empty
405 the site's error page (``405.html``, which names the method and what the address takes) on
its way out. A 405 that already has a body (the API's JSON) is left as it is.
"""

import re

from django.http import HttpResponse
from django.template.loader import render_to_string

# The page shows at most this many characters of the method, and "…" after a longer one.
SHOWN_METHOD_LENGTH = 20
# A method is an HTTP token (RFC 9110, 9.1 and 5.6.2); anything else the client sent (control
# characters, non-ASCII bytes read as Latin-1 by the server) is not shown.
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


def shown_method(method: str) -> str:
    """``method`` (as sent: ``REQUEST_METHOD``) as the 405 page names it: the token upper-cased
    as Django does, cut to SHOWN_METHOD_LENGTH characters with "…" after a longer one; "" when
    it is not an HTTP token (checked before upper-casing, which turns "ß" into "SS")."""
    if not _TOKEN.fullmatch(method):
        return ""
    method = method.upper()
    if len(method) > SHOWN_METHOD_LENGTH:
        return method[:SHOWN_METHOD_LENGTH] + "…"
    return method


class MethodNotAllowedPageMiddleware:
    """Answer an empty 405 with ``405.html`` instead (see the module docstring)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code != 405 or not _has_no_body(response):
            return response
        allowed = [method.strip() for method in response.get("Allow", "").split(",") if method.strip()]
        context = {
            "method": shown_method(request.META.get("REQUEST_METHOD", "")),
            "allowed": allowed,
            "in_admin": request.path.startswith("/admin/"),
        }
        page = HttpResponse(render_to_string("405.html", context), status=405)
        # The refusal's own headers (Allow, Cache-Control, the security headers) and cookies.
        for header, value in response.items():
            if header.lower() not in ("content-type", "content-length"):
                page[header] = value
        page.cookies = response.cookies
        page["Content-Length"] = str(len(page.content))
        # Not response.close(): that sends request_finished, which the handler sends for ``page``;
        # a bodiless response holds no file to close.
        return page


def _has_no_body(response) -> bool:
    """Whether ``response`` is a bodiless 405: Django's ``HttpResponseNotAllowed`` (text/html,
    empty), or WhiteNoise's (a streamed file of nothing, with no Content-Type)."""
    if response.streaming:
        return "Content-Type" not in response
    return not response.content and response.get("Content-Type", "text/html").startswith("text/html")
