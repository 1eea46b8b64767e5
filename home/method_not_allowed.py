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

A writing method without a valid CSRF token is refused by Django's CSRF check before the view
runs, with the "allow cookies" page (``403_csrf.html``), though no form was involved when the
address would refuse the method anyway. ``csrf_failure`` (``CSRF_FAILURE_VIEW``) answers those
as the address does with a token: a page Wagtail serves (with its routes: feeds, author pages)
with the 405 its ``before_serve_page`` checks give (``only_reading_methods``, then the page
type's ``allowed_http_methods``), or the 404 when no page is there; a class-based view that uses
Django's own ``dispatch`` with its ``http_method_not_allowed``. Everything else, every real form
(sign-in, ``/theme/``, the admin's forms, reviewer links), still gets the cookies page.
"""

import re

from django.http import Http404, HttpResponse
from django.template.loader import render_to_string
from django.urls import get_resolver, get_urlconf
from django.views import csrf
from django.views.generic import View

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


def csrf_failure(request, reason=""):
    """``CSRF_FAILURE_VIEW``: the address's own refusal of the method when it would refuse it with
    a token too (``refusal_whatever_the_token``), else Django's view with ``403_csrf.html``."""
    refusal = refusal_whatever_the_token(request)
    if refusal is not None:
        return refusal
    return csrf.csrf_failure(request, reason=reason)


def refusal_whatever_the_token(request):
    """What the address ``request`` resolved to answers its method whether or not the CSRF token
    is valid, without running the view (see the module docstring); None when that is not known,
    or when the view would take the method."""
    match = request.resolver_match
    if match is None:
        return None
    from wagtail.models import Page
    from wagtail.views import serve

    if match.func is serve:
        path = match.args[0] if match.args else match.kwargs.get("path", "")
        route = Page.route_for_request(request, path)  # Wagtail's routing, as serve does it
        if route is None:
            exception = Http404("No page at this address")
            return get_resolver(get_urlconf()).resolve_error_handler(404)(request, exception)
        return page_refusal(request, *route)
    return class_based_view_refusal(request, match)


def page_refusal(request, page, args, kwargs):
    """The 405 the page's ``before_serve_page`` checks give ``request`` (ours, then Wagtail's for
    the page type's ``allowed_http_methods``), or None when the page takes the method."""
    from .wagtail_hooks import only_reading_methods

    refusal = only_reading_methods(page, request, args, kwargs)
    if refusal is None:
        refusal = page.check_request_method(request, *args, **kwargs)
    return refusal if refusal is not None and refusal.status_code == 405 else None


def class_based_view_refusal(request, match):
    """The 405 a class-based view gives a method it has no handler for, when it dispatches with
    Django's own ``View.dispatch`` (a view that overrides it may take a method another way, as
    Wagtail's form submissions' delete view takes POST); None otherwise."""
    view_class = getattr(match.func, "view_class", None)
    if view_class is None or view_class.dispatch is not View.dispatch or view_class.view_is_async:
        return None
    view = view_class(**getattr(match.func, "view_initkwargs", {}))
    view.setup(request, *match.args, **match.kwargs)  # Django's own set-up (HEAD answered as GET)
    method = request.method.lower()
    if method in view.http_method_names and hasattr(view, method):
        return None
    return view.http_method_not_allowed(request, *match.args, **match.kwargs)
