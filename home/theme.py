"""The reader's colour theme: light, dark, or the device's (``prefers-color-scheme``).

Every page links ``/theme.css`` after site.css. It imports static/css/dark.css, the dark
palette, under ``@media (prefers-color-scheme: dark)`` (the default, "system"), always ("dark")
or not at all ("light"), as the ``theme`` cookie says. So the page HTML is the same in both
themes and the full-page cache (home/caching/page_cache.py) serves one copy to every reader;
only this tiny stylesheet varies, and it is private to the browser (``Vary: Cookie``).

The header's theme link leads to ``/theme/``, a form that sets the cookie and returns to the
page (no JavaScript needed); static/js/theme-toggle.js turns the link into an in-place switch.
"""

import hashlib

from django import forms
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.templatetags.static import static
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_safe

THEME_COOKIE = "theme"
THEMES = {"system": "Match this device", "light": "Light", "dark": "Dark"}
# A year: a preference, not a session.
THEME_COOKIE_SECONDS = 365 * 24 * 3600


class ThemeForm(forms.Form):
    """The reader's choice of theme and the page to return to (a path on this site)."""

    theme = forms.ChoiceField(choices=THEMES.items(), widget=forms.RadioSelect, label="Theme")
    next = forms.CharField(required=False, max_length=2000, widget=forms.HiddenInput)


def reader_theme(request) -> str:
    """The ``theme`` cookie's value if it names a theme, else "system"."""
    value = request.COOKIES.get(THEME_COOKIE, "")
    return value if value in THEMES else "system"


def safe_next(request, candidate: str) -> str:
    """``candidate`` if it is a path or URL on this site, else "/" (no open redirect)."""
    if candidate and url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return "/"


@csrf_exempt  # read-only: another method gets its 405, not a CSRF 403
@require_safe
def theme_stylesheet(request):
    """``/theme.css``: the ``@import`` of the dark palette the reader's theme calls for (see the
    module docstring). Revalidated on every page view, answered 304 while the theme is unchanged."""
    dark = static("css/dark.css")
    rules = {
        "system": f'@import url("{dark}") (prefers-color-scheme: dark);\n',
        "dark": f'@import url("{dark}");\n',
        "light": ":root { color-scheme: light; }\n",
    }[reader_theme(request)]
    etag = '"' + hashlib.md5(rules.encode(), usedforsecurity=False).hexdigest() + '"'
    response = HttpResponse(rules, content_type="text/css; charset=utf-8")
    response["Cache-Control"] = "private, no-cache"
    response["ETag"] = etag
    patch_vary_headers(response, ["Cookie"])
    return get_conditional_response(request, etag=etag, response=response)


@require_http_methods(["GET", "HEAD", "POST"])
def choose_theme(request):
    """``/theme/``: GET shows the choice (``?next=`` the page to return to); POST stores it in the
    ``theme`` cookie ("system" deletes it) and redirects to ``next`` (303). An unknown theme
    re-renders the form with its error (400)."""
    if request.method == "POST":
        form = ThemeForm(request.POST)
        if form.is_valid():
            response = HttpResponseRedirect(safe_next(request, form.cleaned_data["next"]), status=303)
            if form.cleaned_data["theme"] == "system":
                response.delete_cookie(THEME_COOKIE, samesite="Lax")
            else:
                response.set_cookie(
                    THEME_COOKIE,
                    form.cleaned_data["theme"],
                    max_age=THEME_COOKIE_SECONDS,
                    samesite="Lax",
                    secure=request.is_secure(),
                )
            return response
        status = 400
    else:
        form = ThemeForm(
            initial={"theme": reader_theme(request), "next": safe_next(request, request.GET.get("next", ""))}
        )
        status = 200
    return render(request, "theme/choose.html", {"form": form}, status=status)
