"""The full-page cache on a real Redis, configured as production configures it (django-redis,
``config/settings/production.py``'s ``REDIS_OPTIONS``): a hit is one Redis command, the
generation token's GET, and a token another process writes over its own connection is seen on
this process's next request (docs/performance.md, "Warm: a full-page hit").

Needs Redis at ``PAGE_CACHE_REDIS_URL`` (default ``redis://127.0.0.1:6379/11``): skipped when it
is not reachable, except in CI (``.ci/run`` starts it), where that fails. Every key is under a
prefix of this run's own, so the suite's two CI passes can share the database.
"""

import os
import subprocess
import sys
import uuid

from django.core.cache import cache

import pytest
import redis
from django_redis import get_redis_connection

from home.caching.page_cache import GENERATION_KEY, bump_generation

from .redis_server import redis_answers

pytestmark = pytest.mark.django_db

REDIS_URL = os.environ.get("PAGE_CACHE_REDIS_URL", "redis://127.0.0.1:6379/11")
# production.py's REDIS_OPTIONS with its default timeouts (tests/test_reliability_cache.py).
PRODUCTION_OPTIONS = {"IGNORE_EXCEPTIONS": True, "SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 1.0}


class CountingRedis(redis.Redis):
    """redis-py's client, recording every command it sends (``commands``: (name, *arguments))."""

    commands: list[tuple] = []

    def execute_command(self, *args, **options):
        CountingRedis.commands.append(args)
        return super().execute_command(*args, **options)


@pytest.fixture
def redis_cache(settings):
    """The default cache on Redis with production's options, its keys under a prefix of this
    test's own (removed afterwards); returns ``commands()``, the commands sent since last asked."""
    if not redis_answers(REDIS_URL):
        if os.environ.get("CI"):
            pytest.fail(f"Redis is not reachable at {REDIS_URL}; .ci/run starts it")
        pytest.skip(f"Redis is not reachable at {REDIS_URL}")
    settings.PAGE_CACHE_SECONDS = 300
    settings.CACHES = {
        **settings.CACHES,
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": f"test-{uuid.uuid4().hex}",
            "OPTIONS": {**PRODUCTION_OPTIONS, "REDIS_CLIENT_CLASS": f"{__name__}.CountingRedis"},
        },
    }
    bump_generation()

    def commands():
        sent, CountingRedis.commands = CountingRedis.commands, []
        return sent

    yield commands
    # This prefix's keys only, every version (Wagtail stores some under version 2); ``clear``
    # would empty the database.
    connection = get_redis_connection("default")
    connection.delete(*connection.scan_iter(f"{cache.key_prefix}:*"))


def test_a_hit_is_one_redis_command_the_generation_get(client, demo, redis_cache):
    assert client.get("/blog/")["X-Page-Cache"] == "miss"
    redis_cache()
    assert client.get("/blog/")["X-Page-Cache"] == "hit"
    assert redis_cache() == [("GET", cache.make_key(GENERATION_KEY))]


def test_a_generation_another_process_writes_is_seen_on_the_next_request(client, demo, redis_cache):
    """Another process (a worker, another machine) replaces the token over its own connection:
    this process's next request reads it and renders the page afresh, then serves it again."""
    client.get("/blog/")
    assert client.get("/blog/")["X-Page-Cache"] == "hit"
    key, value = cache.make_key(GENERATION_KEY), cache.client.encode("started-by-another-process")
    script = "import redis, sys; redis.Redis.from_url(sys.argv[1]).set(sys.argv[2], sys.stdin.buffer.read())"
    subprocess.run([sys.executable, "-c", script, REDIS_URL, key], input=value, check=True)
    assert client.get("/blog/")["X-Page-Cache"] == "miss"
    assert cache.get(GENERATION_KEY) == "started-by-another-process"
    assert client.get("/blog/")["X-Page-Cache"] == "hit"
