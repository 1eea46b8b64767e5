"""The Nu HTML checker (npm ``vnu-jar``, the W3C validator's engine) finds no errors on the reader
pages: home, blog index, a topic, an article with every block type, search results, the 404,
an author page and the 500 page. One JVM run checks them all (about a second)."""

import json
import os
import shutil
import subprocess
from pathlib import Path

from django.conf import settings
from django.test import RequestFactory
from django.views.defaults import server_error

import pytest

from .reader_pages import make_every_block_article, reader_paths

pytestmark = pytest.mark.django_db

VNU_JAR = Path(settings.BASE_DIR) / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"


def nu_errors(files: list[Path]) -> list[dict]:
    """The Nu checker's error messages for ``files`` (``[{"url", "message", "extract", ...}]``)."""
    java = shutil.which("java")
    if not java or not VNU_JAR.exists():
        missing = "java" if not java else f"{VNU_JAR} (run `make install-dev`, which runs `npm ci`)"
        if os.environ.get("CI"):
            pytest.fail(f"Nu HTML checker needs {missing}")
        pytest.skip(f"Nu HTML checker needs {missing}")
    result = subprocess.run(
        [java, "-Xss4m", "-jar", str(VNU_JAR), "--errors-only", "--format", "json", "--stdout", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    messages = json.loads(result.stdout)["messages"]
    assert result.returncode == (1 if messages else 0), result.stderr
    return [message for message in messages if message.get("type") == "error"]


def test_reader_pages_have_no_html_errors(client, demo, tmp_path):
    article = make_every_block_article(demo.blog, demo.topics["gpu-costs"])
    pages = {**reader_paths(article), "author": "/blog/authors/cedana-editorial/"}
    files = []
    for name, path in pages.items():
        response = client.get(path)
        assert response.status_code == (404 if name == "404" else 200), path
        file = tmp_path / f"{name.replace(' ', '-')}.html"
        file.write_bytes(response.content)
        files.append(file)
    error_page = tmp_path / "500.html"
    error_page.write_bytes(server_error(RequestFactory().get("/")).content)
    files.append(error_page)

    errors = nu_errors(files)
    assert not errors, "\n".join(
        f"{Path(error['url']).name}:{error.get('lastLine')}: {error['message']} [{error.get('extract', '')}]"
        for error in errors
    )


def test_the_checker_reports_an_error(tmp_path):
    """The check above can fail: a page with a duplicate id and an unclosed element is rejected."""
    page = tmp_path / "bad.html"
    page.write_text('<!DOCTYPE html><html lang="en"><title>x</title><p id="a">1</p><p id="a"><span>2</p>')
    messages = " ".join(error["message"] for error in nu_errors([page]))
    assert "Duplicate ID" in messages
