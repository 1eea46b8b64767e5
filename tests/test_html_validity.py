"""The Nu HTML checker (npm ``vnu-jar``, the W3C validator's engine) finds no errors on the reader
pages: home, blog index, a topic, an article with every block type and each article layout
variant (issue 17), search results, the 404, an author page, the theme chooser, the 405 and the 500 page,
and in the stylesheets of both themes (site.css, dark.css and /theme.css as each cookie makes
it). Page HTML is the same in every theme (tests/test_home_theme.py) except the chooser's checked
choice, so the chooser is checked in each. One JVM run checks them all (a few seconds)."""

import json
import os
import shutil
import subprocess
from pathlib import Path

from django.conf import settings
from django.test import RequestFactory
from django.views.defaults import server_error

import pytest

from .reader_pages import make_every_block_article, make_layout_variants, reader_paths

VNU_JAR = Path(settings.BASE_DIR) / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"


def nu_errors(files: list[Path]) -> list[dict]:
    """The Nu checker's error messages for ``files`` (``[{"url", "message", "extract", ...}]``)."""
    java = shutil.which("java")
    if not java or not VNU_JAR.exists():
        missing = "java" if not java else f"{VNU_JAR} (run `make install-dev`, which runs `npm ci`)"
        if os.environ.get("CI"):
            pytest.fail(f"Nu HTML checker needs {missing}")
        pytest.skip(f"Nu HTML checker needs {missing}")
    # One short run: the quick JIT tier and one GC thread halve the JVM's CPU, same messages.
    result = subprocess.run(
        [
            java,
            "-Xss4m",
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-jar",
            str(VNU_JAR),
            "--errors-only",
            "--also-check-css",
            "--format",
            "json",
            "--stdout",
        ]
        + [str(file) for file in files],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    messages = json.loads(result.stdout)["messages"]
    assert result.returncode == (1 if messages else 0), result.stderr
    return [message for message in messages if message.get("type") == "error"]


@pytest.mark.django_db
def test_reader_pages_have_no_html_errors(client, demo, tmp_path):
    article = make_every_block_article(demo.blog, demo.topics["gpu-costs"])
    variants = make_layout_variants(demo.blog, demo.topics["gpu-costs"])
    pages = {
        **reader_paths(article),
        **{f"layout {name}": variant.url for name, (variant, _toc) in variants.items()},
    }
    files = []
    for theme in ("light", "dark"):
        client.cookies["theme"] = theme
        for name, path in pages.items() if theme == "light" else [("theme chooser", pages["theme chooser"])]:
            response = client.get(path)
            assert response.status_code == (404 if name == "404" else 200), path
            file = tmp_path / f"{theme}-{name.replace(' ', '-').replace(',', '')}.html"
            file.write_bytes(response.content)
            files.append(file)
        theme_css = tmp_path / f"theme-{theme}.css"
        theme_css.write_bytes(client.get("/theme.css").content)
        files.append(theme_css)
    files += [Path(settings.BASE_DIR) / "static" / "css" / name for name in ("site.css", "dark.css")]
    error_page = tmp_path / "500.html"
    error_page.write_bytes(server_error(RequestFactory().get("/")).content)
    files.append(error_page)
    refused = client.post("/search/")
    assert refused.status_code == 405
    (method_page := tmp_path / "405.html").write_bytes(refused.content)
    files.append(method_page)

    errors = nu_errors(files)
    assert not errors, "\n".join(
        f"{Path(error['url']).name}:{error.get('lastLine')}: {error['message']} [{error.get('extract', '')}]"
        for error in errors
    )


def test_the_checker_reports_an_error(tmp_path):
    """The check above can fail: a page with a duplicate id and an unclosed element is rejected,
    and so is a stylesheet with an unknown property."""
    page = tmp_path / "bad.html"
    page.write_text('<!DOCTYPE html><html lang="en"><title>x</title><p id="a">1</p><p id="a"><span>2</p>')
    stylesheet = tmp_path / "bad.css"
    stylesheet.write_text(":root { colour: red; }\n")
    messages = " ".join(error["message"] for error in nu_errors([page, stylesheet]))
    assert "Duplicate ID" in messages and "“colour”" in messages
