"""The one check for links editors type: call-to-action buttons, rich text, header and footer.

A link is a site path (``/blog/``), a fragment (``#costs``) or a full ``http(s)://``,
``mailto:`` or ``tel:`` address. Never ``javascript:`` and friends, and never a scheme-relative
path, which looks like a site path but leads to another host: ``//evil.example``, and every
spelling browsers read the same way. Browsers parse links by the WHATWG URL standard
(https://url.spec.whatwg.org/#concept-basic-url-parser), which removes tabs and newlines
anywhere in the URL and reads ``\\`` as ``/`` in http(s) URLs, so ``/\\evil.example``,
``\\\\evil.example`` and ``/<tab>/evil.example`` all lead to evil.example.
"""

import contextlib
import ipaddress
import re
from urllib.parse import unquote

from django.core.exceptions import ValidationError

LINK_MESSAGE = "Enter a site path starting with / or a full http(s)://, mailto: or tel: address."
OTHER_HOST_MESSAGE = (
    "Enter a site path starting with / (a single slash, e.g. /blog/): this link leads to another website. "
    "For another website, enter its full https:// address."
)
CONTROL_MESSAGE = "Remove the tabs, line breaks or other control characters from the link."

ALLOWED_START = re.compile(r"(/(?!/)|#|https?://|mailto:|tel:)", re.IGNORECASE)
# What the URL parser removes (tab, LF, CR) or refuses; any of them in a link is a paste error.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f]")


def as_browsers_read(url: str) -> str:
    """``url`` as a browser's URL parser reads it before resolving: leading and trailing C0
    controls and spaces stripped, tabs and newlines removed, ``\\`` read as ``/`` (WHATWG URL,
    "basic URL parser", for the http(s) pages of this site)."""
    url = url.strip("".join(chr(code) for code in range(0x21)))
    return re.sub(r"[\t\n\r]", "", url).replace("\\", "/")


def is_other_host_path(url: str) -> bool:
    """True when ``url`` is a scheme-relative path, in any spelling (``//host``, ``/\\host``,
    ``\\\\host``, with tabs or newlines inside): it leads to another host."""
    return as_browsers_read(url).startswith("//")


def validate_link(value: str) -> None:
    """Django validator for a link an editor types (see the module docstring for the rule).

    Raises ValidationError with a message saying what to fix: control characters, a
    scheme-relative path, or any other scheme or form.
    """
    if CONTROL_CHARACTERS.search(value):
        raise ValidationError(CONTROL_MESSAGE, code="invalid")
    if is_other_host_path(value):
        raise ValidationError(OTHER_HOST_MESSAGE, code="invalid")
    if not ALLOWED_START.match(value):
        raise ValidationError(LINK_MESSAGE, code="invalid")


# Links into this site's CMS admin --------------------------------------------------------------
#
# The header's Login is for the product's customers; no reader page links the CMS admin
# (docs/features.md). A link leads into the admin when a browser, and the servers in front of
# Django, read it as a path under the admin's (``reverse("wagtailadmin_home")``) on one of this
# site's hosts. Read as they do: the browser's reading above, ``.``/``..`` segments and their
# ``%2e`` spellings resolved, repeated slashes merged (nginx's ``merge_slashes``), the path
# percent-decoded (the WSGI server decodes ``%61`` and ``%2F``; each further round of decoding
# is tried too), the host percent-decoded, mapped to ASCII (IDNA, so full-width letters and
# dots count) and read as an IPv4 address in the shorthand browsers accept (``127.1``,
# ``0x7f.0.0.1``, ``2130706433``). The path is compared without regard to case: Django's URL
# patterns are case-sensitive (``/ADMIN/`` is a 404 here), but a link spelling the admin in
# another case is never a product's login, and a front end may fold case.

_SCHEME = re.compile(r"([a-zA-Z][a-zA-Z0-9+.\-]*):")
_HEX = re.compile(r"0[xX][0-9a-fA-F]*")
_OCTAL = re.compile(r"0[0-7]+")
_DECIMAL = re.compile(r"[0-9]+")
_SINGLE_DOT = {".", "%2e"}
_DOUBLE_DOT = {"..", ".%2e", "%2e.", "%2e%2e"}
# Rounds of percent-decoding tried on a path (``%2561`` -> ``%61`` -> ``a``).
_DECODING_ROUNDS = 4


def points_at_cms_admin(url: str) -> bool:
    """Whether ``url`` leads into this site's CMS admin: a site path or a path on any of this
    site's hosts (``own_hosts``, loopback addresses) that is the admin's, in any spelling browsers
    and servers read the same way (see the comment above)."""
    from django.urls import reverse

    admin = reverse("wagtailadmin_home").lower()  # "/admin/"
    hosts = None
    for host, path in _hosts_and_paths(url):
        if not any(_is_under(candidate.lower(), admin) for candidate in _paths_as_servers_read(path)):
            continue
        if host is None:
            return True
        if hosts is None:
            hosts = own_hosts()
        if _is_own_host(_canonical_host(host), hosts):
            return True
    return False


def own_hosts() -> tuple[set[str], list[str]]:
    """This site's host names (canonical, as ``_canonical_host`` makes them) and the domain
    patterns of ``ALLOWED_HOSTS`` (``.example.com``: the domain and its subdomains): every
    Wagtail site's hostname, the hosts of ``WAGTAILADMIN_BASE_URL``, ``WAGTAIL_SITE_ROOT_URL`` and
    ``WAGTAILAPI_BASE_URL``, and the literal entries of ``ALLOWED_HOSTS`` (not ``*``). Loopback
    addresses are this site's too (``_is_own_host``)."""
    from django.conf import settings

    from wagtail.models import Site

    names = set(Site.objects.values_list("hostname", flat=True))
    for setting in ("WAGTAILADMIN_BASE_URL", "WAGTAIL_SITE_ROOT_URL", "WAGTAILAPI_BASE_URL"):
        for host, _path in _hosts_and_paths(getattr(settings, setting, "") or ""):
            if host:
                names.add(host)
    domains = []
    for entry in settings.ALLOWED_HOSTS:
        if entry.startswith("."):
            domains.append(_canonical_host(entry[1:]))
        elif entry != "*":
            names.add(entry)
    return {_canonical_host(name) for name in names}, domains


def _hosts_and_paths(url: str):
    """``(host or None, path)`` for each way ``url`` may be read: None for this site's own host
    (a site path; a relative path is resolved against ``/``, where it reaches furthest). Nothing
    for a fragment, a query or a scheme other than http(s)."""
    url = as_browsers_read(url)
    scheme = _SCHEME.match(url)
    if scheme:
        if scheme.group(1).lower() not in ("http", "https"):
            return
        rest = url[scheme.end() :]
        if not rest.startswith("/" * 2):
            # "http:/admin/" on a page served over http is a path on its host; over https, and
            # with no page to resolve against, the slashes are skipped and "admin" is the host.
            yield None, _path_part("/" + rest.lstrip("/"))
        yield _authority_and_path(rest.lstrip("/"))
    elif url.startswith("/" * 2):
        yield _authority_and_path(url.lstrip("/"))
    elif url and url[0] not in "?#":
        yield None, _path_part(url if url.startswith("/") else "/" + url)


def _authority_and_path(rest: str) -> tuple[str, str]:
    """The host and path of ``rest``, what follows ``scheme://``: the authority ends at the first
    ``/``, ``?`` or ``#``; user information (up to the last ``@``) and the port are dropped."""
    end = min((index for index in (rest.find(mark) for mark in "/?#") if index >= 0), default=len(rest))
    authority, path = rest[:end], _path_part(rest[end:] or "/")
    host_and_port = authority.rpartition("@")[2]
    if host_and_port.startswith("["):  # an IPv6 address, whose colons are not the port's
        return host_and_port.partition("]")[0] + "]", path
    return host_and_port.partition(":")[0], path


def _path_part(url: str) -> str:
    """``url`` (starting with ``/``, or empty) up to its query or fragment."""
    for mark in "?#":
        url = url.partition(mark)[0]
    return url or "/"


def _paths_as_servers_read(path: str):
    """``path`` with dot segments resolved and repeated slashes merged, then again after each
    round of percent-decoding until nothing changes."""
    for _round in range(_DECODING_ROUNDS):
        yield _normalised_path(path)
        decoded = unquote(path)
        if decoded == path:
            return
        path = decoded if decoded.startswith("/") else "/" + decoded


def _normalised_path(path: str) -> str:
    """``path`` (starting with ``/``) with ``.`` and ``..`` segments (and their ``%2e``
    spellings) resolved as browsers resolve them, and empty segments (repeated slashes) dropped."""
    segments = path.split("/")[1:]
    kept: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment.lower() in _DOUBLE_DOT:
            if kept:
                kept.pop()
            segment = ""
        elif segment.lower() in _SINGLE_DOT:
            segment = ""
        if segment or last:
            kept.append(segment)
    return "/" + "/".join(kept)


def _is_under(path: str, prefix: str) -> bool:
    """Whether ``path`` is ``prefix`` (ending in ``/``), under it, or ``prefix`` without its
    final slash (which Django's ``APPEND_SLASH`` redirects to ``prefix``)."""
    return path.startswith(prefix) or path == prefix.rstrip("/")


def _canonical_host(host: str) -> str:
    """``host`` as browsers compare it: percent-decoded, IDNA-mapped to lower-case ASCII, any
    final dot dropped (as Django's ``validate_host`` does), IPv4 in dotted decimal and IPv6
    compressed in brackets. A host that does not map is returned lower-cased."""
    host = unquote(host).strip()
    if host.startswith("[") and host.endswith("]"):
        try:
            return f"[{ipaddress.IPv6Address(host[1:-1]).compressed}]"
        except ValueError:
            return host.lower()
    with contextlib.suppress(UnicodeError):  # an empty or over-long label
        host = host.encode("idna").decode("ascii")
    host = host.lower().rstrip(".")
    address = _ipv4(host)
    return str(address) if address is not None else host


def _ipv4(host: str) -> ipaddress.IPv4Address | None:
    """``host`` read as the WHATWG URL standard's IPv4 parser reads a host whose last label is a
    number: one to four parts, each decimal, octal (``0``-prefixed) or hex (``0x``), the last
    filling the remaining bytes. None when it is not such an address."""
    parts = host.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()
    if not parts or len(parts) > 4:
        return None
    numbers = []
    for part in parts:
        if _HEX.fullmatch(part):
            numbers.append(int(part[2:] or "0", 16))
        elif _OCTAL.fullmatch(part):
            numbers.append(int(part, 8))
        elif _DECIMAL.fullmatch(part):
            numbers.append(int(part))
        else:
            return None
    if any(number > 255 for number in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        return None
    value = numbers[-1] + sum(number * 256 ** (3 - index) for index, number in enumerate(numbers[:-1]))
    return ipaddress.IPv4Address(value)


def _is_own_host(host: str, hosts: tuple[set[str], list[str]]) -> bool:
    """Whether ``host`` (canonical) is one of ``own_hosts`` or a loopback or unspecified address
    (``localhost`` and its subdomains, ``127.0.0.0/8``, ``0.0.0.0``, ``[::1]``, ``[::]``, IPv4 ones
    mapped into IPv6): a link there opens this site on the machine that serves it."""
    names, domains = hosts
    if host in names or any(host == domain or host.endswith("." + domain) for domain in domains):
        return True
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host[1:-1] if host.startswith("[") else host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_unspecified
