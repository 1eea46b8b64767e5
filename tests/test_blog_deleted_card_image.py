"""A live article whose card image is deleted from the library (Wagtail asks, shows where it is
used, and sets the article's ``image`` to null): the article stays readable, and every admin
action that saves its row works as on any page. The image was required by the model, so each of
those saves was a ``ValidationError`` (a 500); it is now required only to publish (the publish
gates, ``blog.forms``), which keep refusing a publish without one."""

from django.urls import reverse

import pytest

from blog.models import ArticlePage
from home.models import SiteImage

from .factories import ArticlePageFactory, SiteImageFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def orphaned(demo):
    """A live article, published with a search description, whose card image was then deleted."""
    image = SiteImageFactory()
    article = ArticlePageFactory(
        parent=demo.blog, image=image, topics=[demo.topics["gpu-costs"]], search_description="What it says."
    )
    article.save_revision().publish()
    SiteImage.objects.filter(pk=image.pk).delete()
    article.refresh_from_db()
    assert article.live and article.image is None
    return article


def copy_form(article, **extra):
    return {"new_title": f"{article.title} copy", "new_slug": f"{article.slug}-copy", **extra}


ACTIONS = {
    "lock": lambda article, demo: ("wagtailadmin_pages:lock", (article.pk,), {}),
    "unlock": lambda article, demo: ("wagtailadmin_pages:unlock", (article.pk,), {}),
    "alias": lambda article, demo: (
        "wagtailadmin_pages:copy",
        (article.pk,),
        copy_form(article, new_parent_page=demo.blog.pk, alias="on"),
    ),
    "alias, publish copies ticked": lambda article, demo: (
        "wagtailadmin_pages:copy",
        (article.pk,),
        copy_form(article, new_parent_page=demo.blog.pk, alias="on", publish_copies="on"),
    ),
    "copy as a draft": lambda article, demo: (
        "wagtailadmin_pages:copy",
        (article.pk,),
        copy_form(article, new_parent_page=demo.blog.pk),
    ),
    "move": lambda article, demo: ("wagtailadmin_pages:move_confirm", (article.pk, demo.blog.pk), {}),
    "unpublish": lambda article, demo: ("wagtailadmin_pages:unpublish", (article.pk,), {}),
}


@pytest.mark.parametrize("action", ACTIONS.values(), ids=ACTIONS.keys())
def test_admin_actions_that_save_the_article_work_without_its_image(admin_client, demo, orphaned, action):
    name, args, form = action(orphaned, demo)
    response = admin_client.post(reverse(name, args=args), form)
    assert response.status_code in (200, 302)
    assert ArticlePage.objects.filter(pk=orphaned.pk).exists()


def test_readers_still_get_the_article_and_its_listings(client, demo, orphaned):
    assert client.get(orphaned.url).status_code == 200
    assert orphaned.title.encode() in client.get(demo.topics["gpu-costs"].url).content


def test_publishing_it_again_still_needs_a_card_image(admin_client, demo, orphaned):
    """The publish gates, not the model, require the image: a publish from the editor is refused."""
    from .admin_forms import article_form_data

    form = article_form_data(orphaned.slug, title=orphaned.title, image="", action="publish")
    response = admin_client.post(reverse("wagtailadmin_pages:edit", args=(orphaned.pk,)), form)
    assert response.status_code == 200
    assert "Choose a card image" in response.content.decode()
