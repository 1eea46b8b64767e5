"""The images API lists only images kept in public collections (issue 15, "Images API"): an
image in a private collection (a view restriction on it or a parent collection) stays out of
``/api/v2/images/`` (listing, detail and find) whatever uses it, so a draft's or an embargoed
page's image is not found through the API. Wagtail's images endpoint does this itself
(``ImagesAPIViewSet.get_queryset`` leaves out restricted collections); these tests hold it to
that for every kind of use and place on a page."""

from datetime import timedelta

from django.utils import timezone

from wagtail.models import Collection, CollectionViewRestriction, PageViewRestriction

import pytest

from blog.models import ArticlePage

from .factories import ArticlePageFactory, SiteImageFactory

pytestmark = pytest.mark.django_db

SECTION = {"type": "heading", "value": {"text": "Setting the scene", "level": "h2", "anchor": ""}}


def figure(image) -> list:
    return [SECTION, {"type": "image", "value": {"image": image.pk, "alt_text": "A rack.", "caption": ""}}]


def in_rich_text(image) -> list:
    html = f'<p>See:</p><embed embedtype="image" id="{image.pk}" format="fullwidth" alt="A rack."/>'
    return [SECTION, {"type": "paragraph", "value": html}]


def body_with(image, where: str) -> list:
    return figure(image) if where == "figure" else in_rich_text(image)


def article_with(demo, image, where: str, **fields):
    """A published article using ``image`` as its card image, in a figure block or in rich text."""
    if where == "card image":
        article = ArticlePageFactory(parent=demo.blog, image=image, **fields)
    else:
        article = ArticlePageFactory(parent=demo.blog, body=body_with(image, where), **fields)
    article.save_revision().publish()
    return article


def live_public(demo, image, where):
    article_with(demo, image, where)


def draft_only(demo, image, where):
    article = article_with(demo, image, where)
    article.unpublish()


def private_page(demo, image, where):
    article = article_with(demo, image, where)
    PageViewRestriction.objects.create(page=article, restriction_type="login")


def expired_page(demo, image, where):
    article = article_with(demo, image, where)
    ArticlePage.objects.filter(pk=article.pk).update(expire_at=timezone.now() - timedelta(minutes=1))


def unpublished_change_of_a_live_page(demo, image, where):
    article = ArticlePage.objects.get(pk=article_with(demo, SiteImageFactory(), "card image").pk)
    if where == "card image":
        article.image = image
    else:
        article.body = body_with(image, where)
    article.save_revision()  # a draft: readers still see the published version


def not_used(demo, image, where):
    pass


USES = {
    "used by a live public page": live_public,
    "used by an unpublished page": draft_only,
    "used by a page for signed-in readers": private_page,
    "used by an expired page": expired_page,
    "used by a live page's draft only": unpublished_change_of_a_live_page,
    "used nowhere": not_used,
}


@pytest.fixture
def private_collection():
    internal = Collection.get_first_root_node().add_child(name="Internal")
    CollectionViewRestriction.objects.create(collection=internal, restriction_type="login")
    return internal.add_child(name="Embargoed")  # private through its parent


def listed_titles(client) -> set[str]:
    response = client.get("/api/v2/images/", {"limit": 20, "offset": 0, "order": "-id"})
    assert response.status_code == 200
    return {item["title"] for item in response.json()["items"]}


@pytest.mark.parametrize("where", ["card image", "figure", "rich text"])
@pytest.mark.parametrize("use", USES)
def test_an_image_in_a_private_collection_is_never_listed(
    client, demo, private_collection, django_capture_on_commit_callbacks, use, where
):
    image = SiteImageFactory(title="Embargoed rack photo", collection=private_collection)
    public = SiteImageFactory(title="Public rack photo")
    with django_capture_on_commit_callbacks(execute=True):  # the reference index is a task
        USES[use](demo, image, where)
        USES[use](demo, public, where)
    titles = listed_titles(client)
    assert "Embargoed rack photo" not in titles and "Public rack photo" in titles, (use, where)
    assert client.get(f"/api/v2/images/{image.pk}/").status_code == 404, (use, where)
    assert client.get("/api/v2/images/find/", {"id": image.pk}).status_code == 404, (use, where)
    assert client.get(f"/api/v2/images/{public.pk}/").status_code == 200, (use, where)


def test_images_in_public_collections_are_listed_used_or_not(client, demo, private_collection):
    public = Collection.get_first_root_node().add_child(name="Press kit")
    SiteImageFactory(title="Root collection logo")
    SiteImageFactory(title="Press kit photo", collection=public)
    SiteImageFactory(title="Embargoed rack photo", collection=private_collection)
    titles = listed_titles(client)
    assert {"Root collection logo", "Press kit photo"} <= titles
    assert "Embargoed rack photo" not in titles
