"""Animations, pixel budgets, hostile uploads and very large images (docs/images.md): an ordinary
animation is accepted and served with every frame, bombs and broken files get form errors, and a
very large image's renditions are made by the worker while pages show the original."""

import io
import re
from pathlib import Path

from django.conf import settings
from django.template import Context, Template

import pytest
from PIL import Image

from home.image_renditions import make_image_renditions
from home.models import SiteImage, SiteRendition

from .factories import SiteImageFactory
from .image_fixtures import SIZE, admin_upload, encode, gif_with_size_in_header, png_with_size_in_header

pytestmark = pytest.mark.django_db

# The card tag of components/article_card.html, with the hero's and the figure's specs beside it.
TAGS = {
    "card": '{% picture image fill-{480x270,800x450,1200x675} format-{avif,webp,png} sizes="92vw" alt="A chart" '
    'loading="lazy" class="card__image" %}',
    "hero": '{% picture image fill-{800x450,1200x675} format-{avif,webp,png} sizes="100vw" alt="" '
    'fetchpriority="high" %}',
    "figure": '{% picture image width-{480,800,1200} format-{avif,webp,png} sizes="100vw" alt="A chart" %}',
}


@pytest.fixture
def admin_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("budget", "b@example.com", "Budget-Pass-12345"))
    return client


@pytest.fixture(autouse=True)
def _no_cached_renditions():
    SiteRendition.cache_backend.clear()


def animation(image_format: str, frames: int, size: tuple[int, int] = SIZE) -> bytes:
    """``frames`` frames of ``size``: a bar sweeping across a flat background, each frame different."""
    images = []
    for index in range(frames):
        frame = Image.new("P", size, 0)
        frame.putpalette([240, 240, 235, 200, 60, 30])
        left = index * (size[0] - size[0] // 10) // max(frames - 1, 1)
        frame.paste(1, (left, size[1] // 6, left + size[0] // 10, size[1] - size[1] // 6))
        images.append(frame if image_format == "GIF" else frame.convert("RGB"))
    options = {"duration": 40, "loop": 0}
    if image_format == "WEBP":
        options.update(quality=60, method=0)
    return encode(images[0], image_format, save_all=True, append_images=images[1:], **options)


def queued(backend) -> list:
    """The ``make_image_renditions`` tasks queued on ``backend`` (Wagtail queues its own too)."""
    return [result for result in backend.results if result.task.func is make_image_renditions.func]


def render(tag: str, image) -> str:
    return Template("{% load image_tags %}" + tag).render(Context({"image": image}))


@pytest.mark.parametrize(
    ("image_format", "name", "frames"),
    [("GIF", "anim.gif", 100), ("WEBP", "anim.webp", 12)],
    ids=["gif-100-frames", "webp"],
)
def test_an_ordinary_animation_is_accepted_and_served_with_every_frame(admin_client, image_format, name, frames):
    content = animation(image_format, frames)
    assert len(content) < 1_000_000  # an ordinary upload, well under the 10 MB limit
    response, errors = admin_upload(admin_client, name, content)
    assert response.status_code == 302, errors
    image = SiteImage.objects.get(title=name)
    assert image.frame_count == frames and image.is_animated

    html = render(TAGS["card"], image)
    assert html.startswith("<img ") and "<picture" not in html
    assert f'src="{image.file.url}"' in html and 'width="1200"' in html and 'height="630"' in html
    assert 'alt="A chart"' in html and 'class="card__image"' in html and "sizes=" not in html
    assert not SiteRendition.objects.filter(image=image).exists()
    with image.file.open() as file, Image.open(file) as served:
        assert served.n_frames == frames


def test_an_animated_png_gets_wagtails_form_error(admin_client):
    """Willow does not open APNG, so Wagtail refuses it as not an image: animations are GIF or WebP."""
    response, errors = admin_upload(admin_client, "anim.png", animation("PNG", 12))
    assert response.status_code == 200
    assert "Upload a valid image" in errors


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        # 170 frames of 1200x630 = 128.5 MP, over the 120 MP an animation may have in all.
        ("long.gif", lambda: animation("GIF", 170), "170 frames of 756,000 pixels"),
        # One frame of 8000x6000 = 48 MP, over the 40 MP a frame may have (header only: no pixels).
        ("big.png", lambda: png_with_size_in_header(8000, 6000), "more than the 40,000,000 an image may have"),
        # Decompression bombs: headers claiming more than Pillow will decode.
        ("bomb.png", lambda: png_with_size_in_header(30000, 30000), "too many pixels"),
        ("bomb.gif", lambda: gif_with_size_in_header(65535, 65535), "too many pixels"),
    ],
    ids=["too-many-frames", "frame-over-40mp", "png-bomb", "gif-bomb"],
)
def test_over_budget_uploads_get_a_form_error(admin_client, name, content, message):
    before = SiteImage.objects.count()
    response, errors = admin_upload(admin_client, name, content())
    assert response.status_code == 200
    assert message in errors
    assert SiteImage.objects.count() == before


def _truncated(image_format: str) -> bytes:
    data = encode(Image.effect_noise(SIZE, 60).convert("RGB"), image_format)
    return data[: len(data) // 2]


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("empty.png", lambda: b""),
        ("cut.png", lambda: _truncated("PNG")),
        ("cut.jpg", lambda: _truncated("JPEG")),
        ("cut.gif", lambda: _truncated("GIF")),
        ("cut.webp", lambda: _truncated("WEBP")),
        ("png-named.jpg", lambda: encode(Image.new("RGB", SIZE), "PNG")),
        ("text.png", lambda: b"not an image at all\n" * 50),
        ("page.svg", lambda: b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
        ("header-only.gif", lambda: encode(Image.new("P", SIZE), "GIF")[:13]),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_hostile_files_get_a_form_error_not_a_500(admin_client, name, content):
    before = SiteImage.objects.count()
    response, errors = admin_upload(admin_client, name, content())
    assert response.status_code == 200
    assert errors
    assert SiteImage.objects.count() == before


@pytest.fixture
def very_large(settings):
    """The factory's 1200x675 images count as very large, and tasks go to a queue that is not run."""
    settings.IMAGE_RENDITIONS_IN_REQUEST_MAX_PIXELS = 1200 * 675 - 1
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
    backend = make_image_renditions.get_backend()
    backend.clear()
    return backend


@pytest.mark.parametrize("tag", sorted(TAGS))
def test_a_very_large_image_is_queued_and_shown_as_the_original_until_its_renditions_exist(very_large, tag):
    image = SiteImageFactory()
    html = render(TAGS[tag], image)
    assert html.startswith("<img ") and f'src="{image.file.url}"' in html and "<picture" not in html
    assert not SiteRendition.objects.filter(image=image).exists()  # nothing made in the request
    [task] = queued(very_large)
    assert task.args[0] == image.pk and len(task.args[1]) in (6, 9)

    render(TAGS[tag], image)
    assert len(queued(very_large)) == 1  # a second reader does not queue it again

    assert make_image_renditions.call(*task.args) == len(task.args[1])  # what the worker runs
    html = render(TAGS[tag], SiteImage.objects.get(pk=image.pk))
    assert html.startswith("<picture>") and image.file.url not in html
    assert len(queued(very_large)) == 1


def test_with_the_in_process_backend_nothing_is_made_in_the_request(settings):
    settings.IMAGE_RENDITIONS_IN_REQUEST_MAX_PIXELS = 1200 * 675 - 1
    image = SiteImageFactory()
    html = render(TAGS["card"], image)
    assert f'src="{image.file.url}"' in html
    assert not SiteRendition.objects.filter(image=image).exists()


def test_an_image_within_the_limit_gets_its_renditions_in_the_request(very_large, settings):
    settings.IMAGE_RENDITIONS_IN_REQUEST_MAX_PIXELS = 1200 * 675
    image = SiteImageFactory()
    html = render(TAGS["hero"], image)
    assert html.startswith("<picture>")
    assert SiteRendition.objects.filter(image=image).count() == 6
    assert not queued(very_large)


def test_the_original_img_escapes_its_attributes():
    image = SiteImageFactory(frame_count=5)
    html = Template("{% load image_tags %}{% picture image width-400 alt=alt %}").render(
        Context({"image": image, "alt": '"><script>'})
    )
    assert "<script>" not in html and "&quot;&gt;&lt;script&gt;" in html


def test_the_animation_fixture_really_is_animated():
    with Image.open(io.BytesIO(animation("GIF", 3, (320, 160)))) as image:
        assert image.n_frames == 3 and image.is_animated


def test_every_template_with_a_picture_loads_the_project_tag():
    """A template that loads Wagtail's ``wagtailimages_tags`` for ``{% picture %}`` would serve an
    animation's first frame and make a very large image's renditions in the request."""
    checked = 0
    for path in (Path(settings.BASE_DIR) / "templates").rglob("*.html"):
        text = path.read_text()
        if "{% picture" not in text:
            continue
        loads = [name for load in re.findall(r"{% load ([^%]+) %}", text) for name in load.split()]
        assert "image_tags" in loads and "wagtailimages_tags" not in loads, path
        checked += 1
    assert checked >= 3
