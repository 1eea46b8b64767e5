"""The client's address behind the TLS proxy, for django-axes' login throttling.

Behind nginx every request comes from the proxy's address, so throttling by "user name and
address" would lock a user name out for everyone. nginx's ``proxy_add_x_forwarded_for`` appends
the address it saw to ``X-Forwarded-For``; entries to the left of it come from the client and
can be forged. So the header is believed only when the request comes from a proxy listed in
``TRUSTED_PROXY_IPS`` (environment ``TRUSTED_PROXIES``; the default lists none, so a direct
client can never choose its own address), and it is read from the right: each entry added by
another listed proxy (an ingress behind a load balancer) is skipped, and the first address that
is not a listed proxy is the client. A few lines here instead of django-ipware (which axes can
also use): the rule is this walk, and a new dependency's own reading of the header would need
the same proof.
"""

import ipaddress
from functools import lru_cache

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


@lru_cache(maxsize=8)
def trusted_networks(entries: tuple[str, ...]) -> tuple:
    """The ``ip_network`` of every entry (an address such as ``10.0.0.10`` or a network such as
    ``10.244.0.0/16``). Raises ImproperlyConfigured for anything else, ``*`` included: trusting
    every peer lets any client that reaches the app server pick its address."""
    networks = []
    for entry in entries:
        try:
            networks.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError as error:
            raise ImproperlyConfigured(
                f"TRUSTED_PROXIES entry {entry!r} is not an IP address or network (e.g. 10.0.0.10, 10.244.0.0/16)."
            ) from error
    return tuple(networks)


def _parse(value: str):
    try:
        return ipaddress.ip_address(value.strip())
    except ValueError:
        return None


def client_ip(request) -> str | None:
    """``REMOTE_ADDR``, or, when ``REMOTE_ADDR`` is a trusted proxy, the right-most
    ``X-Forwarded-For`` address that is not itself a trusted proxy. A malformed or missing entry
    stops the walk at the last address known good (the nearest proxy's). Never raises on request
    data; raises ImproperlyConfigured for a bad ``TRUSTED_PROXY_IPS``."""
    remote = request.META.get("REMOTE_ADDR")
    networks = trusted_networks(tuple(settings.TRUSTED_PROXY_IPS))
    current = _parse(remote or "")
    if current is None or not networks:
        return remote
    hops = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
    for hop in reversed(hops):
        if not any(current in network for network in networks if current.version == network.version):
            break  # the first address no trusted proxy stands for: the client
        previous = _parse(hop)
        if previous is None:
            break
        current = previous
    return str(current)
