"""Staff two-step verification (home/staff_security/mfa.py, django-otp TOTP) through Wagtail's real sign-in.

Codes come from django-otp's own TOTP implementation over the device's key, as an authenticator
app would compute them.
"""

import io
import subprocess
import sys
from urllib.parse import parse_qs, urlsplit

from django.conf import settings
from django.core.management import call_command
from django.test import Client, override_settings

import pytest
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-test-password"
SETUP, VERIFY = "/admin/mfa/setup/", "/admin/mfa/verify/"


@pytest.fixture
def mfa_required():
    with override_settings(STAFF_MFA_REQUIRED=True):
        yield


@pytest.fixture
def admin_user(django_user_model):
    return django_user_model.objects.create_superuser("ada", "ada@example.com", PASSWORD)


def code_for(device: TOTPDevice, step: int | None = None) -> str:
    """The code an authenticator app shows now, or at time step ``step`` (30-second steps)."""
    device.refresh_from_db()
    totp = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    if step is not None:
        totp.time = device.t0 + step * device.step
    return f"{totp.token():0{device.digits}d}"


def sign_in(user) -> tuple[Client, object]:
    """Sign in with the password through Wagtail's login view: (client, response followed)."""
    client = Client()
    response = client.post("/admin/login/", {"username": user.username, "password": PASSWORD}, follow=True)
    return client, response


def path_of(response) -> str:
    return urlsplit(response.redirect_chain[-1][0]).path if response.redirect_chain else response.request["PATH_INFO"]


def enrol(client, user) -> TOTPDevice:
    """Open setup, then confirm the shown key with its current code."""
    page = client.get(SETUP)
    assert page.status_code == 200
    device = TOTPDevice.objects.get(user=user, confirmed=False)
    response = client.post(SETUP, {"code": code_for(device), "next": "/admin/pages/"})
    assert response.status_code == 302
    assert response["Location"] == "/admin/pages/"
    device.refresh_from_db()
    assert device.confirmed
    return device


@pytest.mark.parametrize("role", ["moderator", "admin_user"])
def test_a_required_role_must_enrol_before_any_admin_page(request, mfa_required, role):
    user = request.getfixturevalue(role)
    client, response = sign_in(user)
    assert path_of(response) == SETUP
    html = response.content.decode()
    assert "<svg" in html and "requires two-step verification" in html
    # Every admin page, and readers' pages too, send this unverified session to the setup page.
    for path in ("/admin/", "/admin/pages/", "/admin/images/", "/blog/"):
        redirect = client.get(path)
        assert redirect.status_code == 302
        target = urlsplit(redirect["Location"])
        assert target.path == SETUP
        assert parse_qs(target.query)["next"] == [path]
    enrol(client, user)
    assert client.get("/admin/").status_code == 200
    assert client.get("/admin/pages/").status_code == 200


def test_a_wrong_code_does_not_enrol(mfa_required, moderator):
    client, _ = sign_in(moderator)
    client.get(SETUP)
    device = TOTPDevice.objects.get(user=moderator)
    wrong = f"{(int(code_for(device)) + 1) % 1_000_000:06d}"
    for code in (wrong, "12345", "abcdef", "１２３４５６"):
        response = client.post(SETUP, {"code": code})
        assert response.status_code == 200
        assert "error" in response.content.decode()
    device.refresh_from_db()
    assert not device.confirmed
    assert client.get("/admin/").status_code == 302


@override_settings(OTP_TOTP_THROTTLE_FACTOR=0)
def test_an_enrolled_moderator_enters_a_code_after_each_sign_in(mfa_required, moderator):
    client, _ = sign_in(moderator)
    device = enrol(client, moderator)

    second, response = sign_in(moderator)
    assert path_of(response) == VERIFY
    assert second.get("/admin/").status_code == 302
    # A code already used (at enrolment) is refused: django-otp remembers the last time step.
    response = second.post(VERIFY, {"code": code_for(device, step=device.last_t)})
    assert response.status_code == 200
    assert "not valid" in response.content.decode()
    # The next step's code (within the allowed drift) is accepted.
    response = second.post(VERIFY, {"code": code_for(device, step=device.last_t + 1), "next": "/admin/pages/"})
    assert response.status_code == 302
    assert response["Location"] == "/admin/pages/"
    assert second.get("/admin/").status_code == 200


def test_repeated_wrong_codes_are_throttled(mfa_required, moderator):
    client, _ = sign_in(moderator)
    device = enrol(client, moderator)
    second, _ = sign_in(moderator)
    wrong = f"{(int(code_for(device, step=device.last_t + 1)) + 1) % 1_000_000:06d}"
    assert second.post(VERIFY, {"code": wrong}).status_code == 200
    # Right after a failure even the right code is refused (django-otp's growing delay).
    response = second.post(VERIFY, {"code": code_for(device, step=device.last_t + 1)})
    assert response.status_code == 200
    assert second.get("/admin/").status_code == 302
    device.refresh_from_db()
    assert device.throttling_failure_count >= 1


def test_verify_never_redirects_off_site(mfa_required, moderator):
    client, _ = sign_in(moderator)
    device = enrol(client, moderator)
    second, _ = sign_in(moderator)
    response = second.post(VERIFY, {"code": code_for(device, step=device.last_t + 1), "next": "https://evil.example/"})
    assert response.status_code == 302
    assert response["Location"] == "/admin/"


def test_a_password_alone_cannot_replace_an_enrolled_app(mfa_required, moderator):
    client, _ = sign_in(moderator)
    enrol(client, moderator)
    second, _ = sign_in(moderator)
    response = second.get(SETUP + "?replace=1")
    assert response.status_code == 302
    assert urlsplit(response["Location"]).path == VERIFY
    assert TOTPDevice.objects.filter(user=moderator).count() == 1


def test_editors_are_not_forced_but_may_enrol(mfa_required, editor):
    client, response = sign_in(editor)
    assert path_of(response) == "/admin/"
    assert response.status_code == 200
    account = client.get("/admin/account/").content.decode()
    assert SETUP in account and "currently off" in account
    setup_page = client.get(SETUP).content.decode()
    assert "optional for your role" in setup_page
    enrol(client, editor)
    # Enrolled voluntarily: from now on the editor enters a code too.
    _, response = sign_in(editor)
    assert path_of(response) == VERIFY


def test_the_setting_switches_enforcement_off(moderator):
    assert settings.STAFF_MFA_REQUIRED is False  # the development and test default
    client, response = sign_in(moderator)
    assert path_of(response) == "/admin/"
    assert response.status_code == 200


def test_with_enforcement_off_an_enrolled_user_still_verifies(moderator):
    client, _ = sign_in(moderator)
    enrol(client, moderator)
    _, response = sign_in(moderator)
    assert path_of(response) == VERIFY


def test_sign_in_and_health_stay_reachable_unverified(mfa_required, moderator):
    client, _ = sign_in(moderator)
    assert client.get("/healthz").status_code == 200
    assert client.post("/admin/logout/").status_code == 302
    assert client.get("/admin/").status_code == 302  # signed out: Wagtail's login
    assert urlsplit(client.get("/admin/")["Location"]).path == "/admin/login/"


@pytest.mark.parametrize("enrolled", [False, True], ids=["setup", "verify"])
def test_the_code_pages_get_the_admin_icons_and_strings_unverified(mfa_required, moderator, enrolled):
    """The setup and verify pages load the admin's icon sprite and its translated strings: both
    are served before the code is entered (a redirect put a second verify page into the first),
    while every other admin address still waits for the code."""
    client, _ = sign_in(moderator)
    if enrolled:
        enrol(client, moderator)
        client, response = sign_in(moderator)
    page = client.get(VERIFY if enrolled else SETUP)
    assert page.status_code == 200
    html = page.content.decode()
    for path in ("/admin/sprite/", "/admin/jsi18n/"):
        assert f'"{path}' in html, path  # the page asks for it
        response = client.get(path)
        assert response.status_code == 200, path
        assert b"verification code" not in response.content.lower()
    assert client.get("/admin/pages/").status_code == 302


def test_mfa_reset_removes_the_app(mfa_required, moderator):
    client, _ = sign_in(moderator)
    enrol(client, moderator)
    call_command("mfa_reset", moderator.username, stdout=io.StringIO())
    assert not TOTPDevice.objects.filter(user=moderator).exists()
    _, response = sign_in(moderator)
    assert path_of(response) == SETUP


def test_production_requires_mfa_by_default():
    script = "from django.conf import settings; print(settings.STAFF_MFA_REQUIRED, settings.STAFF_MFA_REQUIRED_GROUPS)"
    env = {
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": "x" * 64,
        "ALLOWED_HOSTS": "blog.example.com",
        "PATH": "/usr/bin:/bin",
    }
    out = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {script}"],
        env=env,
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip() == "True ['Moderators', 'Administrators']"
