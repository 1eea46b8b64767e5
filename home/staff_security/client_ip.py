"""The client's address behind the TLS proxy, for django-axes' login throttling.

Behind nginx every request comes from the proxy's address, so throttling by "user name and
address" would lock a user name out for everyone. nginx's ``proxy_add_x_forwarded_for`` appends
the address it saw to ``X-Forwarded-For``; entries to the left of it come from the client and
can be forged, so only the right-most one is taken, and only from a trusted proxy. A few lines
here instead of django-ipware (which axes can also use): the rule is this one comparison, and
a new dependency's own reading of the header would need the same proof.
"""

import ipaddress

from django.conf import settings


def client_ip(request) -> str | None:
    """``REMOTE_ADDR``, or the right-most ``X-Forwarded-For`` address when ``REMOTE_ADDR`` is one
    of ``TRUSTED_PROXY_IPS`` (a list of addresses from ``FORWARDED_ALLOW_IPS``; ``*`` trusts every
    peer, for app servers only an ingress can reach). A malformed forwarded value falls back to
    ``REMOTE_ADDR``; never raises."""
    remote = request.META.get("REMOTE_ADDR")
    trusted = settings.TRUSTED_PROXY_IPS
    if "*" not in trusted and remote not in trusted:
        return remote
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")[-1].strip()
    try:
        return str(ipaddress.ip_address(forwarded))
    except ValueError:
        return remote
