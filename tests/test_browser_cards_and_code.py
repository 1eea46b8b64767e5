"""In real Chromium: a card is one click target and one tab stop, and a code listing's copy button
copies the code and says so."""

import re

import pytest
from playwright.sync_api import expect

from .reader_pages import CODE_SAMPLE, make_every_block_article

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _tab_through_cards(page, cards):
    """Focus the first card's link, then Tab once per card: each lands on the next card's title link."""
    count = cards.count()
    assert count > 1
    for index in range(count):
        card = cards.nth(index)
        assert card.get_by_role("link").count() == 1, f"card {index} has more than one link"
        if index == 0:
            card.get_by_role("link").focus()
        else:
            page.keyboard.press("Tab")
        expect(card.locator(".card__title a")).to_be_focused()
    return count


def test_each_card_is_one_tab_stop_and_one_click_target_with_a_visible_focus_ring(page, demo_live_server):
    base = demo_live_server.url
    for path in ("/blog/gpu-costs/", "/search/?query=gpu"):
        page.goto(base + path)
        cards = page.locator(".card-grid .card")
        _tab_through_cards(page, cards)

    page.set_viewport_size({"width": 1280, "height": 1400})  # the whole first card in view
    page.goto(f"{base}/blog/gpu-costs/")
    first = page.locator(".card-grid .card").first
    first.scroll_into_view_if_needed()
    first.locator(".card__title a").focus()
    ring = first.locator(".card__title a").evaluate(
        """el => { const s = getComputedStyle(el, "::after"), box = el.closest(".card").getBoundingClientRect();
        // Near each corner of the card, the topmost element is the title link (its ::after).
        const corners = [[box.left + 4, box.top + 4], [box.right - 4, box.top + 4],
                         [box.left + 4, box.bottom - 4], [box.right - 4, box.bottom - 4]];
        return {style: s.outlineStyle, width: parseFloat(s.outlineWidth), position: s.position,
                corners: corners.map(([x, y]) => document.elementFromPoint(x, y) === el)}; }"""
    )
    assert ring == {"style": "solid", "width": 3, "position": "absolute", "corners": [True] * 4}, ring

    # A click anywhere on the card (here its summary) opens the article.
    title = first.locator(".card__title a").inner_text()
    # (The mouse, not locator.click(): Playwright refuses to click an element that another one,
    # here the stretched link, covers, which is the point.)
    summary = first.locator(".card__summary").bounding_box()
    page.mouse.click(summary["x"] + summary["width"] / 2, summary["y"] + summary["height"] / 2)
    expect(page.get_by_role("heading", level=1)).to_have_text(title)


def test_the_copy_button_copies_the_code_and_announces_it(page, context, demo_live_server):
    from blog.models import BlogIndexPage, TopicPage

    article = make_every_block_article(BlogIndexPage.objects.get(), TopicPage.objects.get(slug="gpu-costs"))
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(demo_live_server.url + article.url)
    block = page.locator("figure.block-code")
    expect(block.locator(".block-code__language")).to_have_text("Python")
    button = block.get_by_role("button", name=re.compile(r"^Copy code"))
    button.click()
    expect(block.get_by_role("status")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == CODE_SAMPLE


def test_without_javascript_there_is_no_button_and_the_code_is_text(browser, demo_live_server):
    from blog.models import BlogIndexPage, TopicPage

    article = make_every_block_article(BlogIndexPage.objects.get(), TopicPage.objects.get(slug="gpu-costs"))
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(demo_live_server.url + article.url)
        block = page.locator("figure.block-code")
        assert block.get_by_role("button").count() == 0
        assert block.locator("pre").inner_text().strip() == CODE_SAMPLE.strip()
    finally:
        context.close()
