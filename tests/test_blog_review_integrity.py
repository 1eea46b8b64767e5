"""Review integrity: what an editor changes through the admin reaches readers only after a
moderator approves it (issue 16). Each attempt drives the real admin views as an editor and
asserts what a reader sees afterwards."""

from django.urls import reverse

from wagtail.models import Page
from wagtail.test.utils.form_data import inline_formset, nested_form_data

import pytest

from .test_blog_workflow import edit_url, workflow_action

pytestmark = pytest.mark.django_db


def topic_form_data(topic, action=None, **fields) -> dict:
    """POST data for the TopicPage edit form; ``action`` as in ``article_form_data``."""
    values = {
        "title": topic.title,
        "slug": topic.slug,
        "intro": topic.intro,
        "seo_title": "",
        "search_description": topic.search_description,
        "social_image": "",
        "go_live_at": "",
        "expire_at": "",
        "comments": inline_formset([]),
        **fields,
    }
    data = nested_form_data(values)
    if action:
        data[f"action-{action}"] = action
    return data


@pytest.mark.parametrize("action", [None, "publish", "submit"])
def test_an_editors_change_to_a_topic_waits_for_a_moderator(client, demo, editor, moderator, action):
    topic = demo.topics["gpu-costs"]
    live_intro = topic.intro
    client.force_login(editor)
    response = client.post(edit_url(topic), topic_form_data(topic, action, intro="Unreviewed intro."))
    assert response.status_code == 302
    topic.refresh_from_db()
    assert topic.intro == live_intro
    client.logout()
    html = client.get(topic.url).content.decode()
    assert "Unreviewed intro." not in html

    if action == "submit":
        client.force_login(moderator)
        assert workflow_action(client, topic, "approve").status_code == 302
        client.logout()
        assert "Unreviewed intro." in client.get(topic.url).content.decode()


def lock_url(page):
    return reverse("wagtailadmin_pages:lock", args=(page.pk,))


def pages_outside_the_blog(demo):
    return [demo.home, *Page.objects.exclude(path__startswith=demo.blog.path).filter(depth__gt=1)]


def test_editors_cannot_lock_pages_they_cannot_edit(client, demo, editor):
    client.force_login(editor)
    outside = pages_outside_the_blog(demo)
    assert outside
    for page in outside:
        assert not page.permissions_for_user(editor).can_edit()
        response = client.post(lock_url(page))
        assert response.status_code in (302, 403)
        page.refresh_from_db()
        assert not page.locked, page
    # The home page editor does not even open for them.
    assert client.get(edit_url(demo.home)).status_code in (302, 403)


def test_editors_still_lock_the_blog_pages_they_edit(client, demo, editor):
    client.force_login(editor)
    for page in [demo.blog, demo.topics["gpu-costs"], demo.articles[0]]:
        assert page.permissions_for_user(editor).can_edit()
        client.post(lock_url(page))
        page.refresh_from_db()
        assert page.locked and page.locked_by == editor
