"""Production settings pass Django's deployment checks; HTTPS, cookies and sessions are hardened."""

import json
import os
import secrets
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.test import override_settings
from django.utils import timezone

import pytest
import time_machine

# Subprocesses here inherit DATABASE_URL: run on every database (tests/conftest.py). Meant for
# one pytest-xdist worker, so the production settings are read once (a subprocess of a few
# seconds); pytest 9.2 with xdist 3.8 ignores xdist_group for now (docs/testing.md, "Workers").
pytestmark = [pytest.mark.every_database, pytest.mark.xdist_group("production-settings")]

ROOT = Path(__file__).resolve().parent.parent

# What the production settings must say, checked by value (not only by `check --deploy`).
HARDENED = [
    "DEBUG",
    "SECURE_PROXY_SSL_HEADER",
    "SECURE_SSL_REDIRECT",
    "SECURE_REDIRECT_EXEMPT",
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "SESSION_COOKIE_HTTPONLY",
    "SESSION_COOKIE_AGE",
    "SESSION_EXPIRE_AT_BROWSER_CLOSE",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "SECURE_CONTENT_TYPE_NOSNIFF",
    "SECURE_REFERRER_POLICY",
    "X_FRAME_OPTIONS",
]


def production_env(**extra) -> dict:
    """The environment of a production process: a random 50+ character key and one host."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "DEBUG"} and not k.startswith("SECURE_")
    }
    return {
        **clean,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": secrets.token_urlsafe(64),
        "ALLOWED_HOSTS": "blog.example.com",
        **extra,
    }


@pytest.fixture(scope="module")
def production_settings() -> dict:
    code = (
        "import json, django; from django.conf import settings; django.setup(); "
        f"print(json.dumps({{name: getattr(settings, name) for name in {HARDENED!r}}}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=production_env(), capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout)


def test_check_deploy_reports_no_issue_with_production_settings():
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=production_env(),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_check_deploy_fails_when_https_is_switched_off():
    """The subprocess test above would notice a regression: turning the redirect off is a warning."""
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=production_env(SECURE_SSL_REDIRECT="false"),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode != 0
    assert "security.W008" in result.stdout + result.stderr


def test_production_values(production_settings):
    s = production_settings
    assert s["DEBUG"] is False
    assert s["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert s["SECURE_SSL_REDIRECT"] is True
    assert s["SESSION_COOKIE_SECURE"] is s["CSRF_COOKIE_SECURE"] is s["SESSION_COOKIE_HTTPONLY"] is True
    # Staff sessions end with the browser and after at most 12 hours.
    assert s["SESSION_EXPIRE_AT_BROWSER_CLOSE"] is True
    assert 0 < s["SESSION_COOKIE_AGE"] <= 12 * 60 * 60
    assert s["SECURE_HSTS_SECONDS"] >= 31_536_000
    assert s["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is s["SECURE_HSTS_PRELOAD"] is True
    assert s["X_FRAME_OPTIONS"] == "DENY"


@pytest.fixture
def https_behind_proxy(production_settings):
    names = [
        "SECURE_PROXY_SSL_HEADER",
        "SECURE_SSL_REDIRECT",
        "SECURE_REDIRECT_EXEMPT",
        "SECURE_HSTS_SECONDS",
        "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    ]
    values = {name: production_settings[name] for name in names}
    values["SECURE_PROXY_SSL_HEADER"] = tuple(values["SECURE_PROXY_SSL_HEADER"])
    with override_settings(**values):
        yield


def test_plain_http_is_redirected_to_https(client, demo, https_behind_proxy):
    response = client.get("/blog/")
    assert response.status_code == 301
    assert response["Location"] == "https://testserver/blog/"


def test_https_from_the_proxy_is_served_with_hsts(client, demo, https_behind_proxy):
    response = client.get("/blog/", headers={"X-Forwarded-Proto": "https"})
    assert response.status_code == 200
    assert response["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"


@pytest.mark.parametrize("probe", ["/healthz", "/readyz"])
def test_health_probes_over_plain_http_are_answered_not_redirected(client, demo, https_behind_proxy, probe):
    """Probes reach app servers directly, without the proxy's X-Forwarded-Proto (issue 9)."""
    response = client.get(probe)
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
    assert client.get(probe + "/").status_code != 200, "only the probe paths are exempt"


def test_a_forged_proto_value_other_than_https_is_still_redirected(client, demo, https_behind_proxy):
    response = client.get("/blog/", headers={"X-Forwarded-Proto": "http"})
    assert response.status_code == 301


@override_settings(SESSION_COOKIE_SECURE=True)
def test_staff_session_cookie_is_secure_httponly_and_ends_with_the_browser(client, db, django_user_model):
    staff = django_user_model.objects.create_superuser("editor-s", "s@example.com", "Correct-Horse-Battery-9")
    response = client.post("/admin/login/", {"username": staff.username, "password": "Correct-Horse-Battery-9"})
    assert response.status_code == 302
    cookie = response.cookies["sessionid"]
    assert cookie["secure"] and cookie["httponly"]
    assert cookie["samesite"] == "Lax"
    assert not cookie["expires"] and not cookie["max-age"]  # a browser-session cookie
    assert client.session.get_expiry_age() <= 12 * 60 * 60


def test_a_staff_session_ends_on_the_server_after_the_cookie_age(client, db, django_user_model):
    """Even a browser that never closes (or a copied cookie) loses the session after SESSION_COOKIE_AGE."""
    staff = django_user_model.objects.create_superuser("editor-x", "x@example.com", "Correct-Horse-Battery-9")
    assert (
        client.post("/admin/login/", {"username": staff.username, "password": "Correct-Horse-Battery-9"}).status_code
        == 302
    )
    age = timedelta(seconds=settings.SESSION_COOKIE_AGE)
    with time_machine.travel(timezone.now() + age - timedelta(minutes=1)):
        assert client.get("/admin/").status_code == 200
    with time_machine.travel(timezone.now() + age + timedelta(minutes=1)):
        response = client.get("/admin/")
        assert response.status_code == 302
        assert response["Location"].startswith("/admin/login/")


def test_the_admin_gets_the_same_protective_headers(client, db, django_user_model):
    staff = django_user_model.objects.create_superuser("editor-h", "h@example.com", "Correct-Horse-Battery-9")
    for url in ("/admin/login/",):
        response = client.get(url)
        assert response["X-Content-Type-Options"] == "nosniff"
        assert response["Referrer-Policy"] == "strict-origin-when-cross-origin"
        assert response["X-Frame-Options"] == "DENY"  # the sign-in page is never framed
        assert "camera=()" in response["Permissions-Policy"]
    client.force_login(staff)
    response = client.get("/admin/pages/")
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "frame-ancestors 'self'" in response["Content-Security-Policy"]
