"""The full-page cache on a real Redis, configured as production configures it (django-redis,
``config/settings/production.py``'s ``REDIS_OPTIONS``): a hit sends Redis no command at all (the
generation token is kept in the process while Redis's key tracking vouches for it,
``home.caching.generation``), and a token another process writes or deletes over its own
connection is seen on this process's next request, also when the watch's connection was lost
(docs/performance.md, "Warm: a full-page hit").

Needs Redis at ``PAGE_CACHE_REDIS_URL`` (default ``redis://127.0.0.1:6379/11``): skipped when it
is not reachable, except in CI (``.ci/run`` starts it), where that fails. Every key is under a
prefix of this run's own, so the suite's two CI passes can share the database.
"""

import io
import os
import pickle
import subprocess
import sys
import uuid

from django.core.cache import cache

import pytest
from django_redis import get_redis_connection
from redis.connection import AbstractConnection

from home.caching import generation
from home.caching.generation import GENERATION_KEY
from home.caching.page_cache import bump_generation

from .redis_server import redis_answers

pytestmark = pytest.mark.django_db

REDIS_URL = os.environ.get("PAGE_CACHE_REDIS_URL", "redis://127.0.0.1:6379/11")
# production.py's REDIS_OPTIONS with its default timeouts (tests/test_reliability_cache.py).
PRODUCTION_OPTIONS = {"IGNORE_EXCEPTIONS": True, "SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 1.0}


@pytest.fixture
def redis_cache(settings, monkeypatch):
    """The default cache on Redis with production's options, its keys under a prefix of this
    test's own (removed afterwards); returns ``commands()``, the commands (name, *arguments) sent
    on any redis-py connection since last asked, each shortened to its name and first argument."""
    sent = []
    send_command = AbstractConnection.send_command

    def counting_send_command(connection, *args, **options):
        sent.append(args[:2])
        return send_command(connection, *args, **options)

    monkeypatch.setattr(AbstractConnection, "send_command", counting_send_command)
    if not redis_answers(REDIS_URL):
        if os.environ.get("CI"):
            pytest.fail(f"Redis is not reachable at {REDIS_URL}; .ci/run starts it")
        pytest.skip(f"Redis is not reachable at {REDIS_URL}")
    settings.PAGE_CACHE_SECONDS = 300
    settings.CACHES = {
        **settings.CACHES,
        "default": {
            "BACKEND": "home.upstream.django_redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": f"test-{uuid.uuid4().hex}",
            "OPTIONS": PRODUCTION_OPTIONS,
        },
    }
    bump_generation()

    def commands():
        since, sent[:] = list(sent), []
        return since

    yield commands
    # This prefix's keys only, every version (Wagtail stores some under version 2); ``clear``
    # would empty the database.
    connection = get_redis_connection("default")
    connection.delete(*connection.scan_iter(f"{cache.key_prefix}:*"))


def another_process(*commands: tuple) -> None:
    """Run Redis ``commands`` (name, *arguments; bytes from standard input where an argument is
    ``STDIN``) in a separate Python process over its own connection, as another worker or machine
    would."""
    script = (
        "import ast, redis, sys; data = sys.stdin.buffer.read(); client = redis.Redis.from_url(sys.argv[1])\n"
        "for command in ast.literal_eval(sys.argv[2]):\n"
        "    client.execute_command(*[data if part == 'STDIN' else part for part in command])"
    )
    stdin = next((part for command in commands for part in command if isinstance(part, bytes)), b"")
    commands = [tuple("STDIN" if isinstance(part, bytes) else part for part in command) for command in commands]
    subprocess.run([sys.executable, "-c", script, REDIS_URL, repr(commands)], input=stdin, check=True)


def watch_connections() -> list[dict]:
    """CLIENT LIST entries of this process's token watch (named ``page-cache-watch-<pid>``)."""
    clients = get_redis_connection("default").client_list()
    return [client for client in clients if client["name"] == f"page-cache-watch-{os.getpid()}"]


def test_a_hit_sends_redis_no_command(client, demo, redis_cache):
    for path in ("/blog/", "/"):
        assert client.get(path)["X-Page-Cache"] == "miss"
        assert client.get(path)["X-Page-Cache"] == "hit"
    redis_cache()
    for path in ("/blog/", "/", "/blog/"):
        assert client.get(path)["X-Page-Cache"] == "hit"
    assert redis_cache() == []
    assert [client["flags"] for client in watch_connections()] == ["tB"]  # tracking, broadcast mode


def test_a_generation_another_process_writes_is_seen_on_the_next_request(client, demo, redis_cache):
    """Another process (a worker, another machine) replaces the token over its own connection:
    this process's next request reads it and renders the page afresh, then serves it again."""
    client.get("/blog/")
    assert client.get("/blog/")["X-Page-Cache"] == "hit"
    key, value = cache.make_key(GENERATION_KEY), cache.client.encode("started-by-another-process")
    another_process(("SET", key, value))
    assert client.get("/blog/")["X-Page-Cache"] == "miss"
    assert cache.get(GENERATION_KEY) == "started-by-another-process"
    assert client.get("/blog/")["X-Page-Cache"] == "hit"


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda key: [("DEL", key)], id="token-deleted"),
        pytest.param(lambda key: [("EXPIRE", key, 1), ("PERSIST", key)], id="expiry-touched-then-removed"),
        pytest.param(lambda key: [("RENAME", key, key + ":old")], id="token-renamed-away"),
        pytest.param(
            lambda key: [("SET", key + ":next", cache.client.encode("renamed-over")), ("RENAME", key + ":next", key)],
            id="renamed-over",
        ),
    ],
)
def test_every_write_to_the_token_by_another_process_is_seen_on_the_next_request(client, demo, redis_cache, change):
    """Any write Redis reports for the key (not only SET) drops the kept token: it is read again,
    and a token that is gone or unreadable starts a new generation."""
    client.get("/blog/")
    assert client.get("/blog/")["X-Page-Cache"] == "hit"
    before = cache.get(GENERATION_KEY)
    another_process(*change(cache.make_key(GENERATION_KEY)))
    redis_cache()
    response = client.get("/blog/")
    assert response.status_code == 200
    assert ("GET", cache.make_key(GENERATION_KEY)) in redis_cache()
    if cache.get(GENERATION_KEY) != before:
        assert response["X-Page-Cache"] == "miss"
    assert client.get("/blog/")["X-Page-Cache"] == "hit"


def test_a_lost_watch_connection_reads_the_token_and_reconnects(client, demo, redis_cache):
    """While the watch's connection is gone (closed by Redis, a proxy, a network fault) nothing
    vouches for the kept token: the next request reads it from Redis, sees the change made
    meanwhile, and the watch connects again."""
    client.get("/blog/")
    assert client.get("/blog/")["X-Page-Cache"] == "hit"
    (watched,) = watch_connections()
    key, value = cache.make_key(GENERATION_KEY), cache.client.encode("written-while-disconnected")
    # The kill comes first: the token written after it reaches no tracking connection of ours.
    another_process(("CLIENT", "KILL", "ID", watched["id"]), ("SET", key, value))
    assert client.get("/blog/")["X-Page-Cache"] == "miss"
    assert cache.get(GENERATION_KEY) == "written-while-disconnected"
    assert client.get("/blog/")["X-Page-Cache"] == "hit"  # connects again, reads the token once
    (reconnected,) = watch_connections()
    assert reconnected["id"] != watched["id"]
    redis_cache()
    assert client.get("/blog/")["X-Page-Cache"] == "hit"
    assert redis_cache() == []


def test_a_forked_process_opens_its_own_watch(client, demo, redis_cache, monkeypatch):
    """A worker forked from a process that already watched (the parent's socket is shared, and
    the parent may read the messages meant for it) reads the token and connects on its own."""
    client.get("/blog/")
    assert client.get("/blog/")["X-Page-Cache"] == "hit"
    parent = os.getpid()
    monkeypatch.setattr(generation.os, "getpid", lambda: parent + 1_000_000)
    redis_cache()
    assert client.get("/blog/")["X-Page-Cache"] == "hit"
    assert ("GET", cache.make_key(GENERATION_KEY)) in redis_cache()
    connection = get_redis_connection("default")
    assert any(entry["name"] == f"page-cache-watch-{parent + 1_000_000}" for entry in connection.client_list())
    generation.watch.forget()  # closes the "child's" connection before getpid is restored
    for entry in connection.client_list():  # and the "parent's", which a real parent would keep
        if entry["name"] == f"page-cache-watch-{parent}":
            connection.execute_command("CLIENT", "KILL", "ID", entry["id"])


def test_without_redis_the_token_is_read_from_the_cache_on_every_request(client, demo, settings):
    """The embedded default (a file-based cache) has no tracking: the watch stays off."""
    settings.PAGE_CACHE_SECONDS = 300
    client.get("/blog/")
    assert client.get("/blog/")["X-Page-Cache"] == "hit"
    assert generation.watch.kept_token() == (None, None)
    cache.set(GENERATION_KEY, "written-elsewhere", None)
    assert client.get("/blog/")["X-Page-Cache"] == "miss"


@pytest.mark.parametrize(
    ("connection_kwargs", "local"),
    [
        ({"host": "127.0.0.1"}, True),
        ({"host": "127.8.9.10"}, True),
        ({"host": "::1"}, True),
        ({"host": "localhost"}, True),
        ({"host": "LOCALHOST"}, True),
        ({"path": "/run/redis/redis.sock"}, True),
        ({"host": "10.0.0.5"}, False),
        ({"host": "192.168.1.20"}, False),
        ({"host": "redis"}, False),
        ({"host": "cache.example.com"}, False),
        ({"host": "localhost.example.com"}, False),
        ({"host": "fe80::1"}, False),
        ({"host": ""}, False),
        ({}, False),
    ],
    ids=lambda value: str(value) if not isinstance(value, bool) else "",
)
def test_only_a_redis_on_this_machine_counts_as_local(connection_kwargs, local):
    assert generation.redis_is_local(connection_kwargs) is local


@pytest.mark.parametrize(
    ("mode", "location", "watched"),
    [
        ("local", "redis://127.0.0.1:6379/11", True),
        ("local", "unix:///run/redis/redis.sock?db=0", True),
        ("local", "redis://10.255.255.1:6379/0", False),
        ("local", "redis://cache.internal:6379/0", False),
        ("on", "redis://10.255.255.1:6379/0", True),
        ("off", "redis://127.0.0.1:6379/11", False),
        ("local", ["redis://127.0.0.1:6379/11"], True),
        # A primary and its replica: django-redis reads from the replica, which may lag.
        ("local", "redis://127.0.0.1:6379/11,redis://127.0.0.1:6380/11", False),
        ("local", "redis://127.0.0.1:6379/11;redis://127.0.0.1:6380/11", False),
        ("on", ["redis://127.0.0.1:6379/11", "redis://127.0.0.1:6380/11"], False),
        ("local", ("redis://127.0.0.1:6379/11", "shard"), False),
        ("on", ("redis://127.0.0.1:6379/11", "django_redis.client.HerdClient"), False),
    ],
    ids=str,
)
def test_which_redis_is_watched(settings, mode, location, watched):
    """Deciding connects to nothing: a remote Redis is only named here. A tuple is a location
    with django-redis's ``CLIENT_CLASS`` ("shard": its sharding client)."""
    settings.PAGE_CACHE_TOKEN_WATCH = mode
    options = {}
    if isinstance(location, tuple):
        location, client_class = location
        options["CLIENT_CLASS"] = "django_redis.client.ShardClient" if client_class == "shard" else client_class
    default = {"BACKEND": "home.upstream.django_redis.RedisCache", "LOCATION": location, "OPTIONS": options}
    settings.CACHES = {**settings.CACHES, "default": default}
    assert generation.watch_wanted() is watched


def test_with_the_watch_off_every_request_reads_the_token(client, demo, redis_cache, settings):
    settings.PAGE_CACHE_TOKEN_WATCH = "off"
    client.get("/blog/")
    assert client.get("/blog/")["X-Page-Cache"] == "hit"
    redis_cache()
    assert client.get("/blog/")["X-Page-Cache"] == "hit"
    assert redis_cache() == [("GET", cache.make_key(GENERATION_KEY))]
    assert watch_connections() == []


def test_a_kept_token_is_read_again_once_it_is_older_than_the_trust_bound(client, demo, redis_cache, monkeypatch):
    """A Redis that hangs keeps the watch's connection open and sends nothing: the token is read
    again at least every ``TRUST_SECONDS`` (here: every request), so a hang shows as it did before
    the watch (the read times out, pages are rendered uncached)."""
    client.get("/blog/")
    assert client.get("/blog/")["X-Page-Cache"] == "hit"
    redis_cache()
    assert client.get("/blog/")["X-Page-Cache"] == "hit"
    assert redis_cache() == []
    monkeypatch.setattr(generation, "TRUST_SECONDS", 0)
    assert client.get("/blog/")["X-Page-Cache"] == "hit"
    assert redis_cache() == [("GET", cache.make_key(GENERATION_KEY))]


@pytest.mark.parametrize(
    "stored",
    [
        b"abc",  # neither an integer nor a pickle
        b"\x80\x05",  # a pickle cut short
        pickle.dumps(["a", "list"]),
        pickle.dumps(""),
        pickle.dumps(None),
        b"42",  # django-redis stores integers as digits and reads them back as int
        b"",
    ],
    ids=["text", "cut-pickle", "list", "empty-string", "none", "integer", "empty"],
)
def test_a_token_nothing_of_ours_wrote_starts_a_new_generation(client, demo, redis_cache, stored):
    """A value another program left under the token's key is not a token: the page is rendered,
    never a 500, and a token of ours replaces the value."""
    client.get("/blog/")
    assert client.get("/blog/")["X-Page-Cache"] == "hit"
    another_process(("SET", cache.make_key(GENERATION_KEY), stored))
    response = client.get("/blog/")
    assert response.status_code == 200
    assert response["X-Page-Cache"] == "miss"
    token = cache.get(GENERATION_KEY)
    assert isinstance(token, str) and len(token) == 32
    assert client.get("/blog/")["X-Page-Cache"] == "hit"


def test_a_token_written_while_redis_did_not_answer_is_written_again(client, demo, redis_cache, monkeypatch):
    """A publish while Redis is down or hung: the token's write is dropped (``IGNORE_EXCEPTIONS``)
    and the round trip after it fails. The process writes a new token on its next request once
    Redis answers, so the change does not wait for the cached pages to expire."""
    from django_redis.cache import RedisCache
    from redis.exceptions import ConnectionError as RedisConnectionError

    monkeypatch.setattr(generation, "RECONNECT_SECONDS", 0)
    client.get("/blog/")
    assert client.get("/blog/")["X-Page-Cache"] == "hit"
    before = cache.get(GENERATION_KEY)

    def unanswered(*args, **kwargs):
        raise RedisConnectionError("Redis did not answer")

    with monkeypatch.context() as outage:
        outage.setattr(RedisCache, "set", lambda *args, **kwargs: None)  # dropped, as IGNORE_EXCEPTIONS drops it
        outage.setattr("redis.Redis.ping", unanswered)
        bump_generation()
    assert cache.get(GENERATION_KEY) == before  # the change never reached Redis
    assert client.get("/blog/")["X-Page-Cache"] == "miss"
    assert cache.get(GENERATION_KEY) != before
    assert client.get("/blog/")["X-Page-Cache"] == "hit"


def test_the_scheduler_writes_again_a_token_redis_did_not_take(demo, redis_cache, monkeypatch):
    from django.core.management import call_command

    from django_redis.cache import RedisCache
    from redis.exceptions import ConnectionError as RedisConnectionError

    monkeypatch.setattr(generation, "RECONNECT_SECONDS", 0)
    before = cache.get(GENERATION_KEY)

    def unanswered(*args, **kwargs):
        raise RedisConnectionError("Redis did not answer")

    with monkeypatch.context() as outage:
        outage.setattr(RedisCache, "set", lambda *args, **kwargs: None)
        outage.setattr("redis.Redis.ping", unanswered)
        bump_generation()
    assert cache.get(GENERATION_KEY) == before
    call_command("run_scheduler", "--once", stdout=io.StringIO())
    assert cache.get(GENERATION_KEY) != before


def test_a_token_redis_took_is_not_written_again(client, demo, redis_cache, monkeypatch):
    monkeypatch.setattr(generation, "RECONNECT_SECONDS", 0)
    client.get("/blog/")
    bump_generation()
    token = cache.get(GENERATION_KEY)
    assert client.get("/blog/")["X-Page-Cache"] == "miss"
    assert client.get("/blog/")["X-Page-Cache"] == "hit"
    assert cache.get(GENERATION_KEY) == token
