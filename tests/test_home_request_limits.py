"""Form posts over Django's size limits: a long article fits, a larger post gets a page that says
what happened, and nothing is half-saved."""

import json

from django.conf import settings
from django.urls import reverse

from wagtail.models import Revision

import pytest

from blog.models import ArticlePage

from .admin_forms import article_form_data

pytestmark = pytest.mark.django_db


def paragraph(text: str) -> str:
    """Draftail's post for one paragraph of ``text``."""
    block = {"key": "k1", "text": text, "type": "unstyled", "depth": 0, "inlineStyleRanges": [], "entityRanges": []}
    return json.dumps({"blocks": [block], "entityMap": {}})


def edit(client, article, text: str):
    body = [("heading", {"text": "Setting the scene", "level": "h2", "anchor": ""}), ("paragraph", paragraph(text))]
    return client.post(
        reverse("wagtailadmin_pages:edit", args=(article.pk,)), article_form_data(article.slug, body=body)
    )


def test_a_long_non_latin_article_saves(client, demo, editor):
    # About 3 MB once URL-encoded (each Cyrillic letter is 6 bytes): over Django's default 2.5 MB.
    text = "Обзор результатов измерений. " * 18_000
    article = demo.articles[3]
    client.force_login(editor)
    response = edit(client, article, text)
    assert response.status_code == 302
    draft = ArticlePage.objects.get(pk=article.pk).get_latest_revision_as_object()
    assert len(draft.body[1].value.source) > len(text)


def test_a_post_over_the_limit_explains_itself_and_saves_nothing(client, demo, editor):
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE == 5 * 1024 * 1024
    article = demo.articles[3]
    revisions = Revision.objects.filter(object_id=str(article.pk)).count()
    client.force_login(editor)
    response = edit(client, article, "x" * (5 * 1024 * 1024))
    assert response.status_code == 413
    html = response.content.decode()
    assert "Nothing was saved" in html
    assert "more than the limit of 5 MB of form data" in html
    assert "Back" in html and 'href="/static/css/site.css"' in html
    assert "Error 413" in html and 'class="site-header"' in html  # the other error pages' layout
    assert 'href="/admin/"' in html
    assert Revision.objects.filter(object_id=str(article.pk)).count() == revisions


@pytest.mark.parametrize(
    "size, shown",
    [
        (5 * 1024 * 1024, "5 MB"),
        (5 * 1024 * 1024 + 1, "5.1 MB"),
        (6_291_572, "6.1 MB"),
        (2_621_440, "2.5 MB"),
        (1, "0.1 MB"),
    ],
)
def test_sizes_are_shown_with_one_decimal_never_below_what_was_sent(size, shown):
    from home.request_limits import megabytes

    assert megabytes(size) == shown


def test_too_many_fields_is_explained_too(client, demo):
    data = {f"f{index}": "1" for index in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1)}
    response = client.post(reverse("wagtailadmin_login"), data)  # a view that reads the form
    assert response.status_code == 413
    assert "10,000 form fields" in response.content.decode()


@pytest.mark.parametrize("host", ["evil.example", "localhost:abc", "exa mple.com", "[::1"])
def test_other_bad_requests_get_the_400_page(client, host):
    """handler400 answers only over-limit posts with the 413 page; a refused Host stays a 400
    (Django's view, our templates/400.html)."""
    response = client.get("/", HTTP_HOST=host)
    assert response.status_code == 400
    html = response.content.decode()
    assert "Error 400" in html and "Too much to save" not in html
