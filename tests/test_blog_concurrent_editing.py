"""Two editors on one article: Wagtail's concurrent-editing notifications warn the second one,
and no revision is lost (Wagtail 8: ``loaded_revision_id``/``loaded_revision_created_at`` in the
edit form, the editing-session ping endpoint, and autosave's refusal to overwrite a newer version)."""

import html
import re

from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse

from wagtail.models import Revision

import pytest

from blog.models import ArticlePage

from .admin_forms import article_form_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def second_editor(django_user_model):
    user = django_user_model.objects.create_user(
        "eddie", "eddie@example.com", "a-long-test-password", first_name="Eddie"
    )
    user.groups.add(Group.objects.get(name="Editors"))
    return user


def open_editor(user, article):
    """Log ``user`` in with their own client and open the article's editor, as a browser tab does.

    Returns ``(client, form)``: ``form`` has the hidden ``loaded_revision_*`` values and the
    editing session's ``ping_url``.
    """
    client = Client()
    client.force_login(user)
    response = client.get(reverse("wagtailadmin_pages:edit", args=(article.pk,)))
    assert response.status_code == 200
    page_html = response.content.decode()

    def hidden(name):
        return html.unescape(re.search(rf'name="{name}" value="([^"]*)"', page_html).group(1))

    form = {
        "loaded_revision_id": hidden("loaded_revision_id"),
        "loaded_revision_created_at": hidden("loaded_revision_created_at"),
        "ping_url": html.unescape(re.search(r'data-w-swap-src-value="([^"]+)"', page_html).group(1)),
    }
    return client, form


def save_draft(client, article, form, json=False, **fields):
    data = article_form_data(
        article.slug,
        loaded_revision_id=form["loaded_revision_id"],
        loaded_revision_created_at=form["loaded_revision_created_at"],
        **fields,
    )
    headers = {"Accept": "application/json"} if json else {}
    return client.post(reverse("wagtailadmin_pages:edit", args=(article.pk,)), data, headers=headers)


def test_second_editor_is_warned_and_no_revision_is_lost(demo, editor, second_editor):
    article = ArticlePage.objects.get(pk=demo.articles[0].pk)
    live_title = article.title
    edna, edna_form = open_editor(editor, article)
    eddie, eddie_form = open_editor(second_editor, article)
    assert edna_form["loaded_revision_id"] == eddie_form["loaded_revision_id"] == str(article.latest_revision_id)

    # Edna saves first.
    assert save_draft(edna, article, edna_form, title="Edna's title").status_code == 302
    ednas_revision = ArticlePage.objects.get(pk=article.pk).latest_revision

    # Eddie's editor pings the server (every 10 s in the browser) and learns of her version:
    # the avatar warning and the text of the confirmation dialog shown before he saves.
    ping = eddie.post(
        eddie_form["ping_url"],
        {
            "is_editing": "1",
            "revision_id": eddie_form["loaded_revision_id"],
            "revision_created_at": eddie_form["loaded_revision_created_at"],
        },
    )
    assert ping.status_code == 200
    others = ping.json()["other_sessions"]
    assert others[0]["user"] == "Edna" and others[0]["revision_id"] == ednas_revision.pk
    warning = ping.json()["html"]
    assert "Edna saved a new version" in warning
    assert "Proceeding will overwrite the changes made by Edna." in warning

    # Autosave from Eddie's outdated form is refused rather than overwriting her version.
    refused = save_draft(eddie, article, eddie_form, json=True, title="Eddie's autosave")
    assert refused.status_code == 400
    assert refused.json()["error_code"] == "invalid_revision"
    assert ArticlePage.objects.get(pk=article.pk).latest_revision_id == ednas_revision.pk

    # He confirms the dialog and saves: a new revision; hers stays in the history.
    assert save_draft(eddie, article, eddie_form, title="Eddie's title").status_code == 302
    titles = [revision.as_object().title for revision in Revision.page_revisions.filter(object_id=str(article.pk))]
    assert "Edna's title" in titles and "Eddie's title" in titles
    assert "Eddie's autosave" not in titles
    latest = ArticlePage.objects.get(pk=article.pk)
    assert latest.latest_revision.as_object().title == "Eddie's title"
    assert latest.title == live_title  # drafts never change what readers see

    # Edna's editor, pinging in turn, now hears of Eddie's version.
    ednas_ping = edna.post(
        edna_form["ping_url"],
        {"revision_id": ednas_revision.pk, "revision_created_at": ednas_revision.created_at.isoformat()},
    )
    assert "Eddie saved a new version" in ednas_ping.json()["html"]


def test_an_up_to_date_editor_gets_no_warning(demo, editor):
    article = ArticlePage.objects.get(pk=demo.articles[0].pk)
    edna, form = open_editor(editor, article)
    ping = edna.post(
        form["ping_url"],
        {"revision_id": form["loaded_revision_id"], "revision_created_at": form["loaded_revision_created_at"]},
    )
    assert ping.status_code == 200
    assert ping.json()["other_sessions"] == []
    assert "saved a new version" not in ping.json()["html"]
