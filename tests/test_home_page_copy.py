"""The admin's copy page view (every page type) under a form posted without a usable parent or with
a title that shows nothing."""

from wagtail.models import Page

import pytest

from blog.models import ArticlePage
from home.page_forms import INVISIBLE_TITLE

from .admin_forms import INVISIBLE_TEXTS

pytestmark = pytest.mark.django_db


def copy_data(article, **extra):
    return {"new_title": f"{article.title} (copy)", "new_slug": f"{article.slug}-copy", **extra}


@pytest.mark.parametrize("parent", [None, "", "abc", "1.5", "\x00", "99999999", "99999999999999999999", "-1"])
def test_copy_without_an_existing_parent_is_a_400(admin_client, demo, parent):
    article = demo.articles[0]
    data = copy_data(article) if parent is None else copy_data(article, new_parent_page=parent)
    response = admin_client.post(f"/admin/pages/{article.pk}/copy/", data)
    assert response.status_code == 400, (parent, response.status_code)
    assert not ArticlePage.objects.filter(slug=f"{article.slug}-copy").exists()


def test_copy_with_a_parent_still_copies(admin_client, demo):
    article = demo.articles[0]
    response = admin_client.post(f"/admin/pages/{article.pk}/copy/", copy_data(article, new_parent_page=demo.blog.pk))
    assert response.status_code == 302
    copy = Page.objects.get(slug=f"{article.slug}-copy")
    assert copy.get_parent().pk == demo.blog.pk


def test_the_copy_form_still_opens(admin_client, demo):
    assert admin_client.get(f"/admin/pages/{demo.articles[0].pk}/copy/").status_code == 200


@pytest.mark.parametrize("title", INVISIBLE_TEXTS.values(), ids=INVISIBLE_TEXTS.keys())
@pytest.mark.parametrize("kind", ["article", "topic", "blog index"])
@pytest.mark.parametrize("publish_copies", [False, True], ids=["draft", "publish copies"])
def test_a_copy_title_that_shows_nothing_is_a_form_error(admin_client, demo, title, kind, publish_copies):
    original = {"article": demo.articles[0], "topic": demo.topics["gpu-costs"], "blog index": demo.blog}[kind]
    data = copy_data(original, new_title=title, new_parent_page=original.get_parent().pk)
    if publish_copies:
        data["publish_copies"] = "on"  # the copy's save would validate the title and raise: a 500
    pages = Page.objects.count()
    response = admin_client.post(f"/admin/pages/{original.pk}/copy/", data)
    assert response.status_code == 200, (title, kind)
    assert response.context["form"].errors["new_title"] in ([INVISIBLE_TITLE], ["This field is required."])
    assert Page.objects.count() == pages


@pytest.mark.parametrize(
    ("kind", "field", "value", "limit"),
    [
        ("article", "new_title", "A" * 101, 100),  # the article editor's limit (blog.forms)
        ("article", "new_title", "A" * 300, 100),
        ("topic", "new_title", "T" * 256, 255),  # Wagtail's page title
        ("topic", "new_title", "T" * 1000, 255),
        ("article", "new_slug", "a" * 256, 255),
        ("blog index", "new_slug", "b" * 300, 255),
    ],
)
def test_a_copy_title_or_slug_over_the_editors_limit_is_a_form_error(admin_client, demo, kind, field, value, limit):
    """Was a 500 past 255 characters (the copy's save refused it), and below that a copy made
    with a value the editor then refused to save."""
    original = {"article": demo.articles[0], "topic": demo.topics["gpu-costs"], "blog index": demo.blog}[kind]
    data = copy_data(original, new_parent_page=original.get_parent().pk) | {field: value}
    pages = Page.objects.count()
    response = admin_client.post(f"/admin/pages/{original.pk}/copy/", data)
    assert response.status_code == 200
    [error] = response.context["form"].errors[field]
    assert f"at most {limit} characters (it has {len(value)})" in error
    assert Page.objects.count() == pages


def test_a_copy_title_at_the_editors_limit_is_copied(admin_client, demo):
    article = demo.articles[0]
    data = copy_data(article, new_parent_page=demo.blog.pk, new_title="A" * 100, new_slug="s" * 255)
    assert admin_client.post(f"/admin/pages/{article.pk}/copy/", data).status_code == 302
    assert Page.objects.get(slug="s" * 255).title == "A" * 100
