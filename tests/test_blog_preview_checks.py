"""The editor's Checks panel (Wagtail's accessibility checker) leaves the preview modes' own
mock-up markup alone (issue 16, the workspace) and still checks the editor's content."""

import json
import re

from django.test import RequestFactory

from wagtail.admin.userbar import ContentCheckerItem, apply_userbar_hooks

import pytest

from blog.wagtail_hooks import SiteContentChecker

pytestmark = pytest.mark.django_db

SCAFFOLDING = [".preview-frame__note", ".social-card__body", ".preview-frame .card__title"]


def test_the_userbar_uses_the_site_checker(demo, admin_user):
    request = RequestFactory().get("/")
    request.user = admin_user
    items = [ContentCheckerItem(in_editor=True)]
    apply_userbar_hooks(request, items, demo.articles[0])
    assert [type(item) for item in items] == [SiteContentChecker] and items[0].in_editor
    configuration = items[0].get_axe_configuration(request)
    for selector in SCAFFOLDING:
        assert selector in configuration["context"]["exclude"]
    assert configuration["context"]["include"] == ["body"]
    assert "alt-text-quality" in str(configuration)  # the editor's alt text is still checked


@pytest.mark.parametrize("selector", SCAFFOLDING)
def test_the_excluded_markup_is_only_the_preview_mock_up(selector):
    from pathlib import Path

    from django.conf import settings

    templates = Path(settings.BASE_DIR) / "templates"
    css_class = selector.split()[-1].lstrip(".")
    users = {
        path.relative_to(templates).as_posix()
        for path in templates.rglob("*.html")
        if re.search(rf'class="[^"]*\b{re.escape(css_class)}\b', path.read_text())
    }
    if css_class == "card__title":
        # The card's title is shared with listings; only its copy inside .preview-frame is excluded.
        assert selector.startswith(".preview-frame ")
    else:
        assert users and all(user.startswith("previews/") for user in users), users


def test_the_article_page_userbar_carries_the_configuration(admin_client, demo):
    html = admin_client.get(demo.articles[0].url).content.decode()
    match = re.search(r'<script id="checker-axe-configuration" type="application/json">(.*?)</script>', html, re.S)
    assert match, "the userbar's checker configuration"
    configuration = json.loads(match.group(1))
    for selector in SCAFFOLDING:
        assert selector in configuration["context"]["exclude"]


def test_the_editors_checks_panel_uses_the_site_checker(admin_client, demo):
    from django.urls import reverse

    html = admin_client.get(reverse("wagtailadmin_pages:edit", args=(demo.articles[0].pk,))).content.decode()
    assert ".social-card__body" in html  # the Checks panel's axe configuration
