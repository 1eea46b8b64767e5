"""The Wagtail admin works under the site's Content-Security-Policy, in real Chromium.

An editor signs in, opens an article in the page editor, opens the preview panel (the reader's
page in a frame, under the readers' strict policy) and the image chooser modal, and the
two-step verification page. Chromium reports every blocked load or inline script/style as a
``securitypolicyviolation`` event in the frame where it happened, and as a console error; both
are recorded for every frame. A last step makes a real violation on a reader's page to prove the
recorder catches one.
"""

import re

from django.contrib.auth import get_user_model

import pytest

from blog.models import ArticlePage

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "Browser-Test-Password-42"
# Runs in every frame before the page's own scripts (Playwright init scripts are not subject to CSP).
RECORD_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.reportCspViolation(
    `${event.effectiveDirective} blocked ${event.blockedURI || "inline"} in ${event.documentURI}`
    + ` (${event.sourceFile || "?"}:${event.lineNumber || 0})`
  );
}, true);
"""

# Appends an inline script (which the readers' policy blocks) and waits for the violation event.
INLINE_SCRIPT_VIOLATION = """
() => new Promise((resolve) => {
  document.addEventListener("securitypolicyviolation", () => resolve(), {once: true});
  document.body.append(Object.assign(document.createElement("script"), {textContent: "1"}));
})
"""


@pytest.fixture
def recorded(page):
    """Lists of CSP violation events and CSP console errors, filled as the page runs."""
    record = {"events": [], "console": []}
    page.expose_function("reportCspViolation", lambda text: record["events"].append(text))
    page.add_init_script(RECORD_VIOLATIONS)
    page.on(
        "console",
        lambda message: (
            record["console"].append(message.text)
            if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text
            else None
        ),
    )
    return record


def sign_in(page, base: str, username: str) -> None:
    page.goto(f"{base}/admin/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/admin/")


def test_editor_preview_and_image_chooser_raise_no_csp_violation(page, demo_live_server, recorded):
    base = demo_live_server.url
    get_user_model().objects.create_superuser("csp-admin", "csp@example.com", PASSWORD)
    # An article the editor form accepts as it is (the preview shows only valid content). Some demo
    # articles' search descriptions are longer than the form's 160 characters.
    article = next(
        a for a in ArticlePage.objects.live().exclude(image=None).order_by("path") if len(a.search_description) <= 160
    )

    sign_in(page, base, "csp-admin")
    response = page.goto(f"{base}/admin/pages/{article.pk}/edit/")
    assert "unsafe-eval" in response.headers["content-security-policy"]  # the admin's own policy
    page.wait_for_load_state("networkidle")
    assert page.locator("#id_title").input_value() == article.title

    # The preview panel: the article rendered in a frame under the readers' policy.
    page.click("button[data-side-panel-toggle='preview']")
    preview = page.frame_locator("#w-preview-iframe")
    preview.locator("h1").filter(has_text=article.title).wait_for()
    page.wait_for_load_state("networkidle")

    # The image chooser modal on the card image field.
    chooser = page.locator("#id_image-chooser")
    chooser.get_by_role("button", name="Actions").click()
    chooser.get_by_role("button", name="Change image").click()
    modal = page.locator(".modal.fade.show, .modal[aria-hidden='false'], .modal:visible").first
    modal.locator("a.image-choice").first.wait_for()
    assert modal.get_by_role("heading", name=re.compile("Choose an image")).count() == 1
    page.wait_for_load_state("networkidle")

    # The two-step verification page (its QR code is inline SVG).
    page.goto(f"{base}/admin/mfa/setup/")
    page.locator(".staff-mfa-qr svg").wait_for()
    page.wait_for_load_state("networkidle")

    assert recorded["events"] == []
    assert recorded["console"] == []

    # The recorder does catch a violation: an inline script on a reader's (strict) page.
    page.goto(f"{base}/blog/")
    page.get_by_role("heading", level=1).first.wait_for()
    # Resolves when the page has dispatched the violation, which the recorder's listener (added
    # first) has passed to Python by then: its binding call reaches Playwright before the answer.
    page.evaluate(INLINE_SCRIPT_VIOLATION)
    assert any("script-src" in event and "/blog/" in event for event in recorded["events"])
