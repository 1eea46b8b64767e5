"""Reviewer links: signed, expiring, revocable links to one draft revision."""

from datetime import timedelta

from django.urls import reverse
from django.utils import timezone

from wagtail.models import Page, PageLogEntry

import pytest
import time_machine

from blog.models import ReviewerLink
from blog.reviewer_links import VIEW_ACTION, make_token

from .admin_forms import article_form_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft(demo):
    """A live demo article with a newer draft revision that readers cannot see yet."""
    article = demo.articles[2]
    article.title = "Draft title only reviewers see"
    article.save_revision()
    return article


def create_link(client, page) -> ReviewerLink:
    response = client.post(reverse("reviewer_links", args=(page.pk,)))
    assert response.status_code == 302
    return ReviewerLink.objects.filter(page=page).latest("pk")


def review_url(link) -> str:
    return reverse("reviewer_link", args=(make_token(link),))


def test_editor_shares_a_draft_with_an_anonymous_reviewer(client, draft, editor):
    client.force_login(editor)
    link = create_link(client, draft)
    assert link.revision == draft.get_latest_revision()
    assert link.expires_at - timezone.now() > timedelta(days=6, hours=23)
    listing = client.get(reverse("reviewer_links", args=(draft.pk,))).content.decode()
    assert make_token(link) in listing

    client.logout()
    response = client.get(review_url(link))
    assert response.status_code == 200
    assert "Draft title only reviewers see" in response.content.decode()
    assert response["X-Robots-Tag"] == "noindex, nofollow"
    assert '<meta name="robots" content="noindex, nofollow">' in response.content.decode()
    assert "no-store" in response["Cache-Control"]
    # Readers still see the live version.
    assert "Draft title only reviewers see" not in client.get(draft.url).content.decode()
    # Each view is in the page's history; a HEAD (link checkers, chat previews) is not a view.
    client.get(review_url(link))
    assert PageLogEntry.objects.filter(page=draft, action=VIEW_ACTION).count() == 2
    for _ in range(3):
        assert client.head(review_url(link)).status_code == 200
    assert PageLogEntry.objects.filter(page=draft, action=VIEW_ACTION).count() == 2
    # Other methods are refused before anything is served or logged.
    for method in ("options", "put", "patch", "delete"):
        assert getattr(client, method)(review_url(link)).status_code == 405, method
    assert PageLogEntry.objects.filter(page=draft, action=VIEW_ACTION).count() == 2


def test_the_link_shows_its_revision_not_later_drafts(client, draft, editor):
    client.force_login(editor)
    link = create_link(client, draft)
    draft.title = "An even newer draft"
    draft.save_revision()
    html = client.get(review_url(link)).content.decode()
    assert "Draft title only reviewers see" in html and "An even newer draft" not in html


@pytest.mark.parametrize("token", ["nope", "1", "MQ:1abc:xyz", "%00", "a" * 500])
def test_forged_tokens_are_404(client, demo, token):
    assert client.get(f"/review/{token}/").status_code == 404


def test_a_token_for_a_deleted_link_is_404(client, draft, editor):
    client.force_login(editor)
    link = create_link(client, draft)
    url = review_url(link)
    link.delete()
    assert client.get(url).status_code == 404


def test_revoked_link_stops_working(client, draft, editor):
    client.force_login(editor)
    link = create_link(client, draft)
    response = client.post(reverse("reviewer_links_revoke", args=(draft.pk, link.pk)))
    assert response.status_code == 302
    client.logout()
    response = client.get(review_url(link))
    assert response.status_code == 410
    assert "revoked" in response.content.decode()


def test_link_expires_after_seven_days(client, draft, editor):
    client.force_login(editor)
    link = create_link(client, draft)
    client.logout()
    with time_machine.travel(timezone.now() + timedelta(days=6, hours=23), tick=False):
        assert client.get(review_url(link)).status_code == 200
    with time_machine.travel(timezone.now() + timedelta(days=7, minutes=1), tick=False):
        response = client.get(review_url(link))
        assert response.status_code == 410
        assert "expired" in response.content.decode()


def test_link_stops_working_once_its_revision_is_published(client, draft, editor):
    client.force_login(editor)
    link = create_link(client, draft)
    link.revision.publish()
    client.logout()
    response = client.get(review_url(link))
    assert response.status_code == 410
    assert "published" in response.content.decode()


def test_link_stops_once_the_reviewed_draft_is_submitted_and_approved(client, demo, editor, moderator):
    """The README's flow: save draft -> link -> submit (a newer revision) -> approve (newer still)."""
    article = demo.articles[2]
    client.force_login(editor)
    edit_url = reverse("wagtailadmin_pages:edit", args=(article.pk,))
    data = article_form_data(article.slug, title="Draft title only reviewers see")
    assert client.post(edit_url, data).status_code == 302
    link = create_link(client, article)
    assert client.post(edit_url, {**data, "action-submit": "submit"}).status_code == 302
    client.force_login(moderator)
    task_state = Page.objects.get(pk=article.pk).specific.current_workflow_task_state
    approve = reverse("wagtailadmin_pages:workflow_action", args=(article.pk, "approve", task_state.pk))
    assert client.post(approve, {"comment": ""}).status_code in (200, 302)
    article.refresh_from_db()
    assert article.live_revision_id > link.revision_id  # the linked revision itself was never published

    client.logout()
    response = client.get(review_url(link))
    assert response.status_code == 410
    assert "published" in response.content.decode()


def test_publishing_an_older_revision_leaves_the_link_working(client, draft, editor):
    older = draft.get_latest_revision()
    draft.title = "A newer draft under review"
    draft.save_revision()
    client.force_login(editor)
    link = create_link(client, draft)
    older.publish()
    client.logout()
    assert client.get(review_url(link)).status_code == 200


def test_only_people_who_can_edit_the_page_manage_links(client, draft, django_user_model):
    outsider = django_user_model.objects.create_user("olga", "olga@example.com", "a-long-test-password")
    client.force_login(outsider)
    response = client.post(reverse("reviewer_links", args=(draft.pk,)))
    assert response.status_code in (302, 403)
    assert not ReviewerLink.objects.exists()


def test_editor_sees_the_reviewer_links_button_in_the_page_header(client, draft, editor):
    client.force_login(editor)
    html = client.get(reverse("wagtailadmin_pages:edit", args=(draft.pk,))).content.decode()
    assert reverse("reviewer_links", args=(draft.pk,)) in html


def footer_nav(html: str) -> str:
    return html.split('<nav aria-label="Footer">', 1)[1].split("</nav>", 1)[0]


def test_a_reviewer_link_page_is_marked_as_a_draft_without_the_sites_calls_to_action(client, demo, editor):
    from wagtail.models import Site

    from home.models import SiteChromeSettings

    from .factories import ArticlePageFactory

    # An article without its own call-to-action block, so the page would show the site's.
    article = ArticlePageFactory(parent=demo.blog, topics=[demo.topics["gpu-costs"]])
    assert article.live and not article.has_call_to_action
    article.title = "Draft title only reviewers see"
    article.save_revision()
    client.force_login(editor)
    link = create_link(client, article)
    client.logout()
    chrome = SiteChromeSettings.for_site(Site.objects.get(is_default_site=True))
    html = client.get(review_url(link)).content.decode()
    assert "Draft for review, not published" in html
    assert 'class="review-banner" role="status"' in html
    assert "reviewer-link.css" in html
    # No close button: the banner cannot be dismissed.
    banner = html.split('class="review-banner"', 1)[1].split("</div>", 1)[0]
    assert "<button" not in banner
    # No Login / demo buttons in the header, no demo link in the footer, no site CTA in the article.
    assert "site-header__actions" not in html
    assert chrome.demo_label not in footer_nav(html)
    assert f"Talk to the {chrome.brand_name} team" not in html
    # Readers' pages keep them and have no banner.
    live = client.get(article.url).content.decode()
    assert "Draft for review, not published" not in live
    assert "site-header__actions" in live
    assert chrome.demo_label in footer_nav(live)
    assert f"Talk to the {chrome.brand_name} team" in live


def test_the_reviewer_links_page_has_a_copy_button_per_link(client, draft, editor):
    client.force_login(editor)
    link = create_link(client, draft)
    html = client.get(reverse("reviewer_links", args=(draft.pk,))).content.decode()
    assert 'data-controller="w-clipboard w-clone"' in html
    assert 'data-action="w-clipboard#copy"' in html
    assert f'value="http://testserver{review_url(link)}"' in html
