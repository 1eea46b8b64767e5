"""Full-page cache and HTTP caching headers for anonymous readers.

Design: one site-wide *generation* token in Django's cache. Every cached page is stored with the
generation it was rendered under, and is served only while that token is current. Any change a
reader could see (a page published, unpublished, moved, deleted or edited; an author, topic, image,
site setting or view restriction changed) replaces the token (``home.caching.invalidation``), so
every page is re-rendered on its next request. We chose this over purging targeted keys because
an article appears on many pages (home, every blog index page as pagination shifts, its topics'
pages, related posts on other articles, author pages, feeds, sitemap) and a site setting or an
author appears on all of them: working out that set is where invalidation bugs live, while edits
are rare next to reads and a cold page costs a few milliseconds and a fixed number of queries.

Which requests are cached: GET/HEAD without a session cookie (so never a logged-in editor), not
under the admin or document URLs, and whose query string is empty or only ``?page=`` (so a search
with a query is never cached). Which responses: 200s that set no cookie and did not use a CSRF
token. Pages are keyed on the root URL of the Wagtail site serving them (``canonical_host``), not
on the raw ``Host`` header.

What a hit costs: the generation token, which every request needs so that a change made in any
process or on any machine is seen on the next one (``home.caching.generation``: on the file-based
cache a read of a small file; on Redis no round trip while Redis's key tracking vouches for the
token this process keeps); then, once the process has seen the request's host in this
generation, no SQL query. Each process also keeps
the entries it stored or read for the current generation in its own memory (``LocalPages``,
``PAGE_CACHE_LOCAL_BYTES``), so a page it served before is not read from the shared cache again
(on the file-based cache that read was a file, decompressed and unpickled: the largest single
part of a hit's time, ``benchmarks/warm_hit.py``); a page it has not is read there (a second
round trip) and kept. While the shared cache is unreachable no token is read, each request starts
a generation of its own, and nothing kept is served: pages are rendered uncached, as before.
"""

import hashlib
import re
import threading
import time
from collections import OrderedDict

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError
from django.http import HttpResponse
from django.utils import timezone
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import quote_etag
from django.utils.text import compress_string

from wagtail.models import Site

from home.public_pages import next_expiry

from . import memo
from .generation import read_generation, write_generation

PAGE_KEY_PREFIX = "page-cache:page:"
HOST_KEY_PREFIX = "page-cache:root-url:"
UNCACHED_PREFIXES = ("/admin/", "/documents/")
# Health probes pass straight through: liveness must not wait on Redis or the database.
PROBE_PATHS = frozenset({"/healthz", "/readyz"})
ALLOWED_QUERY_PARAMETERS = {"page"}
# Response headers never replayed from the cache.
_NOT_STORED_HEADERS = {"set-cookie", "etag", "cache-control"}
# Bytes counted for a kept entry beyond its content and headers (the dict, the key, the tuple):
# an estimate, so the bound errs on the side of less memory.
ENTRY_OVERHEAD_BYTES = 1024
# An Accept-Encoding that takes gzip, read as GZipMiddleware reads it (q-values ignored), so a hit
# is compressed exactly when the miss before it was.
ACCEPTS_GZIP = re.compile(r"\bgzip\b")


class LocalPages:
    """Page entries (as stored in the shared cache) this process has stored or read, for one
    generation: the least recently served are dropped first once their sizes (content, headers and
    ``ENTRY_OVERHEAD_BYTES`` each) pass ``settings.PAGE_CACHE_LOCAL_BYTES``. An entry is kept only
    until its ``expires_at`` (epoch seconds, when the shared cache lets it go), so a process never
    serves a page longer than the shared cache would. Safe to share between threads."""

    def __init__(self):
        self._lock = threading.Lock()
        self._generation = None
        self._entries = OrderedDict()  # page key -> (entry, bytes counted)
        self._bytes = 0

    @property
    def size(self) -> int:
        """Bytes counted for the entries kept now."""
        return self._bytes

    def clear(self, generation: str | None = None) -> None:
        """Forget every entry; keep entries for ``generation`` from now on (None: none until
        ``get`` is asked for a generation)."""
        with self._lock:
            self._generation, self._entries, self._bytes = generation, OrderedDict(), 0

    def get(self, key: str, generation: str) -> dict | None:
        """The entry kept for page ``key`` in ``generation``, else None. Asked for another
        generation than the one kept, forgets every entry first."""
        with self._lock:
            if self._generation != generation:
                self._generation, self._entries, self._bytes = generation, OrderedDict(), 0
                return None
            kept = self._entries.get(key)
            if kept is None:
                return None
            if kept[0]["expires_at"] <= time.time():
                self._forget(key)
                return None
            self._entries.move_to_end(key)
            return kept[0]

    def put(self, key: str, entry: dict, generation: str) -> None:
        """Keep ``entry`` (with ``expires_at``) for page ``key``, unless this process has moved
        on from ``generation`` or the entry alone is larger than the bound."""
        bound = settings.PAGE_CACHE_LOCAL_BYTES
        size = (
            ENTRY_OVERHEAD_BYTES
            + len(entry["content"])
            + len(entry.get("gzip", b""))
            + sum(len(n) + len(v) for n, v in entry["headers"])
        )
        with self._lock:
            if self._generation != generation or size > bound:
                return
            self._forget(key)
            while self._bytes + size > bound:
                self._forget(next(iter(self._entries)))
            self._entries[key] = (entry, size)
            self._bytes += size

    def _forget(self, key: str) -> None:
        kept = self._entries.pop(key, None)
        if kept is not None:
            self._bytes -= kept[1]


local_pages = LocalPages()


def bump_generation() -> str:
    """Start a new cache generation: every page cached so far is stale. Returns the new token."""
    token = write_generation()
    memo.generation_changed(token)
    local_pages.clear(token)
    return token


def is_cacheable_request(request) -> bool:
    """True for an anonymous GET/HEAD of a public URL whose query string is empty or ``?page=N``."""
    if request.method not in ("GET", "HEAD"):
        return False
    if request.path.startswith(UNCACHED_PREFIXES):
        return False
    if settings.SESSION_COOKIE_NAME in request.COOKIES or "HTTP_AUTHORIZATION" in request.META:
        return False
    return all(key in ALLOWED_QUERY_PARAMETERS and len(request.GET.getlist(key)) == 1 for key in request.GET)


def is_cacheable_response(request, response) -> bool:
    """True for a complete 200 response that is the same for every anonymous reader."""
    return (
        response.status_code == 200
        and not response.streaming
        and not response.cookies
        and not request.META.get("CSRF_COOKIE_USED")
        and "private" not in response.get("Cache-Control", "")
        and "no-store" not in response.get("Cache-Control", "")
    )


def canonical_host(request) -> str:
    """The host a request's page is cached under: the root URL of the Wagtail ``Site`` serving it
    (``Site.root_url``, e.g. ``https://example.com``), so every Host header that reaches one site
    (``localhost:1``, ``localhost:2``, ``LOCALHOST``...) shares one copy of each page. Pages build
    their absolute URLs from the same root URL (``home.seo``), so the copies would be identical.
    Without a matching site (no default site, unknown host) the raw host is used; such requests
    get a 404, which is never stored."""
    host = request.get_host()
    try:
        # Remembered per host for the generation, so a page-cache hit runs no query; a miss finds
        # the site again in Wagtail's serve view (``Site.find_for_request``, one query).
        root_url = memo.memoized(("root-url", host.lower(), request.get_port()), lambda: _root_url(request, host))
    except DatabaseError:
        # Database down (a new process): the root URL this host had when it was last looked up in
        # this generation, so cached pages keep being served (home/operations/outages.py).
        root_url = cache.get(_host_key(host))
        if root_url is None:
            raise
    return root_url


def _host_key(host: str) -> str:
    """The shared-cache key of ``host``'s root URL, for the current generation only: a saved
    ``Site`` (another root page, host or port) starts a new one, and a root URL found before it
    must not serve, during an outage, the pages of the site that answered then."""
    return f"{HOST_KEY_PREFIX}{memo.current_generation()}:{host}"


def _root_url(request, host: str) -> str:
    """The root URL of the site serving ``request`` (``Site.find_for_request``), also kept in the
    shared cache for as long as the pages it would serve (read there while the database is down)."""
    site = Site.find_for_request(request)
    root_url = site.root_url if site is not None else f"unmatched:{host}"
    cache.set(_host_key(host), root_url, settings.PAGE_CACHE_SECONDS)
    return root_url


def page_key(request) -> str:
    """The cache key of a request's page: scheme, site root URL (``canonical_host``), path and
    ``?page=``, hashed to a fixed length."""
    url = f"{request.scheme}|{canonical_host(request)}{request.path}?page={request.GET.get('page', '')}"
    return PAGE_KEY_PREFIX + hashlib.sha256(url.encode()).hexdigest()


def public_cache_control() -> str:
    """``Cache-Control`` for pages every reader may share: browsers revalidate (cheap, with the
    ETag); shared caches (CDN) keep them ``CDN_CACHE_SECONDS`` and may serve a stale copy for
    ``STALE_WHILE_REVALIDATE_SECONDS`` while they fetch a fresh one."""
    return (
        f"public, max-age=0, s-maxage={settings.CDN_CACHE_SECONDS}, "
        f"stale-while-revalidate={settings.STALE_WHILE_REVALIDATE_SECONDS}"
    )


def _shared_entry(key: str, generation: str) -> dict | None:
    """The entry the shared cache holds for page ``key`` if it was stored in ``generation`` (then
    also kept in this process: ``local_pages``), else None."""
    entry = cache.get(key)
    if not entry or entry["generation"] != generation:
        return None
    if "expires_at" in entry:  # stored by an older release without it: not kept
        local_pages.put(key, entry, generation)
    return entry


def _etag(content: bytes) -> str:
    return quote_etag(hashlib.md5(content, usedforsecurity=False).hexdigest())


class PageCacheMiddleware:
    """Serve cached pages to anonymous readers, store fresh ones, and set HTTP caching headers.

    ``PAGE_CACHE_SECONDS`` = 0 turns the server-side cache off (headers and 304s still apply).
    Cached responses carry ``X-Page-Cache: hit``; stored ones ``X-Page-Cache: miss``.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path in PROBE_PATHS:
            return self.get_response(request)
        cacheable = is_cacheable_request(request)
        seconds = settings.PAGE_CACHE_SECONDS if cacheable else 0
        generation = read_generation() or bump_generation()

        # The generation is read before rendering: a change committed while this page renders
        # replaces it, so this (possibly old) rendering is stored under a stale token, and what
        # the memo kept while it renders is dropped at the next request.
        remembering = memo.begin_request(generation)
        try:
            if seconds:
                # The key needs the request's site, which the memo (begun above) keeps per host.
                key = page_key(request)
                entry = local_pages.get(key, generation) or _shared_entry(key, generation)
                valid_until = entry.get("valid_until") if entry else None
                if valid_until is not None and timezone.now() >= valid_until:
                    entry = None  # a page on it reached its expiry time (see ``next_expiry``)
                if entry:
                    if ACCEPTS_GZIP.search(request.META.get("HTTP_ACCEPT_ENCODING", "")):
                        return self._gzipped_hit(request, key, entry, generation)
                    response = HttpResponse(entry["content"], status=entry["status"], headers=entry["headers"])
                    return self._public(request, response, entry["etag"], "hit")
            response = self.get_response(request)
            # Read while the memo is in use: no query once per generation.
            valid_until = next_expiry() if seconds else None
        finally:
            memo.end_request(remembering)
        if not cacheable or not is_cacheable_response(request, response):
            return self._private(response)
        etag = _etag(response.content)
        if seconds:
            headers = [(name, value) for name, value in response.items() if name.lower() not in _NOT_STORED_HEADERS]
            entry = {
                "generation": generation,
                "status": response.status_code,
                "headers": headers,
                "content": response.content,
                "etag": etag,
                "valid_until": valid_until,
                # When the shared cache lets the entry go: a copy kept in memory goes then too.
                "expires_at": time.time() + seconds,
            }
            cache.set(key, entry, seconds)
            local_pages.put(key, entry, generation)
        return self._public(request, response, etag, "miss" if seconds else None)

    def _gzipped_hit(self, request, key: str, entry: dict, generation: str):
        """A hit for a reader whose browser takes gzip: the page compressed once per process and
        generation (kept beside the entry in ``local_pages``), where ``GZipMiddleware`` would
        compress it again on every hit (about 0.75 ms for a 33 KB page, four times the rest of
        the hit: ``benchmarks/warm_hit.py --gzip``). Headers as ``GZipMiddleware`` gives them:
        ``Content-Encoding: gzip``, ``Vary: Accept-Encoding`` and the ETag made weak. Without
        BREACH's random padding: a cached page holds no secret (no CSRF token, no cookie:
        ``is_cacheable_response``) and reflects nothing from the request."""
        compressed = entry.get("gzip")
        if compressed is None:
            compressed = compress_string(entry["content"])
            if len(compressed) >= len(entry["content"]):
                compressed = b""  # not worth it (a tiny page): served as it is
            entry = {**entry, "gzip": compressed}
            local_pages.put(key, entry, generation)
        if not compressed:
            response = HttpResponse(entry["content"], status=entry["status"], headers=entry["headers"])
            return self._public(request, response, entry["etag"], "hit")
        response = HttpResponse(compressed, status=entry["status"], headers=entry["headers"])
        response["Content-Encoding"] = "gzip"
        response["Content-Length"] = str(len(compressed))  # the stored one counts the plain page
        patch_vary_headers(response, ("Accept-Encoding",))
        return self._public(request, response, "W/" + entry["etag"], "hit")

    @staticmethod
    def _public(request, response, etag, state):
        response["ETag"] = etag
        response["Cache-Control"] = public_cache_control()
        if state:
            response["X-Page-Cache"] = state
        return get_conditional_response(request, etag=etag, response=response)

    @staticmethod
    def _private(response):
        if "Cache-Control" not in response:
            response["Cache-Control"] = "private, no-store"
        return response
