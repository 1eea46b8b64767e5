"""Reading the page-cache generation token (``home.caching.page_cache``) on every request.

Every public request needs the current token, so that a change made in any process or on any
machine is seen on the next request. On the file-based cache (the embedded default) it is read
from the cache each time: a small file. On Redis a read is a network round trip, which cost more
machine time than the rest of a full-page hit together (docs/performance.md, "Warm: a full-page
hit"); so each process keeps the token and Redis tells it when the token changes:
``RedisTokenWatch`` holds one connection per process with Redis's key tracking turned on for the
token's key (``CLIENT TRACKING ON BCAST PREFIX <key>``, RESP3, Redis 6 or later: Redis's
"Client-side caching" reference). Redis then pushes an invalidation message on that connection
whenever the key is written or deleted, by anyone (our processes, another machine, redis-cli, a
flush), before it handles the next command of any client. A request only asks its socket whether
anything arrived (a ``poll``, no round trip); if anything did, the kept token is dropped and read
again.

The writer's side (``token_written``, called by ``bump_generation`` after it stores a new token)
makes that ordering visible: one round trip after the write returns only once Redis has written
every invalidation message to the tracking sockets, so a request that starts after
``bump_generation`` returns, in any process on Redis's machine, finds the message waiting (the
loopback hands data to the receiving socket as it is written). A process on another machine gets
it a network delivery later, and a lost packet waits for a retransmit: a reader's next request
there could come first. So ``settings.PAGE_CACHE_TOKEN_WATCH`` = ``"local"`` (the default) watches
only a Redis on this machine (a loopback address or a Unix socket) and reads the token on every
request from any other, as before; ``"on"`` accepts that delay for every Redis; ``"off"`` never
watches.

When the writer's round trip fails (Redis down or hung), the write itself was most likely dropped
(``IGNORE_EXCEPTIONS``): the process writes a new token again on its next request, at most once
every ``RECONNECT_SECONDS`` until Redis answers (the scheduler after each run), so a change
published during an outage is seen once Redis is back, not when the cached pages expire.

Whenever the watch cannot vouch for its token (no connection yet, the connection lost or refused,
another cache configured, a different process after a fork) the token is read from the cache on
every request, as before, and the watch tries to connect again at most once every
``RECONNECT_SECONDS``. A kept token is also read again once it is ``TRUST_SECONDS`` old, so a
Redis that hangs without closing its connections is noticed within that time. Only one Redis
server with django-redis's default client is watched (``one_redis_server``): with replicas the
token would be read again from a replica that may lag behind the message.

Our own code because neither django-redis nor redis-py covers this on the Redis we run: redis-py's
client-side cache (``CacheConfig``) refuses servers older than 7.4, and Debian 12 ships 7.0.
"""

import ipaddress
import logging
import os
import re
import threading
import time
import uuid

from django.conf import settings
from django.core.cache import cache, caches
from django.core.signals import setting_changed
from django.dispatch import receiver

logger = logging.getLogger(__name__)

GENERATION_KEY = "page-cache:generation"
# After a failed connection attempt, requests read the token from the cache (as without the
# watch) for this long before the watch tries again: a Redis that is down costs each request its
# one failed read, not two.
RECONNECT_SECONDS = 1.0
# A kept token is read again once it is this old, whatever the watch says: a Redis that hangs
# (stopped, a frozen VM, a long script) keeps its connections open and sends nothing, and a read
# on every request would have noticed at once (it times out, and pages are rendered uncached).
TRUST_SECONDS = 1.0


DJANGO_REDIS_DEFAULT_CLIENT = "django_redis.client.DefaultClient"
LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def redis_is_local(connection_kwargs: dict) -> bool:
    """True if redis-py's ``connection_kwargs`` reach a Redis on this machine: a Unix socket
    (``path``) or a loopback ``host`` (127.0.0.0/8, ::1, ``localhost``). No name lookup."""
    if connection_kwargs.get("path"):
        return True
    host = str(connection_kwargs.get("host", "")).lower()
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def one_redis_server() -> bool:
    """True if the default cache names one Redis server and uses django-redis's default client.
    With replicas (several servers in ``LOCATION``) django-redis reads from a replica, which may
    still hold the old token when the primary's message arrives, and that read would then be kept
    until the next change; with a sharding or Sentinel client the key's server is not the one we
    would watch."""
    config = settings.CACHES["default"]
    # django-redis's documented LOCATION: a list, or one string of servers joined by "," or ";".
    location = config.get("LOCATION", "")
    servers = [part for part in re.split(r"[;,]", location) if part.strip()] if isinstance(location, str) else location
    client_class = config.get("OPTIONS", {}).get("CLIENT_CLASS", DJANGO_REDIS_DEFAULT_CLIENT)
    return len(servers) == 1 and client_class == DJANGO_REDIS_DEFAULT_CLIENT


def watch_wanted() -> bool:
    """Whether this process should watch the token: the default cache is django-redis and
    ``settings.PAGE_CACHE_TOKEN_WATCH`` allows it for that Redis."""
    from django_redis import get_redis_connection
    from django_redis.cache import RedisCache

    mode = settings.PAGE_CACHE_TOKEN_WATCH
    if mode == "off" or not isinstance(caches["default"], RedisCache) or not one_redis_server():
        return False
    if mode == "on":
        return True
    return redis_is_local(get_redis_connection("default", write=True).connection_pool.connection_kwargs)


class RedisTokenWatch:
    """The token as last read by this process, kept while Redis's key tracking vouches for it.
    Safe to share between threads (a lock around the connection). Used through ``read_generation``
    and ``write_generation``."""

    def __init__(self):
        self._lock = threading.Lock()
        self._reset()

    def _reset(self):
        self._pid = os.getpid()
        self._enabled = None  # unknown until the first request (``watch_wanted``)
        self._connection = None
        self._token = None
        self._read_at = 0.0  # time.monotonic() when the kept token was read
        self._changes = 0  # invalidations seen: a token read before one must not be kept
        self._retry_at = 0.0
        self._failing = False
        self._rewrite_at = None  # time.monotonic() from when to write the token again (a write failed)

    def forget(self) -> None:
        """Close the connection and forget the token (the cache settings changed)."""
        with self._lock:
            self._disconnect()
            self._reset()

    def _disconnect(self):
        if self._connection is not None:
            self._connection.disconnect()  # redis-py ignores a socket that is already closed
        self._connection, self._token = None, None

    def _connect(self):
        """A connection to the default cache's Redis with tracking on for the token's key, or None
        (refused, timed out) until ``RECONNECT_SECONDS`` have passed."""
        from django_redis import get_redis_connection
        from redis.exceptions import RedisError

        if time.monotonic() < self._retry_at:
            return None
        try:
            pool = get_redis_connection("default", write=True).connection_pool
            # Named for operators reading CLIENT LIST: one such connection per worker process.
            name = f"page-cache-watch-{os.getpid()}"
            connection = pool.connection_class(**{**pool.connection_kwargs, "protocol": 3, "client_name": name})
            connection.register_connect_callback(self._start_tracking)
            connection.connect()
        except (RedisError, OSError) as error:
            if not self._failing:  # once per outage, not once a second
                logger.warning("Page-cache token watch off, reading the token every request: %s", error)
            self._failing = True
            self._retry_at = time.monotonic() + RECONNECT_SECONDS
            return None
        self._connection, self._token, self._failing = connection, None, False
        return connection

    def _start_tracking(self, connection) -> None:
        """Turn tracking on for the token's key; redis-py calls this on every connect of the
        watch's connection, a reconnect of its own included (tracking belongs to a connection,
        and nothing from before it vouches for the kept token)."""
        connection.send_command("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", cache.make_key(GENERATION_KEY))
        connection.read_response()
        self._token = None
        self._changes += 1

    def kept_token(self) -> tuple[str | None, int | None]:
        """``(token, None)`` when the kept token is current; ``(None, changes)`` when it must be
        read from the cache (pass ``changes`` to ``keep`` with what was read); ``(None, None)``
        when the watch cannot vouch for any token (read from the cache, keep nothing)."""
        from redis.exceptions import RedisError

        with self._lock:
            if self._pid != os.getpid():  # a forked worker: the parent's socket is not its own
                self._reset()
            if self._enabled is None:
                self._enabled = watch_wanted()
            if not self._enabled:
                return None, None
            connection = self._connection or self._connect()
            if connection is None:
                return None, None
            try:
                # Nothing but invalidation messages arrives between our commands: any data at all
                # means the token changed (or the server closed the connection: an error here).
                if connection.can_read(0):
                    while connection.can_read(0):
                        connection.read_response(push_request=True)
                    self._token = None
                    self._changes += 1
            except (RedisError, OSError):
                self._disconnect()
                self._retry_at = 0.0  # reconnect on the next request; this one reads the cache
                return None, None
            if self._token is not None and time.monotonic() - self._read_at < TRUST_SECONDS:
                return self._token, None
            return None, self._changes

    def keep(self, token: str, changes: int) -> None:
        """Keep ``token``, read from the cache after ``kept_token`` returned ``changes``, unless
        an invalidation has been seen since."""
        with self._lock:
            if self._connection is not None and self._changes == changes and self._pid == os.getpid():
                self._token, self._read_at = token, time.monotonic()

    def token_written(self) -> None:
        """Called after this process stored a new token: one round trip to Redis, which returns
        once Redis has sent every tracking connection (this process's too) its invalidation
        message for the write. If Redis does not answer (down or hung), the write was most likely
        dropped (``IGNORE_EXCEPTIONS``): ``rewrite_due`` then asks for a new token to be written
        once Redis may answer again, so a change published during an outage is not left unseen
        until the cached pages expire."""
        from django_redis import get_redis_connection
        from django_redis.cache import RedisCache
        from redis.exceptions import RedisError

        if not isinstance(caches["default"], RedisCache):
            return
        try:
            get_redis_connection("default", write=True).ping()
        except (RedisError, OSError):
            with self._lock:
                self._rewrite_at = time.monotonic() + RECONNECT_SECONDS
            return
        with self._lock:
            self._rewrite_at = None

    def rewrite_due(self) -> bool:
        """True (once per ``RECONNECT_SECONDS``) while a token this process wrote may not have
        reached Redis; the caller writes a new one (``read_generation``, the scheduler)."""
        if self._rewrite_at is None:  # the usual case, on every request: no lock taken
            return False
        with self._lock:
            if self._rewrite_at is None or time.monotonic() < self._rewrite_at or self._pid != os.getpid():
                return False
            self._rewrite_at = time.monotonic() + RECONNECT_SECONDS
            return True


watch = RedisTokenWatch()


def read_generation() -> str | None:
    """The current page-cache generation token (a hex string), or None when none is stored or the
    stored value is not one (then the caller starts a new generation, replacing it)."""
    if watch.rewrite_due():
        return write_generation()
    token, changes = watch.kept_token()
    if token is not None:
        return token
    try:
        token = cache.get(GENERATION_KEY)
    except Exception:  # noqa: BLE001 - the cache's own decoding errors (pickle, zlib, ...) vary by backend
        # A value nothing of ours wrote (redis-cli, another app sharing the database): treated as
        # no token, so the caller starts a generation and the value is replaced.
        logger.warning("Page-cache generation token unreadable; starting a new generation", exc_info=True)
        return None
    if not isinstance(token, str) or not token:
        return None
    if changes is not None:
        watch.keep(token, changes)
    return token


def write_generation() -> str:
    """Store a new generation token (a hex string, returned) in the cache: every page cached so
    far is stale. On Redis, then the round trip ``RedisTokenWatch.token_written`` describes (a
    failed one is retried by ``read_generation``, or by ``rewrite_if_due`` outside requests)."""
    token = uuid.uuid4().hex
    cache.set(GENERATION_KEY, token, None)
    watch.token_written()
    return token


def rewrite_if_due() -> None:
    """Write a new token if one this process wrote may not have reached Redis (for processes
    that serve no requests: the scheduler calls it after each run)."""
    if watch.rewrite_due():
        write_generation()


@receiver(setting_changed)
def _cache_settings_changed(setting, **kwargs):
    if setting in ("CACHES", "PAGE_CACHE_TOKEN_WATCH"):
        watch.forget()
