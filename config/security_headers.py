"""Content-Security-Policy for readers and for the admin (Permissions-Policy: django-permissions-policy,
configured by ``PERMISSIONS_POLICY`` in ``config.settings.base``).

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
