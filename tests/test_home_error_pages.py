"""The 400, 403 and CSRF-failure pages are the site's own, not Django's unstyled defaults.

Django renders ``400.html``, ``403.html`` and ``403_csrf.html`` by name when a project has them
(``django.views.defaults``, ``django.views.csrf``); without them a reader or editor gets a bare
"Bad Request (400)" or Django's CSRF explanation for developers.
"""

from django.core.exceptions import PermissionDenied
from django.test import Client, override_settings
from django.views.defaults import permission_denied

import pytest

pytestmark = pytest.mark.django_db


def assert_site_error_page(response, status: int, heading: str):
    html = response.content.decode()
    assert response.status_code == status
    assert "/static/css/site.css" in html  # the site's layout, not Django's bare page
    assert f"Error {status}" in html
    assert heading in html
    assert 'href="/"' in html  # a way back


@pytest.mark.parametrize(
    "host",
    ["evil.example.com", "example.com:80", "127.0.0.2", "[::2]", "localhost.evil", "xn--e1afmkfd.example"],
)
def test_a_host_this_site_does_not_serve_gets_the_sites_400_page(host):
    response = Client().get("/blog/", HTTP_HOST=host)
    assert_site_error_page(response, 400, "We could not read that request.")


def test_permission_denied_outside_the_admin_gets_the_sites_403_page(rf):
    """What Django answers a ``PermissionDenied`` raised by a public view (the admin's own views
    redirect with a message instead)."""
    response = permission_denied(rf.get("/blog/"), PermissionDenied())
    assert_site_error_page(response, 403, "You cannot open this page.")


# Addresses of real forms: sign-in and sign-out, the theme chooser, the page password form, the
# admin's editors (a page, a setting), reviewer-link creation, and a view that takes POST in its
# own dispatch (Wagtail's form submissions' delete view). None needs to exist: the CSRF check
# runs before the view. A writing method a reader page refuses gets the 405 page instead
# (tests/test_home_page_methods.py).
FORMS = [
    ("post", "/admin/login/"),
    ("put", "/admin/login/"),  # Django's form views take PUT as POST
    ("post", "/admin/logout/"),
    ("post", "/theme/"),
    ("post", "/_util/authenticate_with_password/1/3/"),
    ("post", "/admin/pages/3/edit/"),
    ("post", "/admin/pages/3/add_subpage/"),
    ("post", "/admin/settings/home/sitechromesettings/1/"),
    ("post", "/admin/reviewer-links/3/"),
    ("post", "/admin/forms/submissions/3/delete/"),
    ("patch", "/admin/dismissibles/"),
]


@pytest.mark.parametrize("with_cookie", [False, True], ids=["no-cookie", "wrong-token"])
@pytest.mark.parametrize(("method", "path"), FORMS)
def test_a_form_without_its_csrf_token_gets_the_sites_page(method, path, with_cookie):
    """A post refused by the CSRF check, whether the browser sent no cookie (blocked cookies)
    or a token that does not match it (a form from another session), wherever it is posted."""
    client = Client(enforce_csrf_checks=True)
    if with_cookie:
        client.get("/admin/login/")  # sets the CSRF cookie
    response = getattr(client, method)(path, {"username": "x", "password": "y", "csrfmiddlewaretoken": "a" * 64})
    assert_site_error_page(response, 403, "That form could not be sent.")
    assert "Allow cookies for this site" in response.content.decode()


def test_a_signed_in_editors_form_without_its_token_gets_the_sites_page(demo, editor):
    client = Client(enforce_csrf_checks=True)
    client.force_login(editor)
    for path in (f"/admin/pages/{demo.articles[0].pk}/edit/", f"/admin/reviewer-links/{demo.articles[0].pk}/"):
        response = client.post(path, {"title": "x"})
        assert_site_error_page(response, 403, "That form could not be sent.")


# The site's 404 page under make run (DEBUG on) for paths no URL pattern matches --------------

# Each matches no URL pattern (Wagtail's catch-all takes only [-\w] segments, each ending in
# "/"), and none becomes a route with a slash added (CommonMiddleware's APPEND_SLASH).
UNROUTED_PATHS = [
    "/robots.txt/",
    "/sitemap.xml/",
    "/sitemap-blog-articlepage.xml/",
    "/favicon.ico/",
    "/theme.css/",
    "/blog//gpu-costs/",
    "/blog/gpu-costs//",
    "/blog///",
    "/blog/%00/",
    "/blog/%E2%80%AE/",
    "/;/",
    "/blog/;x/",
    "/static/../x",
    "/static/css/../../x",
    "/.env",
    "/wp-login.php",
    "/index.html",
    "/blog/gpu-costs/index.php",
    "/blog/gpu costs/",
    "/blog/~editor/",
    "/blog/a.b/",
    "/blog/gpu-costs/feed/rss/x.xml",
    "/%2e%2e/%2e%2e/etc/passwd",
]


def dev_middleware() -> list[str]:
    from config.settings import dev

    return dev.MIDDLEWARE


def assert_site_404(response, path: str):
    html = response.content.decode()
    assert response.status_code == 404, path
    assert "Page not found." in html, path
    assert "URLconf" not in html and "Django tried these URL patterns" not in html, path
    assert "/static/css/site.css" in html, path


@pytest.mark.parametrize("path", UNROUTED_PATHS)
def test_under_make_run_a_path_no_route_matches_gets_the_sites_404(demo, path):
    with override_settings(DEBUG=True, MIDDLEWARE=dev_middleware()):
        response = Client().get(path)
    assert_site_404(response, path)
    # As in production, the page passed through the other middleware (django-csp leaves 404s
    # alone under DEBUG, so the headers here are the frame and permissions policies).
    assert response["X-Frame-Options"] == "DENY" and "Permissions-Policy" in response, path


@pytest.mark.parametrize("method", ["post", "put", "options", "delete"])
def test_under_make_run_any_method_to_an_unrouted_path_gets_the_sites_404(demo, method):
    with override_settings(DEBUG=True, MIDDLEWARE=dev_middleware()):
        for path in ("/robots.txt/", "/blog//gpu-costs/", "/;/"):
            response = getattr(Client(), method)(path)
            assert response.status_code == 404, (method, path)
            assert b"URLconf" not in response.content, (method, path)


def test_under_make_run_an_unrouted_path_still_redirects_when_a_slash_makes_it_a_route(demo):
    """CommonMiddleware's APPEND_SLASH sees the 404 and redirects, as in production."""
    with override_settings(DEBUG=True, MIDDLEWARE=dev_middleware()):
        response = Client().get("/blog/gpu-costs")
    assert response.status_code == 301 and response["Location"] == "/blog/gpu-costs/"


def test_production_answers_unrouted_paths_as_before(demo):
    """DEBUG off: Django's own handler404 page, with or without the dev middleware (which then
    leaves the response alone)."""
    from django.conf import settings

    for middleware in (settings.MIDDLEWARE, dev_middleware()):
        with override_settings(DEBUG=False, MIDDLEWARE=middleware):
            for path in UNROUTED_PATHS:
                assert_site_404(Client().get(path), path)


def test_debug_error_pages_brings_djangos_technical_404_back(demo, monkeypatch):
    """``DEBUG_ERROR_PAGES=true`` leaves the middleware out (config/settings/dev.py), and Django
    shows its technical 404 with the URL patterns."""
    import importlib

    from config.settings import dev

    monkeypatch.setenv("DEBUG_ERROR_PAGES", "true")
    try:
        without = importlib.reload(dev).MIDDLEWARE
    finally:
        monkeypatch.delenv("DEBUG_ERROR_PAGES")
        importlib.reload(dev)
    assert "home.dev_error_pages.SiteErrorPagesMiddleware" not in without
    with override_settings(DEBUG=True, MIDDLEWARE=without):
        response = Client().get("/robots.txt/")
    assert response.status_code == 404 and "Django tried these URL patterns" in response.content.decode()
