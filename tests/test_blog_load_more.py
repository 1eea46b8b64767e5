"""The "Load more" progressive enhancement: a real rel=next link plus a small deferred script."""

import re
from pathlib import Path

from django.conf import settings

import pytest

pytestmark = pytest.mark.django_db

SCRIPT = '<script src="/static/js/load-more.js" defer></script>'


@pytest.mark.parametrize("url", ["/blog/", "/blog/authors/cedana-editorial/"])
def test_listing_with_more_pages_loads_the_script_and_keeps_the_link(client, demo, url):
    html = client.get(url).content.decode()
    assert SCRIPT in html
    assert 'href="?page=2" rel="next"' in html
    assert re.search(r'id="listing-count" data-start="1" data-end="1[23]" data-total="\d+" aria-live="polite"', html)


def test_last_page_has_no_script(client, demo):
    last = client.get("/blog/").context["posts"].paginator.num_pages
    assert last > 1
    html = client.get("/blog/", {"page": last}).content.decode()
    assert 'rel="next"' not in html and SCRIPT not in html


def test_script_is_small_and_finds_the_pager_by_its_rel(client, demo):
    source = (Path(settings.BASE_DIR) / "static" / "js" / "load-more.js").read_text()
    assert len(source.encode()) < 10 * 1024
    assert '.pager a[rel="next"]' in source and "#listing-count" in source
