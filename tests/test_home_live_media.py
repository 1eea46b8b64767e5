"""Images and documents in live use (issue 16): an editor cannot replace their file or move an
image's focal point (readers would see it at once, unreviewed); moderators can, and editors can
still upload new media and change media that only drafts use."""

import io
import re

from django.core.cache import caches
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from wagtail.documents import get_document_model
from wagtail.models import Collection, ReferenceIndex

import pytest
from PIL import Image

from home.models import SiteImage

from .factories import ArticlePageFactory, SiteImageFactory

pytestmark = pytest.mark.django_db


def png(colour: str, size=(1600, 900)) -> SimpleUploadedFile:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, "PNG")
    return SimpleUploadedFile(f"{colour}.png", buffer.getvalue(), content_type="image/png")


def form_values(client, url: str) -> dict:
    """The edit form's current values, as the admin's browser would post them back."""
    form = client.get(url).context["form"]
    values = {}
    for name in form.fields:
        value = form[name].value()
        if name == "file" or value is None:
            continue
        values[name] = ", ".join(str(tag) for tag in value) if name == "tags" else value
    return values


def edit_image(client, image, **changes):
    url = reverse("wagtailimages:edit", args=(image.pk,))
    return client.post(url, {**form_values(client, url), **changes})


def reader_image_state(image) -> tuple:
    image = SiteImage.objects.get(pk=image.pk)
    return image.file.name, image.focal_point_x, image.focal_point_y, image.focal_point_width, image.focal_point_height


def reader_media(url: str) -> list[str]:
    """The image and document addresses an anonymous reader's copy of ``url`` refers to (card,
    hero and social images with their renditions, document links), rendered afresh: every cache
    is emptied first, so no page or fragment cached before the change can hide it."""
    for cache in caches.all():
        cache.clear()
    response = Client().get(url)
    assert response.status_code == 200
    return sorted(
        re.findall(r'(?:src|srcset|href|content)="([^"]*(?:/media/|/documents/)[^"]*)"', response.content.decode())
    )


def reader_download(document) -> bytes:
    """The bytes an anonymous reader downloads from ``document``'s public address."""
    response = Client().get(document.url)
    assert response.status_code == 200
    return b"".join(response.streaming_content)


@pytest.fixture
def live_image(demo):
    """An image of its own that a live article uses (indexed as Wagtail does on save); its
    ``reader_url`` is that article's address. Not a demo image: Wagtail's image form deletes the
    replaced original file at once, which no rollback brings back for later tests."""
    image = SiteImageFactory(collection=Collection.get_first_root_node())
    article = ArticlePageFactory(parent=demo.blog, topics=[demo.topics["gpu-costs"]], image=image)
    ReferenceIndex.create_or_update_for_object(article)
    assert article.live
    image.reader_url = article.url
    return image


UNREVIEWED_CHANGES = {
    "a new file": lambda: {"file": png("red")},
    "a focal point": lambda: {
        "focal_point_x": "10",
        "focal_point_y": "10",
        "focal_point_width": "20",
        "focal_point_height": "20",
    },
    "a moved focal point centre": lambda: {"focal_point_x": "900", "focal_point_y": "5"},
    "a cleared focal point": lambda: {"focal_point_x": "", "focal_point_y": "", "focal_point_width": ""},
}


@pytest.mark.parametrize("change", UNREVIEWED_CHANGES, ids=list(UNREVIEWED_CHANGES))
def test_an_editor_cannot_change_what_readers_see_of_an_image_in_live_use(client, live_image, editor, change):
    live_image.focal_point_x, live_image.focal_point_y = 400, 300
    live_image.focal_point_width, live_image.focal_point_height = 100, 100
    live_image.save()
    before = reader_image_state(live_image)
    article_url = live_image.reader_url
    seen = reader_media(article_url)
    # The article shows this image (the renditions of its focal point made for the reader).
    assert any(rendition.file.name.rsplit("/", 1)[-1] in " ".join(seen) for rendition in live_image.renditions.all())
    client.force_login(editor)
    response = edit_image(client, live_image, **UNREVIEWED_CHANGES[change]())
    assert response.status_code == 200
    html = response.content.decode()
    assert "used by live content" in html
    assert "Ask a moderator" in html
    assert reader_image_state(live_image) == before
    assert reader_media(article_url) == seen


def test_an_editor_may_still_retitle_an_image_in_live_use(client, live_image, editor):
    client.force_login(editor)
    response = edit_image(client, live_image, title="Better library name")
    assert response.status_code == 302
    assert SiteImage.objects.get(pk=live_image.pk).title == "Better library name"


# A focal point is its centre and its area: one without all four values is refused
# (home/image_uploads/focal_point.py).
FOCAL_AREA = {"focal_point_width": "4", "focal_point_height": "4"}


def test_a_moderator_may_replace_an_image_in_live_use(client, live_image, moderator):
    article_url = live_image.reader_url
    seen = reader_media(article_url)
    client.force_login(moderator)
    response = edit_image(client, live_image, file=png("blue"), focal_point_x="5", focal_point_y="5", **FOCAL_AREA)
    assert response.status_code == 302
    image = SiteImage.objects.get(pk=live_image.pk)
    assert image.focal_point_x == 5
    assert "blue" in image.file.name
    # The reader's page changes (so the checks above compare something that would change).
    assert reader_media(article_url) != seen


def test_an_editor_may_replace_an_image_only_drafts_use(client, demo, editor):
    image = SiteImageFactory(collection=Collection.get_first_root_node())
    draft = ArticlePageFactory(parent=demo.blog, topics=[demo.topics["gpu-costs"]], image=image, live=False)
    ReferenceIndex.create_or_update_for_object(draft)
    client.force_login(editor)
    response = edit_image(client, image, file=png("green"), focal_point_x="7", focal_point_y="7", **FOCAL_AREA)
    assert response.status_code == 302
    assert SiteImage.objects.get(pk=image.pk).focal_point_x == 7


def test_an_editor_may_still_upload_new_images(client, demo, editor):
    client.force_login(editor)
    response = client.post(
        reverse("wagtailimages:add"), {"title": "New", "file": png("purple"), "description": "A purple square."}
    )
    assert response.status_code == 302
    assert SiteImage.objects.filter(title="New").exists()


def test_an_editor_cannot_replace_a_document_a_live_page_links_to(client, demo, editor, moderator):
    document = get_document_model().objects.create(
        title="Benchmark data", file=SimpleUploadedFile("data.csv", b"gpu,cost\na,1\n")
    )
    article = ArticlePageFactory(
        parent=demo.blog,
        topics=[demo.topics["gpu-costs"]],
        body=[{"type": "paragraph", "value": f'<p><a linktype="document" id="{document.pk}">data</a></p>'}],
    )
    ReferenceIndex.create_or_update_for_object(article)
    url = reverse("wagtaildocs:edit", args=(document.pk,))

    def stored():
        with get_document_model().objects.get(pk=document.pk).file.open("rb") as file:
            return file.read()

    links = reader_media(article.url)
    assert document.url in links

    client.force_login(editor)
    data = {**form_values(client, url), "file": SimpleUploadedFile("data.csv", b"gpu,cost\na,999\n")}
    response = client.post(url, data)
    assert response.status_code == 200
    assert "used by live content" in response.content.decode()
    assert stored() == b"gpu,cost\na,1\n"
    assert reader_media(article.url) == links
    assert reader_download(document) == b"gpu,cost\na,1\n"

    client.force_login(moderator)
    data = {**form_values(client, url), "file": SimpleUploadedFile("data.csv", b"gpu,cost\na,2\n")}
    assert client.post(url, data).status_code == 302
    assert stored() == b"gpu,cost\na,2\n"
    assert reader_download(document) == b"gpu,cost\na,2\n"


def test_an_editor_cannot_replace_the_photo_of_a_live_author(client, demo, editor, moderator):
    from blog.models import Author

    image = SiteImageFactory(collection=Collection.get_first_root_node())
    author = Author.objects.get(slug="cedana-editorial")
    author.photo = image
    author.save()
    ReferenceIndex.create_or_update_for_object(author)
    before = reader_image_state(image)
    seen = reader_media("/blog/authors/cedana-editorial/")
    client.force_login(editor)
    response = edit_image(client, image, file=png("orange"))
    assert response.status_code == 200
    assert "“Cedana Editorial”" in response.content.decode()
    assert reader_image_state(image) == before
    assert reader_media("/blog/authors/cedana-editorial/") == seen
    client.force_login(moderator)
    assert edit_image(client, image, file=png("orange")).status_code == 302
