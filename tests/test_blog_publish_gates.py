"""Publish gates: incomplete articles may be saved as drafts but not published, scheduled or submitted."""

from django.urls import reverse

from wagtail.models import WorkflowState

import pytest

from blog.forms import GATE_SUMMARY, article_problems
from blog.models import ArticlePage

from .admin_forms import GOOD_BODY, article_form_data

pytestmark = pytest.mark.django_db


def add_url(blog):
    return reverse("wagtailadmin_pages:add", args=("blog", "articlepage", blog.pk))


def errors_of(response) -> dict:
    form = response.context["form"]
    return {name: " ".join(str(message) for message in errors) for name, errors in form.errors.items()}


# The rules ------------------------------------------------------------------------------------


def test_every_demo_article_passes_the_gates(demo):
    for article in demo.articles:
        problems = article_problems(
            summary=article.summary,
            image=article.image,
            image_alt=article.image_alt,
            image_decorative=article.image_decorative,
            topics=article.topics.all(),
            search_description=article.search_description,
            body=article.body,
        )
        assert problems == [], article.title


@pytest.mark.parametrize(
    ("change", "field", "advice"),
    [
        ({"summary": ""}, "summary", "Write a summary"),
        ({"image": ""}, "image", "Choose a card image"),
        ({"topics": []}, "topics", "Choose at least one topic"),
        ({"search_description": ""}, "search_description", "Promote tab → Search description"),
    ],
)
def test_publishing_an_incomplete_article_is_refused_with_what_to_fix(client, demo, moderator, change, field, advice):
    client.force_login(moderator)
    response = client.post(add_url(demo.blog), article_form_data("incomplete", action="publish", **change))
    assert response.status_code == 200
    errors = errors_of(response)
    assert advice in errors[field]
    assert GATE_SUMMARY in errors["__all__"]
    # The admin's error banner lists each problem with its field's label.
    assert advice in response.content.decode()
    assert not ArticlePage.objects.filter(slug="incomplete").exists()


def test_an_over_long_summary_is_refused_even_for_drafts(client, demo, editor):
    client.force_login(editor)
    response = client.post(add_url(demo.blog), article_form_data("long", summary="x" * 241))
    assert response.status_code == 200
    assert "241" in errors_of(response)["summary"]


def test_card_image_needs_alt_text_unless_decorative(client, demo, moderator):
    bare = ArticlePage.objects.filter(image__isnull=False).first().image
    bare.description = ""
    bare.save()
    client.force_login(moderator)
    response = client.post(
        add_url(demo.blog), article_form_data("no-alt", action="publish", image=bare.pk, image_alt="")
    )
    assert "Describe the card image" in errors_of(response)["image_alt"]

    data = article_form_data("decorative", action="publish", image=bare.pk, image_alt="", image_decorative="on")
    assert client.post(add_url(demo.blog), data).status_code == 302
    article = ArticlePage.objects.get(slug="decorative")
    assert article.live and article.card_alt_text == ""


def test_h3_before_any_h2_is_refused_and_the_heading_named(client, demo, moderator):
    body = [("heading", {"text": "Too deep too soon", "level": "h3", "anchor": ""}), *GOOD_BODY]
    client.force_login(moderator)
    response = client.post(add_url(demo.blog), article_form_data("out-of-order", action="publish", body=body))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Heading “Too deep too soon” (block 1) is a subsection (h3) before any section (h2)" in html
    # h3 after an h2 is fine.
    body = [*GOOD_BODY, ("heading", {"text": "Deeper", "level": "h3", "anchor": ""})]
    assert (
        client.post(add_url(demo.blog), article_form_data("in-order", action="publish", body=body)).status_code == 302
    )


def test_incomplete_draft_saves_but_cannot_be_submitted(client, demo, editor):
    client.force_login(editor)
    data = article_form_data("half-done", summary="", image="", topics=[], search_description="", body=[])
    response = client.post(add_url(demo.blog), data)
    assert response.status_code == 302, errors_of(response)
    draft = ArticlePage.objects.get(slug="half-done")
    assert not draft.live

    edit_url = reverse("wagtailadmin_pages:edit", args=(draft.pk,))
    data["action-submit"] = "submit"
    response = client.post(edit_url, data)
    assert response.status_code == 200
    assert set(errors_of(response)) >= {"summary", "image", "topics", "search_description", "__all__"}
    assert not WorkflowState.objects.for_instance(draft).exists()

    # Completed, the same draft goes to review.
    response = client.post(edit_url, article_form_data("half-done", action="submit"))
    assert response.status_code == 302
    assert WorkflowState.objects.for_instance(draft).get().status == WorkflowState.STATUS_IN_PROGRESS


def test_scheduling_an_incomplete_article_is_refused(client, demo, moderator):
    client.force_login(moderator)
    data = article_form_data("scheduled-incomplete", action="publish", summary="", go_live_at="2031-01-01 09:00")
    response = client.post(add_url(demo.blog), data)
    assert response.status_code == 200
    assert "Write a summary" in errors_of(response)["summary"]
    assert not ArticlePage.objects.filter(slug="scheduled-incomplete").exists()
