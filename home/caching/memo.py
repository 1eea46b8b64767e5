"""Small lookups every public page needs, kept in process memory for one cache generation.

Pages need a few answers that are the same for every request until content changes: the tree
paths under a view restriction, the next expiry time, the blog index at a path, a listing's
count and featured article, the topic list, the editors' picks, and (in groups bounded apart)
the pages routes resolved to and what a listing's pages show. ``memoized(key, build)`` keeps
each answer in this process until the page cache's *generation* token changes
(``home.caching.page_cache``): every change a reader could see replaces the token
(``home.caching.invalidation``), so these answers are invalidated by exactly the same events as
the cached pages, and never outlive them. The site chrome itself (header, footer, topic
navigation) is not kept here: it is a cached template fragment (``templates/navigation/``).

Our own code because Django's cache framework has no per-process layer, and a round trip to the
shared cache (a file or Redis) for each of these answers would cost about as much as the query.

How a process knows the token changed: ``PageCacheMiddleware`` reads the token at the start of
each request (``home.caching.generation.read_generation``, shared with the page-cache lookup) and
calls ``begin_request``; a change in this process (``bump_generation``) empties the memo at once.
Outside a request (management commands, the scheduler) there is no token read for it, so
``build()`` runs every time.

Values are shared by every request the process serves in that generation: callers must treat
them as read-only. As with Django's cache framework (and the fragments and pages cached for a
generation), a value read inside a transaction that is later rolled back is kept until the next
generation; a change to content starts one at once and again on commit
(``home.caching.invalidation.invalidate``).
"""

import contextvars
import datetime
import decimal
import threading
import uuid

from django.db.models import DEFERRED

# Keys are per site, listing, author or parent page, so a site has a few dozen; the bound keeps
# a flood of odd requests (unknown hosts, many authors' pages) from growing the memo unchecked.
MAX_ENTRIES = 1000
# Groups of keys that grow with the archive (one per page URL: ``home.models.HomePage.route``,
# each holding a page's row, about 1 KB) have a bound of their own, so they never crowd out the
# small lookups above; past it, pages are routed by Wagtail alone.
# Article cards' topics and authors (about 200 bytes an article: ``blog.listings.add_card_relations``),
# the listings' card rows (one per article, under 2 KB) and pages (a page of cards' primary keys and
# counts, about 0.3 KB: ``blog.listings``) grow with the archive too.
GROUP_MAX_ENTRIES = {
    "routes": 10_000,
    "card-relations": 10_000,
    "card-rows": 5_000,
    "listing-pages": 10_000,
    # A site's row and its root page's, per host and port a site answers (home.upstream.wagtail).
    "sites": 100,
}

_generation = contextvars.ContextVar("memo_generation", default=None)
_lock = threading.Lock()
_state = {"generation": None, "values": {}, "counts": {}}


def begin_request(generation: str) -> contextvars.Token:
    """Use the memo for the current request, served in ``generation`` (a page-cache token); the
    memo is emptied first if it holds another generation. Returns the token for ``end_request``."""
    with _lock:
        if _state["generation"] != generation:
            _state["generation"], _state["values"], _state["counts"] = generation, {}, {}
    return _generation.set(generation)


def end_request(token: contextvars.Token) -> None:
    """Stop using the memo (the request is over)."""
    _generation.reset(token)


def generation_changed(generation: str | None = None) -> None:
    """Empty the memo: this process started ``generation`` (None: the next request's token decides)."""
    with _lock:
        _state["generation"], _state["values"], _state["counts"] = generation, {}, {}


def current_generation() -> str | None:
    """The page-cache generation this request is served in, or None outside a request."""
    return _generation.get()


def memoized(key, build, group: str = ""):
    """``build()``'s value, remembered under ``key`` (hashable) for the current generation; outside
    a request ``build()`` runs every time. ``group``: a name from ``GROUP_MAX_ENTRIES`` for keys
    bounded apart from the others."""
    found = recall(key, group)
    if found is not MISSING:
        return found
    value = build()
    remember(key, value, group)
    return value


# What ``recall`` returns for a key not remembered (None may be a remembered value).
MISSING = object()


def recall(key, group: str = ""):
    """The value remembered under ``key`` in ``group`` for the current generation, else ``MISSING``
    (always outside a request)."""
    if _generation.get() is None:
        return MISSING
    return _state["values"].get((group, key), MISSING)


def remember(key, value, group: str = "") -> None:
    """Remember ``value`` under ``key`` in ``group`` for the current generation (nothing outside a
    request, once the group holds its bound of entries, or if this process started another
    generation since the request began: the value may predate it)."""
    generation = _generation.get()
    if generation is None:
        return
    with _lock:
        values, counts = _state["values"], _state["counts"]
        bound = GROUP_MAX_ENTRIES.get(group, MAX_ENTRIES)
        if _state["generation"] == generation and (group, key) not in values and counts.get(group, 0) < bound:
            values[(group, key)] = value
            counts[group] = counts.get(group, 0) + 1


# Values a remembered row may hold: shared by every request of the generation, so immutable only.
_IMMUTABLE_VALUES = (
    str,
    int,
    float,
    type(None),
    datetime.date,
    datetime.time,
    datetime.timedelta,
    decimal.Decimal,
    uuid.UUID,
)


def immutable_row(instance) -> list | None:
    """``instance``'s concrete field values in ``Model.from_db`` order, for a fresh instance per
    request (``type(instance).from_db(alias, None, values)``, no query): StreamFields (large, and
    mutable once decoded) and fields not loaded as ``DEFERRED``, loaded when first used; None if
    any other value is mutable."""
    from wagtail.fields import StreamField

    deferred = instance.get_deferred_fields()
    values = []
    for field in type(instance)._meta.concrete_fields:
        if isinstance(field, StreamField) or field.attname in deferred:
            values.append(DEFERRED)
            continue
        value = getattr(instance, field.attname)
        if not isinstance(value, _IMMUTABLE_VALUES):
            return None
        values.append(value)
    return values
