"""Preview modes of an article (page, card, social card), before and after it is saved."""

import json
import re

from django.conf import settings
from django.urls import reverse

from wagtail.test.utils import WagtailPageTestCase

import pytest

from blog.models import ArticlePage, BlogIndexPage

from .admin_forms import article_form_data

pytestmark = pytest.mark.django_db

MODES = ["", "card", "social"]


class TestArticlePreviewModes(WagtailPageTestCase):
    def setUp(self):
        self.login()
        self.blog = BlogIndexPage.objects.get()
        self.article = ArticlePage.objects.order_by("pk").first()

    def test_article_offers_page_card_and_social_previews(self):
        assert [mode for mode, _label in self.article.preview_modes] == MODES

    def test_every_mode_previews_a_saved_article(self):
        data = article_form_data(self.article.slug, title="Previewed title", seo_title="Shared title")
        for mode in MODES:
            self.assertPageIsPreviewable(self.article, mode=mode, post_data=data)

    def preview(self, url, data, mode):
        response = self.client.post(url, data)
        assert response.status_code == 200
        assert response.json()["is_valid"], response.json()
        return self.client.get(url, {"mode": mode})

    def test_card_preview_shows_the_unsaved_card(self):
        url = reverse("wagtailadmin_pages:preview_on_edit", args=(self.article.pk,))
        data = article_form_data(self.article.slug, title="A title only the draft has", summary="Draft summary.")
        html = self.preview(url, data, "card").content.decode()
        assert '<article class="card">' in html
        assert "A title only the draft has" in html and "Draft summary." in html
        assert "GPU costs" in html  # the topic chosen in the form

    def test_social_preview_uses_seo_title_meta_description_and_a_wide_image(self):
        url = reverse("wagtailadmin_pages:preview_on_edit", args=(self.article.pk,))
        data = article_form_data(self.article.slug, seo_title="Shared title", search_description="Shared text.")
        html = self.preview(url, data, "social").content.decode()
        assert '<p class="social-card__title">Shared title</p>' in html
        assert "Shared text." in html
        image_tag = re.search(r"<img[^>]*>", html.split('class="social-card"', 1)[1]).group(0)
        assert ".fill-1200x630." in image_tag and 'width="1200"' in image_tag, image_tag

    def test_a_new_incomplete_article_previews_in_every_mode(self):
        url = reverse("wagtailadmin_pages:preview_on_add", args=("blog", "articlepage", self.blog.pk))
        data = article_form_data(
            "unsaved", summary="", image="", topics=[], authors=[], search_description="", body=[]
        )
        for mode in MODES:
            response = self.preview(url, data, mode)
            assert response.status_code == 200, mode
            assert "A new deep-dive" in response.content.decode()
        assert "No card image yet" in self.client.get(url, {"mode": "social"}).content.decode()

    def test_unknown_preview_mode_is_404(self):
        url = reverse("wagtailadmin_pages:preview_on_edit", args=(self.article.pk,))
        self.client.post(url, article_form_data(self.article.slug))
        for mode in ("<script>", "nope", "card/../"):
            assert self.client.get(url, {"mode": mode}).status_code == 404


class TestPreviewAccessibilityChecks(WagtailPageTestCase):
    """Wagtail runs its accessibility checks (axe) inside the preview panel's frame, through the
    user bar that ``templates/base.html`` renders; the preview is served under the readers' CSP."""

    def setUp(self):
        self.login()
        self.article = ArticlePage.objects.order_by("pk").first()

    def test_preview_panel_renders_the_user_bar_with_its_checks_under_the_site_csp(self):
        url = reverse("wagtailadmin_pages:preview_on_edit", args=(self.article.pk,))
        assert self.client.post(url, article_form_data(self.article.slug)).json()["is_valid"]
        response = self.client.get(url, {"mode": "", "in_preview_panel": "true"})
        assert response.status_code == 200
        html = response.content.decode()
        assert "<wagtail-userbar></wagtail-userbar>" in html
        config = re.search(r'<script id="checker-axe-configuration" type="application/json">(.*?)</script>', html)
        assert config, "the user bar's content checker is missing from the preview"
        axe = json.loads(config.group(1))
        assert {"heading-order", "link-name", "alt-text-quality"} <= set(axe["options"]["runOnly"])
        # The user bar's scripts are this site's own static files, which the readers' policy allows
        # without eval or inline script, and the admin (same origin) may frame the preview.
        userbar = html.split("<!-- Wagtail user bar embed code -->", 1)[1]
        scripts = re.findall(r'<script src="([^"]+)"', userbar)
        assert scripts and all(src.startswith(settings.STATIC_URL) for src in scripts), scripts
        csp = response["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'self'" in csp
        assert "unsafe-eval" not in csp and "unsafe-inline" not in csp
