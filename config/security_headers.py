"""Response headers that limit what a page may load and do: CSP and Permissions-Policy.

Two Content-Security-Policies (django-csp's format, set in ``config.settings.base``):

- ``CONTENT_SECURITY_POLICY`` for readers: scripts only from this origin or with the request's
  nonce, no inline styles, no framing (``frame-ancestors 'none'``).
- ``ADMIN_CONTENT_SECURITY_POLICY`` for ``/admin/`` (the editor, previews, choosers): Wagtail 8's
  admin still needs inline scripts and styles, so it is relaxed there, but it still loads
  nothing from other origins except the avatars and video providers listed in the setting, and
  may only be framed by this origin.

Previews are rendered by Wagtail with the page's own path (a "dummy request" through the
middleware), so they get the readers' policy, except that the admin may frame them.
"""

from django.conf import settings

from csp.constants import SELF
from csp.middleware import CSPMiddleware, PolicyParts
from csp.utils import default_config

# Browser features no page of the blog uses; "()" disables each one for every origin.
# Source of the feature names: https://github.com/w3c/webappsec-permissions-policy/blob/main/features.md
DISABLED_FEATURES = (
    "accelerometer",
    "autoplay",
    "camera",
    "display-capture",
    "geolocation",
    "gyroscope",
    "magnetometer",
    "microphone",
    "midi",
    "payment",
    "usb",
    "xr-spatial-tracking",
)


def permissions_policy() -> str:
    """The Permissions-Policy header value, e.g. ``"camera=(), geolocation=(), ..."``."""
    return ", ".join(f"{feature}=()" for feature in DISABLED_FEATURES)


def is_admin_path(path: str) -> bool:
    """True for the Wagtail admin's URLs (``ADMIN_URL_PREFIX``, default ``/admin/``)."""
    return path.startswith(getattr(settings, "ADMIN_URL_PREFIX", "/admin/"))


class SiteCSPMiddleware(CSPMiddleware):
    """django-csp's middleware choosing the admin policy for admin URLs, the strict one elsewhere.

    Per-view decorators (``csp.decorators``) still win over both, as in django-csp.
    """

    def get_policy_parts(self, request, response, report_only: bool = False) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only=report_only)
        if report_only:
            return parts
        if parts.config is None and is_admin_path(request.path_info):
            parts.config = default_config(settings.ADMIN_CONTENT_SECURITY_POLICY["DIRECTIVES"])
        elif getattr(request, "is_dummy", False) or getattr(request, "is_preview", False):
            # Wagtail renders a preview through the middleware with the page's own path, and
            # the admin shows it in a frame: the reader's policy, framable by this origin only.
            parts.replace = {**(parts.replace or {}), "frame-ancestors": [SELF]}
        return parts


class PermissionsPolicyMiddleware:
    """Adds ``Permissions-Policy`` (see ``DISABLED_FEATURES``) to every response that lacks one."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.value = permissions_policy()

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Permissions-Policy", self.value)
        return response
