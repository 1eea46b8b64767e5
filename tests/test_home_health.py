"""/healthz and /readyz: liveness, and readiness that notices a stalled scheduler."""

from datetime import timedelta

from django.utils import timezone

import pytest

pytestmark = pytest.mark.django_db


def test_healthz_answers_without_touching_the_database(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_readyz_ok_when_everything_works(client, demo):
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json()["checks"] == {"database": "ok", "cache": "ok", "scheduler": "ok"}


def test_readyz_fails_when_a_scheduled_publish_is_overdue(client, demo):
    article = demo.articles[2]
    article.title = "Scheduled update"
    revision = article.save_revision(approved_go_live_at=timezone.now() - timedelta(minutes=6))
    assert revision.approved_go_live_at is not None
    response = client.get("/readyz")
    assert response.status_code == 503
    assert "overdue" in response.json()["checks"]["scheduler"]


def test_readyz_tolerates_a_change_due_less_than_five_minutes_ago(client, demo):
    article = demo.articles[2]
    article.save_revision(approved_go_live_at=timezone.now() - timedelta(minutes=2))
    assert client.get("/readyz").status_code == 200


def test_readyz_fails_when_an_expiry_is_overdue(client, demo):
    article = demo.articles[4]
    article.expire_at = timezone.now() - timedelta(minutes=10)
    article.save(update_fields=["expire_at"])
    assert client.get("/readyz").status_code == 503


def test_readyz_reports_a_broken_cache(client, demo, monkeypatch):
    from django.core.cache.backends.redis import RedisCache

    from home.operations import health

    # A Redis cache pointed at a closed loopback port: every call fails to connect.
    monkeypatch.setattr(health, "cache", RedisCache("redis://127.0.0.1:1/0", {}))
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["cache"].startswith("unreachable")


@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_probes_only_answer_safe_methods(client, method):
    assert getattr(client, method)("/healthz").status_code == 405
