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
token. A hit costs two cache round trips (the generation, then the page) and, once the process
has seen the request's host in this generation, no SQL query. Pages are keyed on the root URL
of the Wagtail site serving them (``canonical_host``), not on the raw ``Host`` header.
"""

import hashlib
import uuid

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError
from django.http import HttpResponse
from django.utils import timezone
from django.utils.cache import get_conditional_response
from django.utils.http import quote_etag

from wagtail.models import Site

from home.public_pages import next_expiry

from . import memo

GENERATION_KEY = "page-cache:generation"
PAGE_KEY_PREFIX = "page-cache:page:"
HOST_KEY_PREFIX = "page-cache:root-url:"
UNCACHED_PREFIXES = ("/admin/", "/documents/")
# Health probes pass straight through: liveness must not wait on Redis or the database.
PROBE_PATHS = frozenset({"/healthz", "/readyz"})
ALLOWED_QUERY_PARAMETERS = {"page"}
# Response headers never replayed from the cache.
_NOT_STORED_HEADERS = {"set-cookie", "etag", "cache-control"}


def bump_generation() -> str:
    """Start a new cache generation: every page cached so far is stale. Returns the new token."""
    token = uuid.uuid4().hex
    cache.set(GENERATION_KEY, token, None)
    memo.generation_changed(token)
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
        # Database down (a new process, or a new generation): the root URL this host had when it
        # was last looked up, so cached pages keep being served (home/operations/outages.py).
        root_url = cache.get(HOST_KEY_PREFIX + host)
        if root_url is None:
            raise
    return root_url


def _root_url(request, host: str) -> str:
    """The root URL of the site serving ``request`` (``Site.find_for_request``), also kept in the
    shared cache for as long as the pages it would serve (read there while the database is down)."""
    site = Site.find_for_request(request)
    root_url = site.root_url if site is not None else f"unmatched:{host}"
    cache.set(HOST_KEY_PREFIX + host, root_url, settings.PAGE_CACHE_SECONDS)
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
        generation = cache.get(GENERATION_KEY) or bump_generation()

        # The generation is read before rendering: a change committed while this page renders
        # replaces it, so this (possibly old) rendering is stored under a stale token, and what
        # the memo kept while it renders is dropped at the next request.
        remembering = memo.begin_request(generation)
        try:
            if seconds:
                # The key needs the request's site, which the memo (begun above) keeps per host.
                key = page_key(request)
                entry = cache.get(key)
                valid_until = entry.get("valid_until") if entry else None
                if valid_until is not None and timezone.now() >= valid_until:
                    entry = None  # a page on it reached its expiry time (see ``next_expiry``)
                if entry and entry["generation"] == generation:
                    response = HttpResponse(entry["content"], status=entry["status"])
                    for name, value in entry["headers"]:
                        response[name] = value
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
            }
            cache.set(key, entry, seconds)
        return self._public(request, response, etag, "miss" if seconds else None)

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
