"""The 400, 403 and CSRF-failure pages are the site's own, not Django's unstyled defaults.

Django renders ``400.html``, ``403.html`` and ``403_csrf.html`` by name when a project has them
(``django.views.defaults``, ``django.views.csrf``); without them a reader or editor gets a bare
"Bad Request (400)" or Django's CSRF explanation for developers.
"""

from django.core.exceptions import PermissionDenied
from django.test import Client
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


@pytest.mark.parametrize("with_cookie", [False, True], ids=["no-cookie", "wrong-token"])
@pytest.mark.parametrize("path", ["/admin/login/", "/theme/", "/blog/"])
def test_a_form_without_its_csrf_token_gets_the_sites_page(path, with_cookie):
    """A post refused by the CSRF check, whether the browser sent no cookie (blocked cookies)
    or a token that does not match it (a form from another session), wherever it is posted."""
    client = Client(enforce_csrf_checks=True)
    if with_cookie:
        client.get("/admin/login/")  # sets the CSRF cookie
    response = client.post(path, {"username": "x", "password": "y", "csrfmiddlewaretoken": "a" * 64})
    assert_site_error_page(response, 403, "That form could not be sent.")
    assert "Allow cookies for this site" in response.content.decode()
