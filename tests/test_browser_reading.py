"""A reader's path through the blog in real Chromium: index, paging, topic, article contents.
(Keyboard focus, the 320px layout and reading without JavaScript: tests/test_browser_standards.py.)"""

import re

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_reader_pages_through_the_blog_and_reads_an_article(page, demo_live_server):
    base = demo_live_server.url
    page.goto(f"{base}/blog/")
    assert page.locator(".listing-count").inner_text().strip() == "Showing 13 of 98 posts"  # featured + 12 cards
    assert page.locator(".card-grid .card").count() == 12

    # "Load more" is a real link to ?page=2 that static/js/load-more.js turns into in-place loading.
    assert page.get_by_role("link", name="Load more").get_attribute("href") == "?page=2"
    page.get_by_role("link", name="Load more").click()
    page.locator(".card-grid .card").nth(23).wait_for()  # (wait_for_function needs eval, which CSP forbids)
    assert page.locator(".listing-count").inner_text().strip() == "Showing 25 of 98 posts"

    # The captured topic pages (tests/seeds/): the featured article on top, "All posts · 98",
    # then "Showing 12 of 22 posts" with a Load more that brings the other ten.
    page.get_by_role("navigation", name="Topics").get_by_role("link", name="Inference performance").click()
    page.wait_for_url(f"{base}/blog/inference-performance/")
    assert page.get_by_role("link", name="All posts · 98").is_visible()
    assert page.locator(".featured__title").inner_text().startswith("The Era of Stateful Inference")
    assert page.locator(".listing-count").inner_text().strip() == "Showing 12 of 22 posts"
    assert page.locator(".card-grid .card").count() == 12
    page.get_by_role("link", name="Load more").click()
    page.locator(".card-grid .card").nth(21).wait_for()
    page.wait_for_url(f"{base}/blog/inference-performance/?page=2")
    assert page.locator(".listing-count").inner_text().strip() == "Showing 22 of 22 posts"
    assert page.locator(".card-grid .card").count() == 22 and page.get_by_role("link", name="Load more").count() == 0

    page.get_by_role("navigation", name="Topics").get_by_role("link", name="GPU costs").click()
    page.wait_for_url(f"{base}/blog/gpu-costs/")
    assert page.get_by_role("link", name="All posts · 98").is_visible()
    assert page.locator(".listing-count").inner_text().strip() == "Showing 7 of 7 posts"
    assert page.get_by_role("link", name="Load more").count() == 0
    images = page.locator(".card-grid img")
    assert all(images.nth(i).get_attribute("alt") for i in range(images.count()))

    page.locator(".card-grid").get_by_role("link", name=re.compile(r"^How much utilization improvement")).click()
    heading = page.get_by_role("heading", level=1)
    assert "break even on GPU checkpointing" in heading.inner_text()
    first_toc_link = page.locator(".toc a").first
    target = first_toc_link.get_attribute("href")
    first_toc_link.click()
    assert page.url.endswith(target)
    assert page.locator(target).is_visible()
