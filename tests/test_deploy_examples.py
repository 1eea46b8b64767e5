"""The deployment examples (Procfile, Kubernetes manifest) say what the app actually needs."""

from pathlib import Path

import pytest
import yaml

from tests.test_security_settings import production_settings  # noqa: F401 - a module fixture

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "docs" / "deploy" / "kubernetes" / "cedana-blog.yaml"


def manifest() -> list[dict]:
    return [doc for doc in yaml.safe_load_all(MANIFEST.read_text()) if doc]


def test_procfile_names_release_web_worker_and_scheduler():
    processes = dict(line.split(": ", 1) for line in (ROOT / "Procfile").read_text().splitlines() if line.strip())
    assert set(processes) == {"release", "web", "worker", "scheduler"}
    assert "migrate --noinput" in processes["release"] and "collectstatic --noinput" in processes["release"]
    assert processes["web"].startswith("gunicorn config.wsgi:application")
    assert processes["worker"].startswith("python manage.py db_worker")
    assert processes["scheduler"] == "python manage.py run_scheduler"


def probes() -> list[dict]:
    web = next(doc for doc in manifest() if doc["kind"] == "Deployment" and doc["metadata"]["name"].endswith("-web"))
    container = web["spec"]["template"]["spec"]["containers"][0]
    return [container["readinessProbe"]["httpGet"], container["livenessProbe"]["httpGet"]]


@pytest.mark.django_db
@pytest.mark.parametrize("probe", probes(), ids=lambda probe: probe["path"])
def test_kubernetes_probes_reach_the_health_views(client, settings, production_settings, probe):  # noqa: F811
    """As the kubelet sends them: plain HTTP, no X-Forwarded-Proto, the manifest's Host header,
    against the production settings' HTTPS redirect (see docs/deployment.md)."""
    config = next(doc for doc in manifest() if doc["kind"] == "ConfigMap")["data"]
    settings.ALLOWED_HOSTS = config["ALLOWED_HOSTS"].split(",")
    settings.SECURE_PROXY_SSL_HEADER = tuple(production_settings["SECURE_PROXY_SSL_HEADER"])
    settings.SECURE_SSL_REDIRECT = production_settings["SECURE_SSL_REDIRECT"]
    settings.SECURE_REDIRECT_EXEMPT = production_settings["SECURE_REDIRECT_EXEMPT"]
    host = {header["name"]: header["value"] for header in probe.get("httpHeaders", [])}.get("Host")
    assert host in settings.ALLOWED_HOSTS, "the kubelet's default Host (the pod's IP) is refused with a 400"
    response = client.get(probe["path"], HTTP_HOST=host)
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "ok"
