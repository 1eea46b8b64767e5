"""Page weight budget for readers: CSS under 30 KB, JavaScript under 10 KB, no third-party
resources. The admin's own files (``static/css/admin/``, ``static/js/admin/``, loaded by Wagtail
admin hooks only) are not reader weight."""

import re
from pathlib import Path

from django.conf import settings

import pytest

pytestmark = pytest.mark.django_db

STATIC = Path(settings.BASE_DIR) / "static"


def reader_files(pattern: str) -> list[Path]:
    return [path for path in STATIC.rglob(pattern) if "admin" not in path.relative_to(STATIC).parts]


def test_static_css_and_js_fit_the_budget():
    css = sum(path.stat().st_size for path in reader_files("*.css"))
    js = sum(path.stat().st_size for path in reader_files("*.js"))
    assert css < 30 * 1024, css
    assert js < 10 * 1024, js


@pytest.mark.parametrize("url", ["/", "/blog/", "/blog/gpu-costs/", "/blog/authors/cedana-editorial/"])
def test_pages_load_no_third_party_scripts_or_styles(client, demo, url):
    html = client.get(url).content.decode()
    for tag in re.findall(r"<(?:script|link)\b[^>]*>", html):
        source = re.search(r'(?:src|href)="([^"]+)"', tag)
        if source and ('rel="stylesheet"' in tag or tag.startswith("<script")):
            assert source.group(1).startswith("/"), tag
    # Only the site's own small scripts (search autocomplete, theme toggle, "Load more"), deferred.
    scripts = re.findall(r'<script src="([^"]+)"', html)
    assert len(scripts) <= 3 and all(src.startswith("/static/js/") for src in scripts), scripts
