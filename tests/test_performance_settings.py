"""Production caching and serving settings come from the environment."""

import json
import os
import subprocess
import sys
from pathlib import Path

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
    assert values["caches"]["default"]["BACKEND"] == "django_redis.cache.RedisCache"
    assert values["caches"]["default"]["LOCATION"] == "redis://127.0.0.1:6379/8"
    assert values["caches"]["renditions"]["BACKEND"] == "django_redis.cache.RedisCache"
    # A Redis outage means cache misses, not errors (tests/test_reliability_cache.py).
    assert values["caches"]["default"]["OPTIONS"]["IGNORE_EXCEPTIONS"] is True
    assert values["caches"]["renditions"]["OPTIONS"]["IGNORE_EXCEPTIONS"] is True
    assert values["page"] == 600


def test_without_redis_the_cache_is_local_and_pages_are_not_cached():
    values = production_settings()
    assert values["caches"]["default"]["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"
    assert values["page"] == 0
    assert values["cdn"] == {}


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
