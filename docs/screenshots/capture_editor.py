"""Screenshots for the editor guide (docs/editor-guide.md), saved in docs/screenshots/:

- ``editor-import.png``: the admin "Import articles" view after a dry-run upload of a small
  Markdown file (the report and the form; nothing is saved), as the moderator;
- ``editor-chart.png``: a chart block on a demo article, as readers see it;
- ``editor-footnotes.png``: a paragraph with a footnote reference above the article's "Notes
  and references" list;
- ``editor-calendar.png`` and ``editor-calendar-phone.png``: the editorial calendar (this month,
  or ``--month YYYY-MM``) as the editor, at 1400 px and at 390 px;
- ``dashboard.png``: the moderator's whole dashboard;
- ``editor-review-messages.png``: the moderator's dashboard panels "Returned to you" and "In
  review" (they list what is in review on the site: on a fresh demo both say there is nothing,
  so first submit two articles for review as ``editor``, one of them with a go-live time ahead,
  and have one of the moderator's own submissions returned);
- ``editor-review-returned.png``, ``editor-review-approved.png`` and ``editor-review-banner.png``:
  what people are told. The script acts as the moderator: it requests changes, with a comment,
  on the first article in review that goes live "as soon as it is approved" and approves the
  first one with a go-live time (so run it on a copy of the demo database), then opens the
  returned article as the editor, who sees the banner with the moderator's comment.

Usage (``make screenshots-editor``; the site must already be served, with the demo loaded)::

    .venv/bin/python docs/screenshots/capture_editor.py [--base-url http://127.0.0.1:8000] \\
        [--logins var/demo-logins.json] [--month 2027-01]

The logins file is the one ``manage.py load_demo`` writes (``{"editor": "<password>",
"moderator": "<password>", ...}``). Drives Debian's Chromium (``CHROMIUM_PATH``, default
/usr/bin/chromium) through Playwright. Each shot is a clip of the part of the page it is about,
reduced to 256 colours so the files stay small; admin pages get a viewport as tall as the
page (at most 1800 px) because the admin scrolls inside ``main``. Exits non-zero if a login, a page or an element
it waits for fails.
"""

import argparse
import json
import os
import re
import sys
from io import BytesIO
from pathlib import Path

# The reader shots' Chromium flags (a script in this folder: run as a script, it is importable).
from capture_reader import CHROMIUM_FLAGS
from PIL import Image
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent
# A demo article with a chart block and footnotes (blog/demo/fixtures/demo_content.json).
ARTICLE = "/blog/the-two-ceilings-why-the-ridge-point-is-the-gpu-number-that-matters/"
DESKTOP = {"width": 1400, "height": 1000}
PHONE = {"width": 390, "height": 844}
MAX_HEIGHT = 1800
TIMEOUT_MS = 30_000
PAD = 16
# The upload for the import shot: a title, a topic that does not exist, a level-4 heading and a
# footnote, so the report has something to say.
SAMPLE_MARKDOWN = """\
---
title: Measuring the ridge point on your own GPU
summary: How to find where a GPU stops being memory-bound, with a ten-minute benchmark.
topics: [GPU costs, No such topic]
authors: [cedana-editorial]
date: 2026-12-01
---

The ridge point is peak compute divided by memory bandwidth.[^ridge]

## Run the benchmark

Sweep the arithmetic intensity of a simple kernel and plot the achieved throughput.

#### A note on clocks

Lock the clocks first, or the numbers drift.

[^ridge]: In FLOP per byte; see the roofline model.
"""


def save(png: bytes, target: Path) -> Path:
    """Write ``png`` as ``target`` reduced to 256 colours."""
    with Image.open(BytesIO(png)) as shot:
        shot.convert("RGB").quantize(colors=256).save(target, optimize=True)
    return target


def fit_viewport(page) -> None:
    """Make the viewport as tall as the page (at most MAX_HEIGHT): the admin scrolls inside its
    ``main``, so a full-page shot of it would stop at the viewport's bottom."""
    needed = page.evaluate(
        "Math.max(document.documentElement.scrollHeight,"
        " ...[...document.querySelectorAll('main')].map(m => m.scrollHeight + m.getBoundingClientRect().top))"
    )
    size = page.viewport_size
    if needed > size["height"]:
        page.set_viewport_size({"width": size["width"], "height": min(int(needed), MAX_HEIGHT)})
        page.wait_for_function("h => window.innerHeight === h", arg=min(int(needed), MAX_HEIGHT))


def box_of(page, locators, pad: int = PAD) -> dict:
    """The page-coordinate rectangle around the elements of ``locators``, ``pad`` px larger,
    within the page width and at most MAX_HEIGHT tall."""
    boxes = [
        page.evaluate(
            "e => { const r = e.getBoundingClientRect(); return {x: r.left + scrollX, y: r.top + scrollY,"
            " right: r.right + scrollX, bottom: r.bottom + scrollY}; }",
            locator.element_handle(),
        )
        for locator in locators
    ]
    width = page.evaluate("document.documentElement.clientWidth")
    x = max(min(box["x"] for box in boxes) - pad, 0)
    y = max(min(box["y"] for box in boxes) - pad, 0)
    right = min(max(box["right"] for box in boxes) + pad, width)
    bottom = max(box["bottom"] for box in boxes) + pad
    return {"x": x, "y": y, "width": right - x, "height": min(bottom - y, MAX_HEIGHT)}


def shoot(page, locators, target: Path, pad: int = PAD) -> Path:
    """Save the region around ``locators`` (see ``box_of``) as ``target``."""
    # Animations finished: admin messages fade in.
    return save(page.screenshot(full_page=True, clip=box_of(page, locators, pad), animations="disabled"), target)


def open_page(page, url: str, ready: str) -> None:
    """Load ``url``, raising unless it answers 200, and wait for the selector ``ready``."""
    response = page.goto(url, wait_until="load")
    if response is None or response.status != 200:
        raise RuntimeError(f"{url} answered {response and response.status}, not 200")
    page.wait_for_selector(ready, state="visible")
    page.evaluate("document.querySelectorAll('img[loading=lazy]').forEach(i => i.loading = 'eager')")
    page.wait_for_load_state("networkidle")
    fit_viewport(page)


def log_in(browser, base_url: str, username: str, password: str, viewport: dict = DESKTOP):
    """A new page signed in to the admin as ``username`` (on the dashboard)."""
    page = browser.new_page(viewport=viewport, device_scale_factor=1, color_scheme="light")
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"{base_url}/admin/login/", wait_until="load")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("form button[type=submit]")
    page.wait_for_url(f"{base_url}/admin/", wait_until="load")
    page.wait_for_selector("main", state="visible")
    return page


def capture_import(page, base_url: str) -> list[Path]:
    open_page(page, f"{base_url}/admin/articles/import/", "main form input[type=file]")
    page.set_input_files(
        "input[name=file]",
        files=[{"name": "ridge-point.md", "mimeType": "text/markdown", "buffer": SAMPLE_MARKDOWN.encode()}],
    )
    page.check("input[name=dry_run]")
    with page.expect_navigation(wait_until="load"):
        page.click("main form button[type=submit]")
    page.wait_for_selector("#import-report", state="visible")
    fit_viewport(page)
    main = page.locator("main")
    return [shoot(page, [main.locator("header").first, main.locator("form")], OUT / "editor-import.png")]


def capture_reader(page, base_url: str) -> list[Path]:
    open_page(page, base_url + ARTICLE, ".block-chart")
    chart = page.locator(".block-chart").first
    written = [shoot(page, [chart], OUT / "editor-chart.png", pad=24)]
    # The first paragraph with a reference, then the notes: two clips stacked with a rule between.
    paragraph = page.locator(".block-paragraph:has(sup.footnote-ref)").first
    notes = page.locator("section.block-footnotes")
    parts = []
    for locator in (paragraph, notes):
        with Image.open(BytesIO(page.screenshot(full_page=True, clip=box_of(page, [locator], 24)))) as part:
            parts.append(part.convert("RGB"))
    gap = 24
    background = parts[0].getpixel((0, 0))
    sheet = Image.new("RGB", (max(p.width for p in parts), sum(p.height for p in parts) + gap), background)
    sheet.paste(parts[0], (0, 0))
    rule_y = parts[0].height + gap // 2
    sheet.paste(Image.new("RGB", (sheet.width - 48, 1), (200, 205, 215)), (24, rule_y))
    sheet.paste(parts[1], (0, parts[0].height + gap))
    buffer = BytesIO()
    sheet.save(buffer, format="PNG")
    written.append(save(buffer.getvalue(), OUT / "editor-footnotes.png"))
    return written


def capture_calendar(page, base_url: str, month: str, target: Path) -> list[Path]:
    query = f"?month={month}" if month else ""
    open_page(page, f"{base_url}/admin/calendar/{query}", "table.editorial-calendar")
    main = page.locator("main")
    return [shoot(page, [main], target, pad=0)]


def capture_review_panels(page, base_url: str) -> list[Path]:
    open_page(page, f"{base_url}/admin/", "#in-review-section")
    panels = [page.locator("#returned-to-me-section"), page.locator("#in-review-section")]
    return [shoot(page, panels, OUT / "editor-review-messages.png")]


def capture_dashboard(page, base_url: str) -> list[Path]:
    open_page(page, f"{base_url}/admin/", "#in-review-section")
    return [shoot(page, [page.locator("main")], OUT / "dashboard.png", pad=0)]


def message_shot(page, text: str, target: Path) -> Path:
    """The admin's message ``text`` with the page heading above it."""
    message = page.get_by_role("status").filter(has_text=text)
    message.wait_for(state="visible")
    return shoot(page, [message, page.locator("main h1").first], target)


def open_in_review(page, base_url: str, goes_live: str) -> str:
    """Open the editor of the first article in review whose "Goes live" column matches the regular
    expression ``goes_live``; returns its title."""
    open_page(page, f"{base_url}/admin/", "#in-review-section")
    row = page.locator("#in-review-section tbody tr").filter(has_text=re.compile(goes_live)).first
    title = row.get_by_role("link").inner_text().strip()
    row.get_by_role("link").click()
    page.wait_for_url(re.compile(r"/admin/pages/\d+/edit/$"), wait_until="load")
    return title


def capture_review_outcomes(moderator, editor, base_url: str) -> list[Path]:
    """Request changes on one article in review and approve another, as the moderator; then the
    editor's banner on the returned one."""
    written = []
    title = open_in_review(moderator, base_url, "as soon as it is approved")
    moderator.locator("footer .w-dropdown__toggle").first.click()
    moderator.get_by_role("button", name="Request changes", exact=True).click()
    dialog = moderator.locator(".modal-dialog")
    dialog.get_by_label("Comment").fill("Please give the restore times for the 70B model as well.")
    dialog.get_by_role("button", name="Request changes").click()
    # The comment dialog submits the editor's form, which then goes to the blog's page listing.
    moderator.wait_for_url(re.compile(r"/admin/pages/\d+/$"), wait_until="load")
    moderator.wait_for_load_state("networkidle")
    written.append(message_shot(moderator, "Returned to", OUT / "editor-review-returned.png"))

    open_in_review(moderator, base_url, r"\d{4}-\d\d-\d\d \d\d:\d\d")
    moderator.locator("footer .w-dropdown__toggle").first.click()
    moderator.get_by_role("button", name="Approve and Publish", exact=True).click()
    moderator.wait_for_load_state("load")
    written.append(message_shot(moderator, "Approved:", OUT / "editor-review-approved.png"))

    open_page(editor, f"{base_url}/admin/", "#returned-to-me-section")
    editor.locator("#returned-to-me-section").get_by_role("link", name=title, exact=True).click()
    editor.wait_for_url(re.compile(r"/admin/pages/\d+/edit/$"), wait_until="load")
    written.append(message_shot(editor, "Changes requested by", OUT / "editor-review-banner.png"))
    return written


def capture(base_url: str, logins: dict, month: str = "") -> list[Path]:
    """Take every shot; returns the files written."""
    written = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"), args=CHROMIUM_FLAGS
        )
        try:
            reader = browser.new_page(viewport=DESKTOP, device_scale_factor=1, color_scheme="light")
            reader.set_default_timeout(TIMEOUT_MS)
            written += capture_reader(reader, base_url)
            reader.close()

            editor = log_in(browser, base_url, "editor", logins["editor"])
            written += capture_calendar(editor, base_url, month, OUT / "editor-calendar.png")
            editor.close()
            phone = log_in(browser, base_url, "editor", logins["editor"], viewport=PHONE)
            written += capture_calendar(phone, base_url, month, OUT / "editor-calendar-phone.png")
            phone.close()

            moderator = log_in(browser, base_url, "moderator", logins["moderator"])
            written += capture_dashboard(moderator, base_url)
            written += capture_review_panels(moderator, base_url)
            written += capture_import(moderator, base_url)
            editor = log_in(browser, base_url, "editor", logins["editor"])
            written += capture_review_outcomes(moderator, editor, base_url)
            editor.close()
            moderator.close()
        finally:
            browser.close()
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000", help="the running demo site")
    parser.add_argument(
        "--logins", type=Path, default=ROOT / "var" / "demo-logins.json", help="passwords written by load_demo"
    )
    parser.add_argument("--month", default="", help="the calendar's month as YYYY-MM (default: this month)")
    args = parser.parse_args()
    logins = json.loads(args.logins.read_text())
    for file in capture(args.base_url.rstrip("/"), logins, args.month):
        sys.stdout.write(f"{file.relative_to(ROOT)}  {file.stat().st_size // 1024} KB\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
