"""AVIF renditions (home/upstream/willow.py) and the renditions made on publish for body images."""

from django.test import override_settings

import pytest
from PIL import Image

from blog.renditions import ARTICLE_RENDITION_SPECS, FIGURE_RENDITION_SPECS
from home.models import SiteRendition

from .factories import ArticlePageFactory, SiteImageFactory

pytestmark = pytest.mark.django_db


@override_settings(WAGTAILIMAGES_AVIF_QUALITY=55, WAGTAILIMAGES_AVIF_SPEED=9)
def test_avif_renditions_use_the_configured_quality_and_speed(monkeypatch):
    saved = []
    original_save = Image.Image.save

    def recording_save(self, fp, format=None, **params):  # noqa: A002 - Pillow's own argument name
        saved.append((format, params))
        return original_save(self, fp, format, **params)

    monkeypatch.setattr(Image.Image, "save", recording_save)
    rendition = SiteImageFactory().get_rendition("fill-160x90|format-avif")
    avif = [params for format, params in saved if format == "AVIF"]
    assert avif and avif[0]["quality"] == 55 and avif[0]["speed"] == 9
    with rendition.file.open() as file, Image.open(file) as image:
        assert (image.format, image.size) == ("AVIF", (160, 90))


def test_publishing_makes_the_body_image_renditions(demo, django_capture_on_commit_callbacks, settings):
    settings.BLOG_RENDITIONS_ON_PUBLISH = True  # off in the test settings
    figure = SiteImageFactory()
    body = [{"type": "image", "value": {"image": figure.pk, "alt_text": "A chart", "caption": ""}}]
    page = ArticlePageFactory(
        parent=demo.blog, topics=[demo.topics["gpu-costs"]], body=body, live=False, image=SiteImageFactory()
    )
    with django_capture_on_commit_callbacks(execute=True):
        page.save_revision().publish()
    made = set(SiteRendition.objects.filter(image=figure).values_list("filter_spec", flat=True))
    assert made == set(FIGURE_RENDITION_SPECS)
    assert {spec.split("|")[1] for spec in made} == {"format-avif", "format-webp", "format-png"}
    card = set(SiteRendition.objects.filter(image=page.image).values_list("filter_spec", flat=True))
    assert card == set(ARTICLE_RENDITION_SPECS)
