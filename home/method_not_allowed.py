"""A page that explains a 405, instead of the empty body Django and Wagtail send.

A request with a method an address does not take (a POST to an article, a DELETE to the search
page, a GET to an admin action that only takes POST) is refused with 405 by Django's
``require_safe``/``require_http_methods`` decorators, class-based views'
``http_method_not_allowed``, and our ``only_reading_methods`` hook (``home/wagtail_hooks.py``),
each with Django's ``HttpResponseNotAllowed``: the right status and ``Allow`` header, and no
body, so a browser shows a blank page. Django has no ``handler405`` to render one, so this
middleware gives every empty HTML 405 the site's error page (``405.html``, which names the
method and what the address takes) on its way out. A 405 that already has a body (the API's
JSON) is left as it is.
"""

from django.template.loader import render_to_string

# A method is any token the client sends; the page shows at most this many characters of it.
SHOWN_METHOD_LENGTH = 20


class MethodNotAllowedPageMiddleware:
    """Render ``405.html`` into a 405 response that has no body (see the module docstring)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code != 405 or response.streaming or response.content:
            return response
        if not response.get("Content-Type", "").startswith("text/html"):
            return response
        allowed = [method.strip() for method in response.get("Allow", "").split(",") if method.strip()]
        context = {
            "method": request.method[:SHOWN_METHOD_LENGTH],
            "allowed": allowed,
            "in_admin": request.path.startswith("/admin/"),
        }
        response.content = render_to_string("405.html", context)
        if response.has_header("Content-Length"):
            response["Content-Length"] = str(len(response.content))
        return response
