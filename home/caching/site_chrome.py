"""What every page needs besides its own content, kept in process memory for one cache generation.

Every page shows the same *chrome*: the Wagtail ``Site`` serving the request (and its root page),
the header and footer settings, the blog index link and feed links, the topic navigation, the
breadcrumb trail above it, and whether any view restriction exists. Looked up per request that is
5-8 SQL queries on every page, always with the same answers. ``memoized(key, build)`` keeps each
answer in this process until the page cache's *generation* token changes (``home.caching.page_cache``):
every change a reader could see replaces the token (``home.caching.invalidation``), so the chrome
is invalidated by exactly the same events as the cached pages, and never outlives them.

How a process knows the token changed: ``PageCacheMiddleware`` reads the token from Django's
cache at the start of each request (one round trip, shared with the page-cache lookup) and calls
``begin_request``; a change in this process (``bump_generation``) clears the memo at once.

When the memo is not used (``build()`` runs every time, as if there were no memo):
- outside a request (management commands, the scheduler, code called directly in tests): there
  is no fresh token to check against;
- inside a real transaction (not a test case's): values read there may be rolled back, and a
  rollback does not replace the token;
- with ``SITE_CHROME_CACHE`` off: the token must be shared by every process that changes
  content, which Django's local-memory cache is not (``make run`` runs the scheduler in a process
  of its own), so it is on only with a shared cache (Redis in production) and in the tests.

Values are shared by every request the process serves in that generation: callers must treat
them as read-only.
"""

import contextvars
import threading

from django.conf import settings
from django.db import connection

# Keys are per site, listing, author or parent page, so a site has a few dozen; the bound keeps
# a flood of odd requests (unknown hosts, many authors' pages) from growing the memo unchecked.
MAX_ENTRIES = 1000

_active = contextvars.ContextVar("site_chrome_active", default=None)
_lock = threading.Lock()
_state = {"generation": None, "values": {}}


def begin_request(generation: str) -> contextvars.Token:
    """Use the memo for the current request, emptied first if ``generation`` is not the one it
    holds. Returns the token to pass to ``end_request``."""
    with _lock:
        if _state["generation"] != generation:
            _state["generation"], _state["values"] = generation, {}
    # The value is the request's generation (read by ``current_generation``) or None when off.
    return _active.set(generation if settings.SITE_CHROME_CACHE else None)


def end_request(token: contextvars.Token) -> None:
    """Stop using the memo (the request is over)."""
    _active.reset(token)


def generation_changed(generation: str | None = None) -> None:
    """Empty the memo: this process started ``generation`` (None: the next request's token decides)."""
    with _lock:
        _state["generation"], _state["values"] = generation, {}


def current_generation() -> str | None:
    """The page-cache generation this request is served in while the memo is used, else None."""
    return _active.get() if is_active() else None


def is_active() -> bool:
    """Whether ``memoized`` remembers values now (see the module docstring)."""
    return bool(_active.get()) and not _in_real_transaction()


def _in_real_transaction() -> bool:
    # A test case's own atomic blocks are flagged by Django (the flag its ``durable`` check uses).
    return any(not getattr(block, "_from_testcase", False) for block in connection.atomic_blocks)


def memoized(key, build):
    """``build()``'s value, remembered under ``key`` (hashable) for the current generation."""
    if not is_active():
        return build()
    values = _state["values"]
    try:
        return values[key]
    except KeyError:
        value = build()
        if len(values) < MAX_ENTRIES:
            values[key] = value
        return value


def attach_site(request) -> None:
    """Give ``request`` the Wagtail ``Site`` serving its host and port, found once per generation
    with Wagtail's public ``Site.find_for_request`` and remembered here.

    The one private name left: Wagtail keeps the site it found on ``request._wagtail_site`` and
    offers no public way to hand it one, so this sets that attribute (a write, never a read). Without
    it every rendered page runs two more queries (the site and its root page), which puts the
    article page at the 10-query ceiling (docs/upstream.md, "Wagtail: no way to give
    Site.find_for_request a known site").
    """
    if not is_active():
        return
    from django.core.exceptions import DisallowedHost

    from wagtail.models import Site

    try:
        host = request.get_host()  # a host outside ALLOWED_HOSTS gets its 400 from Django later
    except DisallowedHost:
        return
    # Wagtail matches the raw Host header; get_host() is that header, validated, while
    # USE_X_FORWARDED_HOST is off (it is: config/settings/base.py never sets it).
    site = memoized(("site", host.lower(), request.get_port()), lambda: Site.find_for_request(request))
    request._wagtail_site = site
