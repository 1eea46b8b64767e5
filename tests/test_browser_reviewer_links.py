"""Reviewer links in real Chromium (issue 16): the editor copies a link with the Copy button, and
an outsider opening it sees the draft under a banner that stays in view, without the site's
Login and demo calls to action."""

from django.db import connection
from django.urls import reverse

import pytest
from playwright.sync_api import expect

from blog.models import ArticlePage

from .test_browser_editorial import WAIT, log_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    # As test_browser_editorial.py: the admin sends requests side by side, which the live
    # server's in-memory SQLite cannot take.
    pytest.mark.skipif(connection.vendor == "sqlite", reason="needs a database that takes concurrent requests"),
]


def test_editor_copies_a_reviewer_link_and_an_outsider_sees_the_draft_banner(browser, demo_live_server, editor):
    base = demo_live_server.url
    article = ArticlePage.objects.live().order_by("pk").first()
    article.title = "A draft only reviewers see"
    article.save_revision()

    editor_context = browser.new_context(viewport={"width": 1280, "height": 900})
    editor_context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    page = editor_context.new_page()
    log_in(page, base, editor.username)
    page.goto(base + reverse("reviewer_links", args=(article.pk,)))
    page.get_by_role("button", name="Create a link to the latest version").click()
    link_field = page.get_by_label("Reviewer link 1")
    expect(link_field).to_be_visible(timeout=WAIT)
    page.get_by_role("button", name="Copy").first.click()
    # Wagtail's clipboard controller shows "Copied" only once the browser has written the clipboard.
    expect(page.get_by_text("Copied", exact=True)).to_be_visible(timeout=WAIT)
    url = link_field.input_value()
    assert url.startswith(f"{base}/review/")

    outsider = browser.new_context(viewport={"width": 390, "height": 800}).new_page()
    outsider.goto(url)
    banner = outsider.get_by_role("status").filter(has_text="Draft for review, not published")
    expect(banner).to_be_visible()
    expect(outsider.get_by_role("heading", name="A draft only reviewers see")).to_be_visible()
    assert outsider.locator(".site-header__actions").count() == 0
    assert banner.get_by_role("button").count() == 0
    # Still in view after scrolling to the end of the article.
    outsider.keyboard.press("End")
    expect(banner).to_be_in_viewport()
    editor_context.close()
    outsider.context.close()
