"""Configuration comes from the environment; production refuses unsafe defaults."""

import os
import subprocess
import sys
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

import pytest

from config.settings.base import env_bool, env_list

# Subprocesses here inherit DATABASE_URL: run on every database (tests/conftest.py).
pytestmark = pytest.mark.every_database

ROOT = Path(__file__).resolve().parent.parent


def run_settings(module: str, **env) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL"}}
    return subprocess.run(
        [sys.executable, "-c", f"import {module}"],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_production_refuses_to_start_without_secret_key():
    result = run_settings("config.settings.production", ALLOWED_HOSTS="blog.example.com")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_production_refuses_to_start_without_allowed_hosts():
    result = run_settings("config.settings.production", SECRET_KEY="x" * 50)
    assert result.returncode != 0
    assert "ALLOWED_HOSTS" in result.stderr


def test_production_starts_with_both():
    result = run_settings("config.settings.production", SECRET_KEY="x" * 50, ALLOWED_HOSTS="blog.example.com")
    assert result.returncode == 0, result.stderr


def test_database_url_switches_the_database():
    code = (
        "from config.settings import dev; print(dev.DATABASES['default']['ENGINE'], dev.DATABASES['default']['NAME'])"
    )
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    pg = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**env, "DATABASE_URL": "postgres://u@127.0.0.1:5432/blogdb"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert pg.stdout.split() == ["django.db.backends.postgresql", "blogdb"]
    default = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert default.stdout.split()[0] == "django.db.backends.sqlite3"
    assert default.stdout.split()[1].endswith("var/db.sqlite3")


def test_env_bool_and_list(monkeypatch):
    monkeypatch.setenv("FLAG", "Yes")
    assert env_bool("FLAG") is True
    monkeypatch.setenv("FLAG", "off")
    assert env_bool("FLAG", True) is False
    monkeypatch.setenv("FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured):
        env_bool("FLAG")
    monkeypatch.setenv("HOSTS", " a.example.com, ,b.example.com ")
    assert env_list("HOSTS") == ["a.example.com", "b.example.com"]


def settings_value(expression: str, **env) -> str:
    """Evaluate ``expression`` against config.settings.dev in a fresh interpreter with ``env``."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "SEARCH_", "TASKS_"))}
    result = subprocess.run(
        [sys.executable, "-c", f"from config.settings import dev; print({expression})"],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=False,
    )
    return result.stdout.strip() or result.stderr


def test_media_goes_to_object_storage_when_a_bucket_is_set():
    assert settings_value("dev.STORAGES['default']['BACKEND']") == "django.core.files.storage.FileSystemStorage"
    options = "dev.STORAGES['default']['BACKEND'], dev.STORAGES['default']['OPTIONS']['bucket_name']"
    assert settings_value(options, AWS_STORAGE_BUCKET_NAME="media-bucket") == (
        "storages.backends.s3.S3Storage media-bucket"
    )


def test_search_backend_is_chosen_by_search_url():
    assert settings_value("dev.WAGTAILSEARCH_BACKENDS['default']['BACKEND']") == "search.backends"
    expression = "dev.WAGTAILSEARCH_BACKENDS['default']['BACKEND'], dev.WAGTAILSEARCH_BACKENDS['default']['URLS']"
    assert settings_value(expression, SEARCH_URL="http://search:9200", SEARCH_BACKEND="opensearch2") == (
        "wagtail.search.backends.opensearch2 ['http://search:9200']"
    )
    assert "SEARCH_BACKEND must be one of" in settings_value("1", SEARCH_URL="http://x", SEARCH_BACKEND="solr")


def test_tasks_backend_from_the_environment():
    assert settings_value("dev.TASKS['default']['BACKEND']").endswith("ImmediateBackend")
    assert settings_value("dev.TASKS['default']['BACKEND']", TASKS_BACKEND="database") == (
        "django_tasks_db.DatabaseBackend"
    )
    assert "TASKS_BACKEND must be" in settings_value("1", TASKS_BACKEND="celery")


def test_page_cache_token_watch_from_the_environment():
    assert settings_value("dev.PAGE_CACHE_TOKEN_WATCH") == "local"
    for value in ("local", "on", "off"):
        assert settings_value("dev.PAGE_CACHE_TOKEN_WATCH", PAGE_CACHE_TOKEN_WATCH=value) == value
    for value in ("", "yes", "ON", "local ", "always"):
        assert "PAGE_CACHE_TOKEN_WATCH must be" in settings_value("1", PAGE_CACHE_TOKEN_WATCH=value)
