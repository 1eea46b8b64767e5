"""Staff sign-in: django-axes throttles wrong passwords with a clear message; passwords are strong."""

from datetime import timedelta

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.test import Client, override_settings
from django.utils import timezone

from wagtail.users.forms import UserCreationForm

import pytest
import time_machine

pytestmark = pytest.mark.django_db

PASSWORD = "Right-Horse-Battery-77"
LIMIT = settings.AXES_FAILURE_LIMIT


@pytest.fixture
def axes_on():
    # The test settings switch axes off (Django's test client logs in without a request).
    with override_settings(AXES_ENABLED=True):
        yield


@pytest.fixture
def editor(django_user_model):
    return django_user_model.objects.create_user(
        "editor-l", "e@example.com", PASSWORD, is_staff=True, is_superuser=True
    )


def sign_in(client, username, password, ip="10.0.0.1"):
    return client.post("/admin/login/", {"username": username, "password": password}, REMOTE_ADDR=ip)


def fail(client, username, times, ip="10.0.0.1"):
    """``times`` wrong passwords: the login form again each time, the lockout page at the limit."""
    for attempt in range(1, times + 1):
        response = sign_in(client, username, "wrong-password", ip=ip)
        assert response.status_code == (429 if attempt >= LIMIT else 200)


def test_the_limit_is_five_wrong_passwords_and_a_quarter_hour_pause():
    assert LIMIT == 5
    assert settings.AXES_COOLOFF_TIME == 0.25
    assert settings.AUTHENTICATION_BACKENDS[0] == "axes.backends.AxesBackend"
    assert settings.MIDDLEWARE[-1] == "axes.middleware.AxesMiddleware"


def test_wrong_passwords_lock_the_account_with_a_clear_message(axes_on, editor):
    client = Client()
    fail(client, editor.username, LIMIT - 1)
    response = sign_in(client, editor.username, "wrong-password")
    assert response.status_code == 429
    html = response.content.decode()
    assert "Sign-in paused." in html
    assert f"There were {LIMIT} wrong passwords in a row" in html
    assert "0:15:00" in html
    # Even the right password is refused while the account is locked.
    response = sign_in(client, editor.username, PASSWORD)
    assert response.status_code == 429
    assert "_auth_user_id" not in client.session


def test_the_lock_lifts_after_the_cool_off(axes_on, editor):
    client = Client()
    fail(client, editor.username, LIMIT)
    assert sign_in(client, editor.username, PASSWORD).status_code == 429
    with time_machine.travel(timezone.now() + timedelta(minutes=16), tick=False):
        response = sign_in(client, editor.username, PASSWORD)
    assert response.status_code == 302
    assert response["Location"] == "/admin/"


def test_a_success_resets_the_count(axes_on, editor):
    client = Client()
    fail(client, editor.username, LIMIT - 1)
    assert sign_in(client, editor.username, PASSWORD).status_code == 302
    client.logout()
    fail(client, editor.username, LIMIT - 1)
    assert sign_in(client, editor.username, PASSWORD).status_code == 302


def test_the_lock_is_per_user_and_address(axes_on, editor, django_user_model):
    other = django_user_model.objects.create_user("editor-m", "m@example.com", PASSWORD, is_staff=True)
    other.is_superuser = True
    other.save()
    fail(Client(), editor.username, LIMIT)
    # Another account from the same address, and the same account from another address, still sign in.
    assert sign_in(Client(), other.username, PASSWORD).status_code == 302
    assert sign_in(Client(), editor.username, PASSWORD, ip="10.0.0.2").status_code == 302
    assert sign_in(Client(), editor.username, PASSWORD).status_code == 429


@pytest.mark.parametrize(
    ("password", "reason"),
    [
        ("Sh0rt-pw", "too short"),
        ("password1234", "too common"),
        ("73829104857362", "entirely numeric"),
        ("editor-l1", "too similar"),
    ],
)
def test_weak_passwords_are_refused(editor, password, reason):
    with pytest.raises(ValidationError) as error:
        validate_password(password, user=editor)
    assert reason in " ".join(error.value.messages)


def test_wagtails_user_form_applies_the_validators(db):
    data = {
        "username": "new-editor",
        "email": "n@example.com",
        "first_name": "New",
        "last_name": "Editor",
        "password1": "password1234",
        "password2": "password1234",
    }
    form = UserCreationForm(data=data)
    assert not form.is_valid()
    assert "too common" in " ".join(form.errors.get("password2", []) + form.errors.get("password1", []))
    strong = {**data, "password1": "Tall-Cedar-Quiet-River-5", "password2": "Tall-Cedar-Quiet-River-5"}
    assert UserCreationForm(data=strong).is_valid(), UserCreationForm(data=strong).errors


@override_settings(TRUSTED_PROXY_IPS=["10.0.0.10"])
def test_behind_the_proxy_the_lock_is_per_client_address_not_the_proxys(axes_on, editor):
    """nginx (10.0.0.10) appends the client's address to X-Forwarded-For; what the client put
    there itself is ignored, and a client talking to the app server directly cannot forge it."""
    from axes.models import AccessAttempt

    def via_proxy(client_address, forged=""):
        forwarded = f"{forged}, {client_address}" if forged else client_address
        return Client().post(
            "/admin/login/",
            {"username": editor.username, "password": "wrong-password"},
            REMOTE_ADDR="10.0.0.10",
            HTTP_X_FORWARDED_FOR=forwarded,
        )

    for _ in range(LIMIT):
        via_proxy("203.0.113.9", forged="198.51.100.1")
    assert via_proxy("203.0.113.9").status_code == 429
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"203.0.113.9"}
    # Another reader behind the same proxy can still sign in.
    response = Client().post(
        "/admin/login/",
        {"username": editor.username, "password": PASSWORD},
        REMOTE_ADDR="10.0.0.10",
        HTTP_X_FORWARDED_FOR="192.0.2.7",
    )
    assert response.status_code == 302
    # Not from the proxy: X-Forwarded-For is not believed.
    Client().post(
        "/admin/login/",
        {"username": editor.username, "password": "wrong-password"},
        REMOTE_ADDR="192.0.2.50",
        HTTP_X_FORWARDED_FOR="192.0.2.7",
    )
    assert AccessAttempt.objects.filter(ip_address="192.0.2.50").exists()


@pytest.mark.parametrize(
    ("trusted", "remote", "forwarded", "expected"),
    [
        (["10.0.0.10"], "10.0.0.10", "198.51.100.1, 203.0.113.9", "203.0.113.9"),
        (["10.0.0.10"], "10.0.0.10", "not-an-address", "10.0.0.10"),
        (["10.0.0.10"], "10.0.0.10", "", "10.0.0.10"),
        (["10.0.0.10"], "10.0.0.10", " , ", "10.0.0.10"),
        (["10.0.0.10"], "192.0.2.50", "203.0.113.9", "192.0.2.50"),
        # The default trusts no proxy: whatever the peer, the header is ignored.
        ([], "127.0.0.1", "203.0.113.9", "127.0.0.1"),
        ([], "10.0.0.10", "203.0.113.9", "10.0.0.10"),
        ([], "::1", "2001:db8::1", "::1"),
        # Kubernetes: the ingress pods' network, behind a cloud load balancer that is listed too.
        (["10.244.0.0/16"], "10.244.1.7", "2001:db8::1", "2001:db8::1"),
        (["10.244.0.0/16", "10.0.0.2"], "10.244.1.7", "198.51.100.1, 203.0.113.9, 10.0.0.2", "203.0.113.9"),
        (["10.244.0.0/16"], "10.245.0.1", "203.0.113.9", "10.245.0.1"),
        (["10.244.0.0/16", "2001:db8:ffff::/48"], "2001:db8:ffff::5", "203.0.113.9", "203.0.113.9"),
        # Every entry a proxy: the left-most is the nearest thing to a client there is.
        (["10.0.0.0/8"], "10.0.0.1", "10.0.0.2, 10.0.0.3", "10.0.0.2"),
        # A forged entry the nearest proxy did not add is never reached.
        (["10.0.0.10"], "10.0.0.10", "10.0.0.10, 203.0.113.9", "203.0.113.9"),
    ],
)
def test_client_address_for_throttling(rf, settings, trusted, remote, forwarded, expected):
    from home.staff_security.client_ip import client_ip

    settings.TRUSTED_PROXY_IPS = trusted
    request = rf.get("/admin/login/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR=forwarded)
    assert client_ip(request) == expected


@pytest.mark.parametrize("entry", ["*", "everyone", "10.0.0.300", "10.0.0.0/33", "localhost"])
def test_trusted_proxies_must_be_addresses_or_networks(rf, settings, entry):
    from django.core.exceptions import ImproperlyConfigured

    from home.staff_security.client_ip import client_ip

    settings.TRUSTED_PROXY_IPS = [entry]
    with pytest.raises(ImproperlyConfigured):
        client_ip(rf.get("/admin/login/", REMOTE_ADDR="10.0.0.10", HTTP_X_FORWARDED_FOR="203.0.113.9"))


def test_the_default_trusts_no_proxy():
    from django.conf import settings

    assert settings.TRUSTED_PROXY_IPS == []
