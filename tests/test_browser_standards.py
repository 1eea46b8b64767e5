"""The issue's quality bars for readers, in real Chromium: axe-core finds no WCAG 2.2 A/AA
violations on the reader pages at desktop and phone widths, no page scrolls sideways at 320px,
keyboard focus is visible, and the site works without JavaScript.

One test on one live server and one browser: every transactional test empties the database and
the next reloads the demo, so the checks share a single load (see tests/conftest.py)."""

import re
from pathlib import Path

from django.conf import settings

import pytest

from .reader_pages import make_every_block_article, reader_paths

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE_SOURCE = Path(settings.BASE_DIR) / "node_modules" / "axe-core" / "axe.min.js"
# axe-core's tags for the WCAG 2.0, 2.1 and 2.2 success criteria at levels A and AA.
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
RUN_AXE = """tags => axe.run(document, {runOnly: {type: "tag", values: tags}, resultTypes: ["violations"]})
    .then(results => results.violations.map(v => ({
        id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.slice(0, 5).map(n => n.target.join(" ") + " :: " + n.failureSummary),
    })))"""


def axe_violations(page) -> list[dict]:
    """Run axe-core (from node_modules, installed by ``make install-dev``) on the loaded page.

    Injected through the DevTools protocol (``page.evaluate``), which the site's CSP does not
    govern, so the page is checked under its real CSP."""
    if not AXE_SOURCE.exists():
        pytest.fail(f"{AXE_SOURCE} is missing: `make install-dev` runs `npm ci`")
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.evaluate(AXE_SOURCE.read_text(encoding="utf-8"))
    return page.evaluate(RUN_AXE, WCAG_TAGS)


def describe(violations: list[dict]) -> str:
    return "\n".join(f"{v['id']} ({v['impact']}): {v['help']}\n    " + "\n    ".join(v["nodes"]) for v in violations)


# The elements whose right edge is past 320px (tag, class, right edge, text), for the message of
# a failed width check: it failed once in CI by 3px and could not be reproduced in 2 runs.
WIDER_THAN_320 = """() => [...document.querySelectorAll("body *")]
    .filter((element) => element.getBoundingClientRect().right > 320)
    .slice(0, 12)
    .map((element) => `${element.tagName}.${element.className} ${Math.round(element.getBoundingClientRect().right)}px `
        + `${(element.textContent || "").trim().slice(0, 60)}`)
    .join("; ")"""


def test_reader_pages_meet_the_accessibility_and_no_javascript_bars(page, browser, demo_live_server):
    from blog.models import BlogIndexPage, TopicPage

    base = demo_live_server.url
    blog = BlogIndexPage.objects.get()
    article = make_every_block_article(blog, TopicPage.objects.get(slug="gpu-costs"))
    paths = reader_paths(article)

    # axe-core at desktop and phone widths; nothing wider than a 320px phone.
    for width in (1280, 320):
        page.set_viewport_size({"width": width, "height": 800})
        for name, path in paths.items():
            response = page.goto(base + path)
            assert response.status == (404 if name == "404" else 200), path
            violations = axe_violations(page)
            assert not violations, f"{name} at {width}px:\n{describe(violations)}"
            if width == 320:
                scroll_width = page.evaluate("document.documentElement.scrollWidth")
                assert scroll_width <= 320, (
                    f"{name} scrolls sideways at 320px ({scroll_width}px wide); past the edge: "
                    + page.evaluate(WIDER_THAN_320)
                )

    # The check can fail: axe reports an image without alt text.
    page.goto(f"{base}/blog/")
    page.evaluate("document.querySelector('.card__image').removeAttribute('alt')")
    assert "image-alt" in {violation["id"] for violation in axe_violations(page)}

    # Keyboard: the first Tab shows the skip link; the next lands on a link with a visible outline.
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{base}/blog/")
    page.keyboard.press("Tab")
    skip = page.locator(".skip-link")
    assert skip.evaluate("el => el === document.activeElement")
    assert skip.evaluate("el => el.getBoundingClientRect().top >= 0"), "the focused skip link is off screen"
    page.keyboard.press("Tab")
    focused = page.evaluate(
        """() => { const el = document.activeElement, style = getComputedStyle(el);
        return {tag: el.tagName, style: style.outlineStyle, width: parseFloat(style.outlineWidth),
                color: style.outlineColor}; }"""
    )
    assert focused["tag"] == "A", focused
    assert focused["style"] != "none" and focused["width"] >= 2, focused
    assert focused["color"] == "rgb(31, 94, 255)", focused  # --blue, 4.5:1 on the white header

    # Without JavaScript: "Load more" is a link to the next page, and search is a plain form.
    context = browser.new_context(java_script_enabled=False)
    try:
        no_js = context.new_page()
        no_js.goto(f"{base}/blog/")
        no_js.get_by_role("link", name="Load more").click()
        no_js.wait_for_url(f"{base}/blog/?page=2")
        assert re.fullmatch(r"Showing 13–\d+ of \d+ posts", no_js.locator(".listing-count").inner_text().strip())
        assert no_js.locator(".card-grid .card").count() >= 1
        no_js.get_by_role("searchbox", name="Search the blog").fill("checkpoint")
        no_js.keyboard.press("Enter")
        no_js.wait_for_url(re.compile(r"/search/\?query=checkpoint"))
        assert no_js.get_by_role("heading", level=1).inner_text() == "Results for “checkpoint”"
        assert no_js.locator(".card-grid .card").count() >= 1
    finally:
        context.close()
