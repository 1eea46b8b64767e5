"""``{% picture %}`` from home/templatetags/image_tags.py: Wagtail's HTML and rendition lookups,
with the ``Filter`` objects made once per template node instead of on every render."""

import re
from pathlib import Path

from django.conf import settings
from django.template import Context, Template
from django.template.loader import get_template

from wagtail.images.models import Filter

import pytest

from home.models import SiteRendition

from .factories import SiteImageFactory

pytestmark = pytest.mark.django_db

# Small renditions keep the tests quick; the attributes mix literals and a variable with a filter.
TAG = (
    '{% picture image fill-{40x20,80x40} format-{webp,png} sizes="50vw" alt=alt '
    'loading=loading|default:"lazy" class="card__image" %}'
)
SPEC_COUNT = 4  # fill-{40x20,80x40} x format-{webp,png}


def ours(body: str) -> Template:
    return Template("{% load image_tags %}" + body)


def wagtails(body: str) -> Template:
    return Template("{% load wagtailimages_tags %}" + body)


@pytest.fixture(autouse=True)
def _no_cached_renditions():
    """Rolled-back tests reuse image ids, and the factory's images share a file hash, so a
    rendition cached by an earlier test would stand in for one these tests expect to be made."""
    SiteRendition.cache_backend.clear()


@pytest.fixture
def filters_made(monkeypatch):
    """A list that grows by one spec for every ``Filter`` constructed."""
    made = []
    original_init = Filter.__init__

    def counting_init(self, spec=None):
        made.append(spec)
        original_init(self, spec)

    monkeypatch.setattr(Filter, "__init__", counting_init)
    return made


def test_the_html_is_wagtails():
    image = SiteImageFactory()
    context = {"image": image, "alt": "A <chart>", "loading": None}
    html = ours(TAG).render(Context(context))
    assert html == wagtails(TAG).render(Context(context))
    assert html.startswith("<picture>") and 'alt="A &lt;chart&gt;"' in html and 'loading="lazy"' in html


def test_the_as_form_gives_wagtails_picture_object():
    image = SiteImageFactory()
    body = "{% picture image fill-{40x20,80x40} format-{webp,png} as pic %}{{ pic }}|{{ pic.formats|length }}"
    html = ours(body).render(Context({"image": image}))
    assert html == wagtails(body).render(Context({"image": image}))
    assert html.endswith("|2")


def test_no_image_renders_nothing():
    assert ours(TAG).render(Context({"image": None})) == ""


def test_filters_are_made_once_per_node_across_renders_and_images(filters_made):
    template = ours(TAG)
    first, second = SiteImageFactory(), SiteImageFactory()
    for image in (first, second, first):
        template.render(Context({"image": image, "alt": ""}))
    assert len(filters_made) == SPEC_COUNT


def test_wagtails_own_tag_makes_them_on_every_render(filters_made):
    """The control for the test above: what the project's tag exists to avoid."""
    template = wagtails(TAG)
    image = SiteImageFactory()
    for _ in range(3):
        template.render(Context({"image": image, "alt": ""}))
    assert len(filters_made) == 3 * SPEC_COUNT


def test_the_cached_template_loader_keeps_the_filters_between_renders(filters_made):
    """Templates from the loader (cached, as in production) reuse their nodes and so their filters."""
    image = SiteImageFactory()
    template = get_template("components/streamfield/blocks/figure_block.html")
    value = {"image": image, "alt_text": "A chart", "caption": ""}
    template.render({"value": value})
    made_by_first_render = len(filters_made)
    html = get_template("components/streamfield/blocks/figure_block.html").render({"value": value})
    assert len(filters_made) == made_by_first_render
    assert "<picture>" in html


def test_each_image_gets_its_own_renditions_for_its_own_focal_point():
    """Shared filters still key renditions by each image's focal point, as Wagtail does."""
    left = SiteImageFactory(focal_point_x=100, focal_point_y=300, focal_point_width=50, focal_point_height=50)
    right = SiteImageFactory(focal_point_x=1100, focal_point_y=300, focal_point_width=50, focal_point_height=50)
    template = ours(TAG)
    for image in (left, right):
        template.render(Context({"image": image, "alt": ""}))
    for image in (left, right):
        keys = set(SiteRendition.objects.filter(image=image).values_list("focal_point_key", flat=True))
        expected = {Filter("fill-40x20|format-webp").get_cache_key(image)}
        assert keys == expected
    assert {r.image_id for r in SiteRendition.objects.filter(image__in=[left, right])} == {left.pk, right.pk}


def test_missing_renditions_are_made_and_prefetched_ones_are_used(django_assert_num_queries):
    image = SiteImageFactory()
    template = ours(TAG)
    template.render(Context({"image": image, "alt": ""}))
    assert SiteRendition.objects.filter(image=image).count() == SPEC_COUNT

    prefetched = type(image).objects.prefetch_related("renditions").get(pk=image.pk)
    with django_assert_num_queries(0):
        html = template.render(Context({"image": prefetched, "alt": ""}))
    assert html == wagtails(TAG).render(Context({"image": prefetched, "alt": ""}))


def test_an_image_whose_file_is_missing_renders_wagtails_not_found_picture():
    image = SiteImageFactory()
    Path(image.file.path).unlink()
    context = {"image": image, "alt": ""}
    html = ours(TAG).render(Context(context))
    assert html == wagtails(TAG).render(Context(context))
    assert "not-found" in html


def test_every_template_with_a_picture_loads_the_project_tag():
    """A template that loads ``wagtailimages_tags`` after ``image_tags`` would get Wagtail's tag back."""
    templates = Path(settings.BASE_DIR) / "templates"
    for path in templates.rglob("*.html"):
        text = path.read_text()
        if "{% picture" not in text:
            continue
        loaded = [name for load in re.findall(r"{% load ([^%]+) %}", text) for name in load.split()]
        assert "image_tags" in loaded and "wagtailimages_tags" not in loaded, path
