"""Publish gates: incomplete articles may be saved as drafts but not published, scheduled or submitted."""

from django.contrib.messages import get_messages
from django.urls import reverse

from wagtail.models import WorkflowState

import pytest

from blog.forms import GATE_SUMMARY, article_page_problems
from blog.models import ArticlePage

from .admin_forms import GOOD_BODY, article_form_data
from .factories import ArticlePageFactory, AuthorFactory, TopicPageFactory

pytestmark = pytest.mark.django_db


def add_url(blog):
    return reverse("wagtailadmin_pages:add", args=("blog", "articlepage", blog.pk))


def errors_of(response) -> dict:
    form = response.context["form"]
    return {name: " ".join(str(message) for message in errors) for name, errors in form.errors.items()}


# The rules ------------------------------------------------------------------------------------


def test_every_demo_article_passes_the_gates(demo):
    for article in demo.articles:
        assert article_page_problems(article) == [], article.title


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


def unpublished_topic(demo):
    topic = TopicPageFactory(parent=demo.blog, title="Waiting topic", slug="waiting-topic")
    topic.unpublish()
    return topic


def unpublished_author():
    author = AuthorFactory(name="Waiting Author", slug="waiting-author")
    author.unpublish()
    return author


@pytest.mark.parametrize("action", ["publish", "submit"])
@pytest.mark.parametrize(
    ("field", "advice"),
    [
        ("topics", "Choose at least one published topic"),
        ("authors", "Choose at least one published author"),
    ],
)
def test_only_unpublished_topics_or_authors_are_refused(client, demo, moderator, action, field, advice):
    """A topic link would be a 404 and the byline would have no name (only live authors show)."""
    client.force_login(moderator)
    waiting = unpublished_topic(demo) if field == "topics" else unpublished_author()
    response = client.post(add_url(demo.blog), article_form_data("waiting", action=action, **{field: [waiting.pk]}))
    assert response.status_code == 200
    assert advice in errors_of(response)[field]
    assert not ArticlePage.objects.filter(slug="waiting").exists()


@pytest.mark.parametrize("field", ["topics", "authors"])
def test_one_published_topic_or_author_beside_unpublished_ones_is_enough(client, demo, moderator, field):
    client.force_login(moderator)
    waiting = unpublished_topic(demo) if field == "topics" else unpublished_author()
    published = demo.topics["gpu-costs"] if field == "topics" else demo.articles[0].authors.first()
    data = article_form_data("mixed", action="publish", **{field: [waiting.pk, published.pk]})
    assert client.post(add_url(demo.blog), data).status_code == 302
    assert ArticlePage.objects.get(slug="mixed").live


def test_a_live_article_whose_topic_and_author_were_unpublished_shows_no_dead_link_or_empty_byline(client, demo):
    topic, author = unpublished_topic(demo), unpublished_author()
    topic.save_revision().publish()
    author.save_revision().publish()
    article = ArticlePageFactory(parent=demo.blog, topics=[topic], authors=[author], publishable=True)
    article.save_revision().publish()
    html = client.get(article.url).content.decode()
    assert "/blog/waiting-topic/" in html and "By <a" in html
    ArticlePage.objects.get(pk=article.pk).topics.get().unpublish()
    type(author).objects.get(pk=author.pk).unpublish()
    html = client.get(article.url).content.decode()
    assert "/blog/waiting-topic/" not in html
    byline = html[html.index('class="article__byline"') : html.index("</p>", html.index('class="article__byline"'))]
    assert "By" not in byline and "Waiting Author" not in byline
    assert byline.split(">", 1)[1].strip().startswith("Published")
    # Nor the API, its Markdown's front matter included.
    api = client.get(f"/api/v2/pages/{article.pk}/", {"fields": "topics,authors,markdown"}).json()
    assert api["topics"] == [] and api["authors"] == []
    front_matter = api["markdown"].split("---")[1]
    assert "waiting-topic" not in front_matter and "waiting-author" not in front_matter
    # Nor the feeds (author and category) or the JSON-LD (articleSection).
    feed = client.get("/blog/feed/rss/").content.decode()
    entry = feed[
        feed.rindex("<item>", 0, feed.index(article.title)) : feed.index("</item>", feed.index(article.title))
    ]
    assert "Waiting Author" not in entry and "Waiting topic" not in entry
    assert "Waiting topic" not in html[html.index("application/ld+json") :]
    # Its card in the listing has no byline with no name.
    listing = client.get("/blog/").content.decode()
    title_at = listing.index(article.title)
    card = listing[listing.rindex("<article", 0, title_at) : listing.index("</article>", title_at)]
    assert "card__byline" not in card and "Waiting Author" not in card


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


# The same checks where the admin publishes without the editor's form (home/publish_checks.py) --
# The bulk Publish: tests/test_blog_bulk_actions.py.


def test_every_demo_page_passes_the_publish_checks(demo):
    """No false refusals: the checks of the admin paths without a form pass every demo page,
    as published and as its latest revision."""
    from wagtail.models import Page

    from home.publish_checks import latest_content, problems_of

    pages = list(Page.objects.filter(depth__gt=1).specific())
    assert len(pages) > len(demo.articles)
    for page in pages:
        assert problems_of(page) == [], page.title
        assert problems_of(latest_content(page)) == [], page.title


def test_an_authorless_article_is_refused_as_the_editor_refuses_it(demo):
    """``ArticlePage.publish_problems`` (the bulk Publish, Approve, the calendar's Move) adds what the
    editor's form requires beyond the gates."""
    article = demo.articles[0]
    article.authors.set([])
    assert article.publish_problems() == ["Authors: This field cannot be blank."]


def edit_url(page):
    return reverse("wagtailadmin_pages:edit", args=(page.pk,))


def save_draft_in_review(client, article, **changes):
    """Save a draft of ``article`` (in review) as the logged-in moderator does in the editor."""
    response = client.post(edit_url(article), article_form_data(article.slug, **changes))
    assert response.status_code == 302


def approve_url(page):
    page = ArticlePage.objects.get(pk=page.pk)
    task_state = page.current_workflow_task_state
    return reverse("wagtailadmin_pages:workflow_action", args=(page.pk, "approve", task_state.pk))


def submitted(client, demo, editor) -> ArticlePage:
    client.force_login(editor)
    response = client.post(add_url(demo.blog), article_form_data("in-review", action="submit"))
    assert response.status_code == 302
    return ArticlePage.objects.get(slug="in-review")


@pytest.mark.parametrize(
    ("changes", "advice"),
    [
        # Was a 500 (Wagtail's publish ran full_clean on the draft).
        ({"image": ""}, "Choose a card image"),
        # Was published as it was.
        (
            {
                "search_description": "",
                "body": [("heading", {"text": "Too deep too soon", "level": "h3", "anchor": ""}), *GOOD_BODY],
            },
            "Heading “Too deep too soon” (block 1) is a subsection (h3) before any section (h2)",
        ),
    ],
    ids=["no-image", "heading-and-meta-description"],
)
def test_approving_from_the_dashboard_checks_the_draft_it_would_publish(
    client, demo, editor, moderator, changes, advice
):
    article = submitted(client, demo, editor)
    client.force_login(moderator)
    save_draft_in_review(client, article, **changes)  # moderators may edit a page in review

    response = client.post(approve_url(article), {"next": "/admin/"}, follow=True)
    assert response.redirect_chain == [("/admin/", 302)]
    html = response.content.decode()
    assert "Not approved, so nothing was published. “A new deep-dive”:" in html
    assert advice in html
    article.refresh_from_db()
    assert not article.live
    state = WorkflowState.objects.for_instance(article).get()
    assert state.status == WorkflowState.STATUS_IN_PROGRESS  # still waiting for review

    # "Approve with comment" (the modal) is told where to go, as Wagtail's view tells it.
    response = client.post(
        approve_url(article), {"comment": "Looks fine."}, headers={"x-requested-with": "XMLHttpRequest"}
    )
    assert response.json() == {"step": "success", "redirect": edit_url(article)}
    assert not ArticlePage.objects.get(pk=article.pk).live

    # Fixed in the editor, the same approval publishes.
    save_draft_in_review(client, article)
    assert client.post(approve_url(article)).status_code == 302
    assert ArticlePage.objects.get(pk=article.pk).live


def test_the_approval_check_leaves_wagtails_own_refusals_alone(client, demo, editor, moderator):
    article = submitted(client, demo, editor)
    client.force_login(moderator)
    save_draft_in_review(client, article, search_description="")
    # The editor may not approve: Wagtail refuses them before anything is checked, and they are
    # not told what the draft lacks.
    client.force_login(editor)
    response = client.post(approve_url(article))
    assert response.status_code in (302, 403)
    assert not any("Not approved" in str(message) for message in get_messages(response.wsgi_request))
    assert not ArticlePage.objects.get(pk=article.pk).live


def copy_url(page):
    return reverse("wagtailadmin_pages:copy", args=(page.pk,))


def copy_form(demo, slug, **extra):
    return {"new_title": "The copy", "new_slug": slug, "new_parent_page": demo.blog.pk, **extra}


def test_publishing_a_copy_checks_the_live_content_it_copies(admin_client, demo):
    from home.models import SiteImage

    from .factories import ArticlePageFactory, SiteImageFactory

    image = SiteImageFactory()
    article = ArticlePageFactory(
        parent=demo.blog, title="Card gone", image=image, topics=[demo.topics["gpu-costs"]], search_description="S."
    )
    article.save_revision().publish()
    SiteImage.objects.filter(pk=image.pk).delete()  # the live page's card image goes (SET_NULL)

    # Was a 500: Wagtail saves the live copy with full_clean.
    response = admin_client.post(copy_url(article), copy_form(demo, "copy-live", publish_copies="on"), follow=True)
    assert response.redirect_chain == [(copy_url(article), 302)]
    html = response.content.decode()
    assert "Nothing was copied. “Card gone”: Choose a card image" in html
    assert not ArticlePage.objects.filter(slug="copy-live").exists()

    # A copy as a draft may be incomplete, as any draft.
    assert admin_client.post(copy_url(article), copy_form(demo, "copy-draft")).status_code == 302
    assert not ArticlePage.objects.get(slug="copy-draft").live


def test_publishing_a_copy_of_a_complete_article_still_works(admin_client, demo):
    article = demo.articles[0]
    response = admin_client.post(copy_url(article), copy_form(demo, "copy-published", publish_copies="on"))
    assert response.status_code == 302
    assert ArticlePage.objects.get(slug="copy-published").live
