"""The issue's quality bars for readers, in real Chromium: axe-core finds no WCAG 2.2 A/AA
violations on every reader page type and every article layout variant at 1440 and 390 px in the
light and the dark theme, no page scrolls sideways at 390 or 320 px, keyboard focus is visible,
and the site works without JavaScript. Issue 17's layout checks: every article layout variant
keeps a full reading column at 1440 and 390 px, the phone header is one short row, the 404 page's
suggestions sit in the page's column, Load more keeps the address, the theme switch works with
and without JavaScript, and print shows the article alone.

Three tests (the axe-core sweep in each theme, then the rest) rather than one, so that two
pytest-xdist workers share them: every transactional test empties the database when it ends and
the next reloads the prepared demo (a copy, a second or two; see tests/conftest.py)."""

import re
from pathlib import Path

from django.conf import settings

import pytest

from .reader_pages import make_every_block_article, make_layout_variants, reader_paths

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


# "dark" when dark.css applies (it sets color-scheme: dark on the root), else "light".
COLOR_SCHEME = "getComputedStyle(document.documentElement).colorScheme.includes('dark') ? 'dark' : 'light'"
# The body column's width in px and in characters ("0" glyphs of the body text's font).
BODY_COLUMN = """() => { const body = document.querySelector(".article__body");
    const probe = document.createElement("span"); probe.textContent = "0".repeat(20);
    body.appendChild(probe); const ch = probe.getBoundingClientRect().width / 20; probe.remove();
    const width = body.getBoundingClientRect().width;
    return {width, chars: width / ch, toc: !!document.querySelector(".toc"),
            scroll: document.documentElement.scrollWidth}; }"""


def check_article_layouts(page, base, variants):
    """Each article layout variant (``{name: (article, has_toc)}``): a table of contents only with
    two headings, a body of at least 60 characters at 1440 px and the full phone width at 390 px,
    and no sideways scroll (wide tables and code scroll inside their own box)."""
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        for name, (article, has_toc) in variants.items():
            page.goto(base + article.url)
            column = page.evaluate(BODY_COLUMN)
            assert column["toc"] is has_toc, f"{name}: table of contents {column['toc']}"
            assert column["scroll"] <= width, f"{name} scrolls sideways at {width}px ({column['scroll']}px)"
            if width == 1440:
                assert column["chars"] >= 60, f"{name}: body {column['chars']:.0f} characters wide at 1440px"
            else:
                assert column["width"] >= width - 2 * 20 - 2, f"{name}: body {column['width']}px wide at 390px"


def check_phone_header(page, base):
    """At 390x844 the header is one short row (issue 17 measured 22% before) with a search link;
    at 1440 px the search form; the search page's own box stays usable at 320 px."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{base}/blog/")
    header = page.locator(".site-header").bounding_box()
    assert header["height"] / 844 < 0.11, f"the phone header takes {header['height'] / 844:.0%} of the screen"
    search_link = page.locator(".site-header").get_by_role("link", name="Search")
    assert search_link.is_visible() and search_link.get_attribute("href") == "/search/"
    assert not page.locator(".site-search").is_visible()
    for name in ("Login", "Schedule demo", "Light or dark theme"):
        assert page.locator(".site-header").get_by_role("link", name=name).is_visible(), name
    page.set_viewport_size({"width": 1440, "height": 900})
    assert page.locator(".site-search").is_visible() and not search_link.is_visible()
    for width in (390, 320):
        page.set_viewport_size({"width": width, "height": 700})
        page.goto(f"{base}/search/?query=gpu")
        assert page.locator("#search-page-query").bounding_box()["width"] >= 200
        # "Sort by" wraps with its menu (it once ended the query's row, the menu below it).
        label, menu = page.get_by_text("Sort by").bounding_box(), page.locator("#search-sort").bounding_box()
        assert abs((label["y"] + label["height"] / 2) - (menu["y"] + menu["height"] / 2)) < 4, (width, label, menu)


def check_not_found_suggestions(page, base):
    """The 404 page's newest articles and topics line up with its heading (they once sat unstyled
    at the window's left edge, with bullets), side by side on a desktop, stacked on a phone."""
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{base}/blog/no-such-page/")
        heading = page.get_by_role("heading", level=1).bounding_box()
        newest = page.get_by_role("heading", name="Newest articles").bounding_box()
        topics = page.get_by_role("heading", name="Topics").bounding_box()
        assert abs(newest["x"] - heading["x"]) < 1, (width, newest, heading)
        assert (topics["y"] == newest["y"]) is (width == 1440), (width, topics, newest)
        bullet = page.locator(".not-found-suggestions li").first.evaluate("el => getComputedStyle(el).listStyleType")
        assert bullet == "none", bullet


def check_card_meta_alignment(page, base):
    """Issue 17: a card's date and byline sit at the same height on every card of a row, whatever
    its topics. The newest card here has two topics, one with a very long name; they share one
    line, cut with an ellipsis, at 1440 px (three cards a row) and 390 px."""
    from blog.models import BlogIndexPage, TopicPage

    from .factories import ArticlePageFactory, TopicPageFactory

    blog = BlogIndexPage.objects.get()
    long_topic = TopicPageFactory(parent=blog, title="Checkpoint and restore of long-running GPU training fleets")
    ArticlePageFactory(
        parent=blog, title="Two topics, one long", topics=[long_topic, TopicPage.objects.get(slug="gpu-costs")]
    )
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{base}/blog/")
        offsets = page.locator(".card-grid > li").evaluate_all(
            """items => items.slice(0, 3).map(item => {
                const card = item.querySelector(".card").getBoundingClientRect();
                const topics = item.querySelector(".card__topics");
                return {time: item.querySelector(".card__meta time").getBoundingClientRect().top - card.top,
                        cut: topics.scrollWidth > topics.clientWidth};
            })"""
        )
        assert len({round(offset["time"]) for offset in offsets}) == 1, (width, offsets)
        assert offsets[0]["cut"], "the long topic line should be cut with an ellipsis"


def check_dark_theme(page, browser, base):
    """The device's preference applies without a cookie; the cookie overrides it either way; the
    header's toggle switches in place (JavaScript) and the choice survives a reload; the
    blueprint illustrations are inverted rather than left as white boxes."""
    context = browser.new_context(color_scheme="dark")
    try:
        dark_device = context.new_page()
        dark_device.goto(f"{base}/blog/")
        assert dark_device.evaluate(COLOR_SCHEME) == "dark"
        assert "invert" in dark_device.locator(".card__image").first.evaluate("el => getComputedStyle(el).filter")
        context.add_cookies([{"name": "theme", "value": "light", "url": base}])
        dark_device.reload()
        assert dark_device.evaluate(COLOR_SCHEME) == "light"
    finally:
        context.close()
    page.context.clear_cookies()
    page.emulate_media(color_scheme="light")
    page.goto(f"{base}/blog/")
    assert page.evaluate(COLOR_SCHEME) == "light"
    page.get_by_role("link", name="Light or dark theme").click()
    page.locator("html[data-theme-applied='dark']").wait_for(state="attached")
    assert page.url == f"{base}/blog/" and page.evaluate(COLOR_SCHEME) == "dark"
    page.reload()
    assert page.evaluate(COLOR_SCHEME) == "dark"
    page.get_by_role("link", name="Light or dark theme").click()
    page.locator("html[data-theme-applied='light']").wait_for(state="attached")
    assert page.evaluate(COLOR_SCHEME) == "light"
    page.context.clear_cookies()


def check_print(page, url):
    """Printed, an article is its body alone: no header, footer or contents; links followed by
    their address; code wrapped, in the light palette whatever the theme."""
    page.context.add_cookies([{"name": "theme", "value": "dark", "url": url}])
    page.emulate_media(media="print")
    try:
        page.goto(url)
        for selector in (".site-header", ".site-footer", ".toc", ".article__footer"):
            assert page.locator(selector).first.evaluate("el => getComputedStyle(el).display") == "none", selector
        link = page.locator(".article__body a[href^='/']").first
        after = link.evaluate("el => getComputedStyle(el, '::after').content")
        assert link.get_attribute("href") in after, after
        assert page.locator(".block-code pre").first.evaluate("el => getComputedStyle(el).whiteSpace") == "pre-wrap"
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"
    finally:
        page.emulate_media(media="screen")
        page.context.clear_cookies()


def check_load_more_keeps_the_address(page, base):
    """After Load more the address is ?page=2, so Back from an article opened from the new cards
    returns to that page with the card on it."""
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{base}/blog/")
    page.get_by_role("link", name="Load more").click()
    new_card = page.locator(".card-grid > li").nth(12)
    new_card.wait_for()
    page.wait_for_url(f"{base}/blog/?page=2")
    title = new_card.locator(".card__title a").inner_text()
    new_card.locator(".card__title a").click()
    page.wait_for_url(re.compile(r"/blog/[^?]+/$"))
    page.go_back()
    page.wait_for_url(f"{base}/blog/?page=2")
    assert page.locator(".card__title a", has_text=title).first.is_visible()


def make_reader_pages():
    """The article with every block and the layout variants: ``(article, variants, paths)``, where
    ``paths`` is ``{name: path}`` of every reader page type and article layout."""
    from blog.models import BlogIndexPage, TopicPage

    blog = BlogIndexPage.objects.get()
    article = make_every_block_article(blog, TopicPage.objects.get(slug="gpu-costs"))
    variants = make_layout_variants(blog, TopicPage.objects.get(slug="gpu-costs"))
    paths = {
        **reader_paths(article),
        **{f"article: {name}": variant.url for name, (variant, _) in variants.items()},
        "author with unbroken words": "/blog/authors/unbroken-words/",
    }
    return article, variants, paths


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_reader_pages_pass_axe_and_fit_a_phone(theme, page, demo_live_server):
    """axe-core at the screenshots' desktop and phone widths (1440, 390), in each theme, on every
    page type and article layout; nothing wider than a 390 or 320 px phone."""
    base = demo_live_server.url
    _article, _variants, paths = make_reader_pages()
    page.context.add_cookies([{"name": "theme", "value": theme, "url": base}])
    for name, path in paths.items():
        # Each page is loaded once, at the desktop width, and then narrowed: the layout follows
        # the viewport's width (media queries, flex and grid), not how the page was loaded.
        page.set_viewport_size({"width": 1440, "height": 800})
        response = page.goto(base + path)
        assert response.status == (404 if name == "404" else 200), path
        assert page.evaluate(COLOR_SCHEME) == theme, f"{name}: not in the {theme} theme"
        for width in (1440, 390, 320):
            page.set_viewport_size({"width": width, "height": 800})
            if width != 320:
                violations = axe_violations(page)
                assert not violations, f"{name} at {width}px, {theme} theme:\n{describe(violations)}"
            if width <= 390:
                scroll_width = page.evaluate("document.documentElement.scrollWidth")
                assert scroll_width <= width, (
                    f"{name} scrolls sideways at {width}px ({scroll_width}px wide); past 320px: "
                    + page.evaluate(WIDER_THAN_320)
                )
    page.context.clear_cookies()


def test_reader_pages_meet_the_layout_keyboard_and_no_javascript_bars(page, browser, demo_live_server):
    base = demo_live_server.url
    article, variants, _paths = make_reader_pages()
    check_article_layouts(page, base, {**variants, "every block": (article, True)})
    check_phone_header(page, base)
    check_not_found_suggestions(page, base)
    check_card_meta_alignment(page, base)
    check_dark_theme(page, browser, base)
    check_print(page, base + article.url)

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
        # Page 1 showed the featured article and 12 cards, so page 2 starts at the 14th post.
        assert re.fullmatch(r"Showing 14–\d+ of \d+ posts", no_js.locator(".listing-count").inner_text().strip())
        assert no_js.locator(".card-grid .card").count() >= 1
        no_js.get_by_role("searchbox", name="Search the blog").fill("checkpoint")
        no_js.keyboard.press("Enter")
        no_js.wait_for_url(re.compile(r"/search/\?query=checkpoint"))
        assert no_js.get_by_role("heading", level=1).inner_text() == "Results for “checkpoint”"
        assert no_js.locator(".card-grid .card").count() >= 1
        # The phone header's search button is a plain link to the search page.
        no_js.set_viewport_size({"width": 390, "height": 844})
        no_js.goto(f"{base}/blog/")
        no_js.locator(".site-header").get_by_role("link", name="Search").click()
        no_js.wait_for_url(f"{base}/search/")
        # The theme link opens a form that stores the choice and returns to the page.
        no_js.goto(f"{base}/blog/gpu-costs/")
        no_js.get_by_role("link", name="Light or dark theme").click()
        no_js.wait_for_url(re.compile(r"/theme/\?next="))
        no_js.get_by_label("Dark", exact=True).check()
        no_js.get_by_role("button", name="Save and go back").click()
        no_js.wait_for_url(f"{base}/blog/gpu-costs/")
        assert no_js.evaluate(COLOR_SCHEME) == "dark"
    finally:
        context.close()

    check_load_more_keeps_the_address(page, base)
