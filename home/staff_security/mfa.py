"""Staff multi-factor authentication: TOTP codes (authenticator apps) in front of the Wagtail admin.

django-otp provides the TOTP devices (``django_otp.plugins.otp_totp``: key, drift, replay and
throttling rules) and the per-session "verified" flag (``OTPMiddleware``, ``django_otp.login``).
It has no Wagtail integration, and wagtail-2fa (which had one) fails to import on Wagtail 8
(labd/wagtail-2fa#283), so the few pieces that connect the two are here, modelled on
wagtail-2fa's: a middleware and two admin views, reached after Wagtail's own sign-in.

Rules (``config.settings.base``):

- With ``STAFF_MFA_REQUIRED`` on (production's default), superusers and members of
  ``STAFF_MFA_REQUIRED_GROUPS`` (Moderators, Administrators) must enrol an authenticator app
  before any other page, and enter a code after each sign-in.
- Everyone else (Editors) may enrol from Account → "Two-step verification"; once enrolled, they
  too enter a code after each sign-in, whatever the setting.
- An unverified session sees only the sign-in, sign-out and these two views: every other URL
  (admin and public pages alike) redirects to them.
- Only a verified session may enrol a new app once one is confirmed (a stolen password alone
  cannot replace the app).
"""

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.safestring import mark_safe
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters

import segno
from django_otp import devices_for_user, match_token
from django_otp import login as otp_login
from django_otp.plugins.otp_totp.models import TOTPDevice

SETUP_URL_NAME = "staff_mfa_setup"
VERIFY_URL_NAME = "staff_mfa_verify"
# Views an unverified session may reach; everything else redirects to setup or verify.
OPEN_URL_NAMES = {
    "wagtailadmin_login",
    "wagtailadmin_logout",
    SETUP_URL_NAME,
    VERIFY_URL_NAME,
    "healthz",
    "readyz",
    # What the setup and verify pages load themselves: the admin's icons and its translated
    # strings, the same for everyone. Redirected, the verify page was loaded into the verify page
    # as its icon sprite: two code forms, the top one posting to the sprite's address.
    "wagtailadmin_sprite",
    "wagtailadmin_javascript_catalog",
}


def has_confirmed_device(user) -> bool:
    """True once the user has finished enrolling an authenticator app."""
    return any(True for _ in devices_for_user(user, confirmed=True))


def role_requires_mfa(user) -> bool:
    """True for superusers and members of STAFF_MFA_REQUIRED_GROUPS, when STAFF_MFA_REQUIRED is on."""
    if not settings.STAFF_MFA_REQUIRED:
        return False
    return user.is_superuser or user.groups.filter(name__in=settings.STAFF_MFA_REQUIRED_GROUPS).exists()


def needs_verification(user) -> bool:
    """True when this signed-in user must enter a code before using the site."""
    return role_requires_mfa(user) or has_confirmed_device(user)


class StaffMFAMiddleware:
    """Sends a signed-in, unverified user who needs MFA to setup (no app yet) or verify.

    After ``django_otp.middleware.OTPMiddleware`` (which gives ``request.user.is_verified``).
    Works in ``process_view`` so the view's URL name is known; static files (WhiteNoise) and
    unknown URLs (404) never reach it.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated or user.is_verified():
            return None
        match = getattr(request, "resolver_match", None)
        if (match is not None and match.url_name in OPEN_URL_NAMES) or not needs_verification(user):
            return None
        target = VERIFY_URL_NAME if has_confirmed_device(user) else SETUP_URL_NAME
        return redirect(f"{reverse(target)}?{urlencode({'next': request.get_full_path()})}")


def _next_url(request) -> str:
    """The ``next`` parameter if it is a URL on this site, else the admin's dashboard."""
    candidate = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return reverse("wagtailadmin_home")


class CodeForm(forms.Form):
    """The six digits an authenticator app shows; spaces are ignored."""

    code = forms.CharField(
        label="Code from your authenticator app",
        max_length=12,
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric", "autofocus": True}),
    )

    def clean_code(self) -> str:
        code = self.cleaned_data["code"].replace(" ", "")
        if not code.isascii() or not code.isdigit() or len(code) != 6:
            raise forms.ValidationError("Enter the 6 digits your authenticator app shows.")
        return code


def _pending_device(user) -> TOTPDevice:
    """The user's unconfirmed TOTP device (created once; its key is shown until confirmed)."""
    device = TOTPDevice.objects.filter(user=user, confirmed=False).order_by("pk").first()
    return device or TOTPDevice.objects.create(user=user, name="Authenticator app", confirmed=False)


def _qr_svg(device: TOTPDevice) -> str:
    """An inline SVG QR code of the device's otpauth:// URL (no script, no style: CSP-safe)."""
    return mark_safe(segno.make(device.config_url, error="m").svg_inline(scale=5, border=2))  # noqa: S308


def _secret(device: TOTPDevice) -> str:
    """The key in base32, in groups of four, for apps where the QR code cannot be scanned."""
    from base64 import b32encode

    raw = b32encode(device.bin_key).decode().rstrip("=")
    return " ".join(raw[i : i + 4] for i in range(0, len(raw), 4))


@never_cache
@sensitive_post_parameters("code")
@login_required(login_url="wagtailadmin_login")
def setup(request):
    """Enrol an authenticator app: show a QR code and key, confirm with a first code.

    GET shows the code (or, when the user already has a confirmed app, the current state);
    POST ``code`` confirms the pending device, marks this session verified and redirects to
    ``next``. An unverified user who already has an app is sent to verify instead.
    """
    user = request.user
    enrolled = has_confirmed_device(user)
    if enrolled and not user.is_verified():
        return redirect(f"{reverse(VERIFY_URL_NAME)}?{urlencode({'next': _next_url(request)})}")
    if enrolled and request.GET.get("replace") != "1" and request.method != "POST":
        return render(
            request, "staff_mfa/setup.html", {"enrolled": True, "required": role_requires_mfa(user), "next": ""}
        )
    device = _pending_device(user)
    form = CodeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        if device.verify_token(form.cleaned_data["code"]):
            device.confirmed = True
            device.save()
            # One app at a time: a replaced app stops working.
            TOTPDevice.objects.filter(user=user).exclude(pk=device.pk).delete()
            otp_login(request, device)
            messages.success(request, "Two-step verification is on: you will enter a code after each sign-in.")
            return redirect(_next_url(request))
        form.add_error("code", "That code did not match. Check the app's clock and enter the newest code.")
    return render(
        request,
        "staff_mfa/setup.html",
        {
            "form": form,
            "enrolled": enrolled,
            "required": role_requires_mfa(user),
            "qr_svg": _qr_svg(device),
            "secret": _secret(device),
            "next": request.POST.get("next") or request.GET.get("next", ""),
        },
    )


@never_cache
@sensitive_post_parameters("code")
@login_required(login_url="wagtailadmin_login")
def verify(request):
    """Ask for a code after sign-in. POST ``code``: a match marks the session verified.

    django-otp refuses a code used before (replay) and slows down repeated failures
    (``OTP_TOTP_THROTTLE_FACTOR``: 1, 2, 4... seconds); both show as a form error.
    """
    user = request.user
    if not has_confirmed_device(user):
        return redirect(f"{reverse(SETUP_URL_NAME)}?{urlencode({'next': _next_url(request)})}")
    if user.is_verified():
        return redirect(_next_url(request))
    form = CodeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        device = match_token(user, form.cleaned_data["code"])
        if device is not None:
            otp_login(request, device)
            return redirect(_next_url(request))
        form.add_error("code", "That code is not valid (or was already used). Wait for the next one and try again.")
    return render(
        request,
        "staff_mfa/verify.html",
        {"form": form, "next": request.POST.get("next") or request.GET.get("next", "")},
    )
