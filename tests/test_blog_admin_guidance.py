"""Guidance where editors type: help text, length limits and counters, alt text, image sizes."""

import io

from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import models
from django.forms.utils import ErrorDict

from wagtail.models import DraftStateMixin, LockableMixin, RevisionMixin

import pytest
from PIL import Image

from blog.forms import SEARCH_DESCRIPTION_MAX_LENGTH, SEO_TITLE_MAX_LENGTH, TITLE_MAX_LENGTH
from blog.models import ArticlePage, Author, BlogIndexPage, TopicPage
from home.models import HomePage, SiteChromeSettings, SiteImage

from .factories import SiteImageFactory

pytestmark = pytest.mark.django_db


def png(width, height):
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "teal").save(buffer, "PNG")
    return SimpleUploadedFile(f"upload-{width}x{height}.png", buffer.getvalue(), content_type="image/png")


# Fields Wagtail's draft, revision, locking and workflow mixins add to snippets (go-live and
# expiry, first published...): Wagtail's own, with Wagtail's labels and help.
WAGTAIL_MIXIN_FIELDS = {
    field.name for mixin in (DraftStateMixin, LockableMixin, RevisionMixin) for field in mixin._meta.get_fields()
}


@pytest.mark.parametrize("model", [ArticlePage, Author, BlogIndexPage, TopicPage, HomePage, SiteChromeSettings])
def test_every_field_editors_fill_in_has_help_text(model):
    own_fields = [
        field
        for field in model._meta.get_fields()
        if isinstance(field, models.Field)
        and field.editable
        and not field.auto_created
        and field.model._meta.app_label in {"blog", "home"}
        and field.name not in {"site", "id"}
        and field.name not in WAGTAIL_MIXIN_FIELDS
    ]
    assert own_fields
    missing = [field.name for field in own_fields if not field.help_text]
    assert missing == []


def article_form(user, article):
    form_class = ArticlePage.get_edit_handler().get_form_class()
    return form_class(instance=article, for_user=user, parent_page=article.get_parent())


def test_title_and_seo_fields_have_limits_the_browser_and_counter_see(admin_user, demo):
    form = article_form(admin_user, demo.articles[0])
    for name, limit in [
        ("title", TITLE_MAX_LENGTH),
        ("seo_title", SEO_TITLE_MAX_LENGTH),
        ("search_description", SEARCH_DESCRIPTION_MAX_LENGTH),
    ]:
        field = form.fields[name]
        assert field.widget.attrs["maxlength"] == str(limit)
        assert field.help_text
        field.clean("x" * limit)
        with pytest.raises(ValidationError, match=f"at most {limit} characters"):
            field.clean("x" * (limit + 1))
    assert form.fields["summary"].widget.attrs["maxlength"] == "240"


@pytest.mark.parametrize(
    ("name", "limit"),
    [
        ("title", TITLE_MAX_LENGTH),
        ("seo_title", SEO_TITLE_MAX_LENGTH),
        ("search_description", SEARCH_DESCRIPTION_MAX_LENGTH),
    ],
)
@pytest.mark.parametrize("length", [256, 10_000])
def test_an_over_long_value_gets_one_length_error(admin_user, demo, name, limit, length):
    """The editorial limit only: the model field's looser one (a title's 255) said it again."""
    field = article_form(admin_user, demo.articles[0]).fields[name]
    with pytest.raises(ValidationError) as refused:
        field.clean("x" * length)
    assert refused.value.messages == [f"Ensure this value has at most {limit} characters (it has {length})."]


def test_a_ten_thousand_character_title_shows_one_error_in_the_editor(admin_client, demo):
    from .admin_forms import article_form_data

    article = demo.articles[0]
    data = article_form_data(article.slug, title="x" * 10_000)
    response = admin_client.post(f"/admin/pages/{article.pk}/edit/", data)
    assert response.status_code == 200
    assert response.context["form"].errors["title"] == [
        f"Ensure this value has at most {TITLE_MAX_LENGTH} characters (it has 10000)."
    ]
    assert response.content.decode().count("characters (it has 10000)") == 1


def test_page_editor_renders_limits_and_loads_the_character_counter(admin_client, demo):
    html = admin_client.get(f"/admin/pages/{demo.articles[0].pk}/edit/").content.decode()
    assert f'maxlength="{TITLE_MAX_LENGTH}"' in html
    assert 'maxlength="240"' in html
    assert "js/admin/character-count.js" in html


def clean_images(user, article, **images):
    form = article_form(user, article)
    form.cleaned_data = dict(images)
    form._errors = ErrorDict()
    form.clean()
    return form.errors


def test_card_and_social_images_too_small_for_their_crops_are_rejected(admin_user, demo):
    article = demo.articles[0]
    small = SiteImageFactory(file__width=1200, file__height=650)
    errors = clean_images(admin_user, article, image=small, social_image=small)
    assert errors["image"] == [
        "This image is 1200x650 pixels, too small for the article card and hero (at least 1200x675 pixels). "
        "Choose or upload a larger image."
    ]
    assert "social_image" not in errors  # 1200x650 fills the 1200x630 social crop
    tiny = SiteImageFactory(file__width=800, file__height=400)
    errors = clean_images(admin_user, article, image=SiteImageFactory(), social_image=tiny)
    # Only the social image's size is wrong (other entries are the publish gates' own advice).
    assert "image" not in errors and "social_image" in errors
    assert "800x400 pixels, too small for social sharing (at least 1200x630" in errors["social_image"][0]


def test_image_library_requires_alt_text(admin_client):
    response = admin_client.post(
        "/admin/images/add/", {"title": "No alt", "file": png(1200, 675), "description": "", "collection": 1}
    )
    assert response.status_code == 200
    assert not SiteImage.objects.filter(title="No alt").exists()
    assert "This field is required." in response.content.decode()


def test_image_library_rejects_images_too_small_to_crop(admin_client):
    response = admin_client.post(
        "/admin/images/add/", {"title": "Tiny", "file": png(800, 450), "description": "A chart.", "collection": 1}
    )
    assert response.status_code == 200
    assert not SiteImage.objects.filter(title="Tiny").exists()
    assert "This image is 800x450 pixels, too small for the image library" in response.content.decode()


def test_image_library_accepts_a_described_image_big_enough(admin_client):
    response = admin_client.post(
        "/admin/images/add/",
        {"title": "Big enough", "file": png(1200, 630), "description": "A rack of GPUs.", "collection": 1},
    )
    assert response.status_code == 302
    image = SiteImage.objects.get(title="Big enough")
    assert (image.width, image.height, image.description) == (1200, 630, "A rack of GPUs.")


@pytest.mark.parametrize("user_fixture", ["editor", "moderator"])
def test_editors_and_moderators_can_open_the_article_editor_and_image_library(client, demo, request, user_fixture):
    client.force_login(request.getfixturevalue(user_fixture))
    assert client.get(f"/admin/pages/{demo.articles[0].pk}/edit/").status_code == 200
    assert client.get("/admin/images/").status_code == 200
