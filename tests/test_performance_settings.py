"""Production caching and serving settings come from the environment."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Subprocesses here inherit DATABASE_URL: run on every database (tests/conftest.py).
pytestmark = pytest.mark.every_database

ROOT = Path(__file__).resolve().parent.parent
PRINT = (
    "import json; from config.settings import production as s; "
    "print(json.dumps({'caches': s.CACHES, 'page': s.PAGE_CACHE_SECONDS, 'cdn': s.WAGTAILFRONTENDCACHE}))"
)


def production_settings(**env) -> dict:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("REDIS", "PAGE_CACHE", "FRONTEND_CACHE"))}
    result = subprocess.run(
        [sys.executable, "-c", PRINT],
        cwd=ROOT,
        env={**keep, "SECRET_KEY": "x" * 50, "ALLOWED_HOSTS": "blog.example.com", **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout)


def test_redis_url_selects_redis_and_turns_the_page_cache_on():
    values = production_settings(REDIS_URL="redis://127.0.0.1:6379/8")
    assert values["caches"]["default"]["BACKEND"] == "home.upstream.django_redis.RedisCache"
    assert values["caches"]["default"]["LOCATION"] == "redis://127.0.0.1:6379/8"
    assert values["caches"]["renditions"]["BACKEND"] == "home.upstream.django_redis.RedisCache"
    # A Redis outage means cache misses, not errors (tests/test_reliability_cache.py).
    assert values["caches"]["default"]["OPTIONS"]["IGNORE_EXCEPTIONS"] is True
    assert values["caches"]["renditions"]["OPTIONS"]["IGNORE_EXCEPTIONS"] is True
    assert values["page"] == 600


def test_redis_replies_are_parsed_by_hiredis():
    """hiredis (requirements/base.txt) parses Redis's replies and packs commands in C; redis-py
    uses it whenever it is importable unless a parser is chosen, so production chooses none. A
    page-cache hit's token read costs 14% fewer instructions with it (docs/performance.md)."""
    import redis.utils

    assert redis.utils.HIREDIS_AVAILABLE
    values = production_settings(REDIS_URL="redis://127.0.0.1:6379/8")
    assert all("PARSER_CLASS" not in cache["OPTIONS"] for cache in values["caches"].values())


def test_without_redis_one_machines_processes_share_a_file_cache_and_pages_are_cached(tmp_path):
    values = production_settings(CACHE_DIR=str(tmp_path))
    for alias in ("default", "renditions"):
        assert values["caches"][alias]["BACKEND"] == "home.upstream.django.SparselyCulledFileBasedCache"
        assert values["caches"][alias]["LOCATION"] == str(tmp_path / alias)
    assert values["page"] == 600
    assert values["cdn"] == {}
    assert production_settings(CACHE_DIR=str(tmp_path), PAGE_CACHE_SECONDS="0")["page"] == 0


def test_each_database_has_its_own_keys_in_the_file_cache(tmp_path):
    """A page cached over one database is never served over another."""
    prefixes = {
        production_settings(CACHE_DIR=str(tmp_path), DATABASE_URL=url)["caches"]["default"]["KEY_PREFIX"]
        for url in (
            "sqlite:///var/db.sqlite3",
            "sqlite:///var/other.sqlite3",
            "postgres://postgres@127.0.0.1:5432/cedana_blog",
            "postgres://postgres@127.0.0.1:5433/cedana_blog",
            "postgres://postgres@127.0.0.1:5432/test_cedana_blog",
        )
    }
    assert len(prefixes) == 5


def test_a_publish_in_one_process_reaches_the_others_through_the_file_cache(tmp_path):
    """What ``make run`` relies on: the scheduler publishes, the web server's next request sees
    the new page-cache generation (the default settings, no Redis)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("REDIS", "DJANGO_SETTINGS"))}
    env.update(CACHE_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="config.settings.dev")

    def in_process(code: str) -> str:
        script = f"import django; django.setup(); from django.core.cache import cache; {code}"
        return subprocess.run(
            [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, check=True
        ).stdout.strip()

    bumped = in_process("from home.caching.page_cache import bump_generation; print(bump_generation())")
    seen = in_process("from home.caching.generation import GENERATION_KEY; print(cache.get(GENERATION_KEY))")
    assert bumped and seen == bumped


def test_frontend_cache_backends_from_the_environment():
    values = production_settings(
        FRONTEND_CACHE_VARNISH_URL="http://127.0.0.1:6081",
        FRONTEND_CACHE_CLOUDFLARE_ZONE_ID="zone",
        FRONTEND_CACHE_CLOUDFLARE_BEARER_TOKEN="token",
    )
    assert values["cdn"]["varnish"]["LOCATION"] == "http://127.0.0.1:6081"
    assert values["cdn"]["cloudflare"]["ZONEID"] == "zone"


def test_gunicorn_workers_default_and_cap():
    script = "import runpy; print(runpy.run_path('gunicorn.conf.py')['workers'])"
    run = lambda **env: subprocess.run(  # noqa: E731
        [sys.executable, "-c", script], cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert run(WEB_CONCURRENCY="3") == "3"
    assert 3 <= int(run(WEB_CONCURRENCY="")) <= 8


def test_gunicorn_does_not_recycle_workers_unless_asked():
    script = "import runpy; c = runpy.run_path('gunicorn.conf.py'); print(c['max_requests'], c['max_requests_jitter'])"
    run = lambda **env: subprocess.run(  # noqa: E731
        [sys.executable, "-c", script], cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert run(GUNICORN_MAX_REQUESTS="0") == "0 0"
    env = {key: value for key, value in os.environ.items() if key != "GUNICORN_MAX_REQUESTS"}
    assert (
        subprocess.run(
            [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, check=True
        ).stdout.strip()
        == "0 0"
    )
    assert run(GUNICORN_MAX_REQUESTS="5000") == "5000 500"


def test_gunicorn_workers_freeze_the_preloaded_heap():
    # In a process of its own: the test session has frozen its own heap (tests/conftest.py).
    script = (
        "import gc, runpy; post_fork = runpy.run_path('gunicorn.conf.py')['post_fork']; "
        "before = gc.get_freeze_count(); post_fork(server=None, worker=None); print(before, gc.get_freeze_count())"
    )
    before, after = map(
        int,
        subprocess.run(
            [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.split(),
    )
    assert before == 0 and after > 0
