"""The page listing's bulk Publish applies the checks the editor applies on publish
(home/publish_checks.py): if any page it would make live fails them, nothing is published and one
error names each page with what to fix; never a 500."""

import io

from django.core.management import call_command
from django.urls import reverse

import pytest

from blog.models import ArticlePage
from home.models import SiteImage

from .factories import ArticlePageFactory, SiteImageFactory

pytestmark = pytest.mark.django_db


def bulk_publish_url(pages, next_url: str | None = None) -> str:
    query = "&".join(f"id={page.pk}" for page in pages)
    if next_url is not None:
        query += f"&next={next_url}"
    return reverse("wagtail_bulk_action", args=("wagtailcore", "page", "publish")) + "?" + query


def listing(page) -> str:
    return reverse("wagtailadmin_explore", args=(page.pk,))


def draft_article(demo, title="A bulk draft", **changes) -> ArticlePage:
    """A never-published article whose latest revision is a draft saved as the editor saves one
    (no validation), complete unless ``changes`` say otherwise (field values, ``topics``,
    ``authors``)."""
    article = ArticlePageFactory(
        parent=demo.blog,
        title=title,
        live=False,
        date_published=None,
        topics=[demo.topics["gpu-costs"]],
        search_description="What changes when the cache no longer fits.",
    )
    for name in ("topics", "authors"):
        if name in changes:
            getattr(article, name).set(changes.pop(name))
    for name, value in changes.items():
        setattr(article, name, value)
    article.save_revision(clean=False)
    return article


def is_live(page) -> bool:
    return ArticlePage.objects.get(pk=page.pk).live


def publish(client, pages, next_url=None, **form):
    return client.post(bulk_publish_url(pages, next_url), form, follow=True)


def test_a_markdown_import_without_an_image_is_refused_not_a_500(admin_client, demo, tmp_path):
    (tmp_path / "no-image.md").write_text(
        "---\ntitle: Imported without a card\nsummary: Words only.\ntopics: [gpu-costs]\n"
        "search_description: A draft with no image.\n---\n\n## Section\n\nText.\n"
    )
    call_command("import_articles", str(tmp_path / "no-image.md"), stdout=io.StringIO())
    draft = ArticlePage.objects.get(slug="imported-without-a-card")
    assert draft.image is None

    # The confirmation page is Wagtail's own, unchanged.
    assert admin_client.get(bulk_publish_url([draft], listing(demo.blog))).status_code == 200
    response = publish(admin_client, [draft], listing(demo.blog))
    assert response.redirect_chain == [(listing(demo.blog), 302)]
    html = response.content.decode()
    assert "No page was published. “Imported without a card”: Choose a card image" in html
    assert "has been published" not in html
    assert reverse("wagtailadmin_pages:edit", args=(draft.pk,)) in html  # the "Edit" button
    assert not is_live(draft)


@pytest.mark.parametrize(
    ("changes", "advice"),
    [
        ({"summary": ""}, "Write a summary: it is the text of the article's card and social card."),
        ({"image": None}, "Choose a card image: listings and social cards show it."),
        ({"image_alt": ""}, "Describe the card image for readers who cannot see it"),
        ({"topics": []}, "Choose at least one topic: the article is listed on its topics' pages."),
        ({"authors": []}, "Authors: This field cannot be blank."),
        (
            {
                "body": [
                    {"type": "heading", "value": {"text": "Too deep too soon", "level": "h3", "anchor": ""}},
                    {"type": "paragraph", "value": "<p>Words.</p>"},
                ]
            },
            "Heading “Too deep too soon” (block 1) is a subsection (h3) before any section (h2)",
        ),
        ({"body": []}, "Body: This field cannot be blank."),
        ({"search_description": ""}, "Write a meta description (Promote tab → Search description)"),
    ],
    ids=["summary", "image", "alt", "topics", "authors", "heading-order", "empty-body", "search-description"],
)
def test_each_problem_the_editor_refuses_is_refused_by_the_bulk_publish(client, demo, moderator, changes, advice):
    if "image_alt" in changes:  # no alt text on the page, and none in the image library either
        changes["image"] = SiteImageFactory(description="")
    draft = draft_article(demo, **changes)
    client.force_login(moderator)
    response = publish(client, [draft], listing(demo.blog))
    html = response.content.decode()
    assert "No page was published. “A bulk draft”:" in html
    assert advice in html.replace("&#x27;", "'")
    assert not is_live(draft)


def test_the_editor_guide_example_an_h3_first_and_no_meta_description(client, demo, moderator):
    """The tester's case: submitting was refused, the bulk publish published it."""
    body = [
        {"type": "heading", "value": {"text": "Details", "level": "h3", "anchor": ""}},
        {"type": "paragraph", "value": "<p>Words.</p>"},
    ]
    draft = draft_article(demo, title="Out of order", body=body, search_description="")
    client.force_login(moderator)
    html = publish(client, [draft], listing(demo.blog)).content.decode()
    assert "Heading “Details” (block 1) is a subsection (h3) before any section (h2)" in html
    assert "Write a meta description" in html
    assert "1 page has been published" not in html
    assert not is_live(draft)


def test_one_failing_page_publishes_none_of_the_selection(client, demo, moderator):
    good = draft_article(demo, title="Ready to go")
    bad = draft_article(demo, title="Not ready", summary="")
    also_bad = draft_article(demo, title="Not ready either", image=None)
    client.force_login(moderator)
    html = publish(client, [good, bad, also_bad], listing(demo.blog)).content.decode()
    assert html.count("No page was published.") == 1  # one message for the selection
    assert "“Not ready”: Write a summary" in html
    assert "“Not ready either”: Choose a card image" in html
    assert "“Ready to go”" not in html
    assert not any(is_live(page) for page in (good, bad, also_bad))


def test_a_selection_that_passes_is_published(client, demo, moderator):
    first, second = draft_article(demo, title="First ready"), draft_article(demo, title="Second ready")
    live = demo.articles[0]  # a live article: its latest revision passes too
    client.force_login(moderator)
    response = publish(client, [first, second, live], listing(demo.blog))
    assert response.redirect_chain == [(listing(demo.blog), 302)]
    assert "3 pages have been published" in response.content.decode()
    assert is_live(first) and is_live(second)


def test_include_descendants_checks_the_drafts_it_would_publish(client, demo, moderator):
    incomplete = draft_article(demo, title="Child draft", search_description="")
    client.force_login(moderator)
    html = publish(client, [demo.blog], listing(demo.home), include_descendants="on").content.decode()
    assert "No page was published." in html
    assert "“Child draft”: Write a meta description" in html
    assert not is_live(incomplete)
    # Without descendants, the blog index alone passes and is published.
    html = publish(client, [demo.blog], listing(demo.home)).content.decode()
    assert "1 page has been published" in html
    assert not is_live(incomplete)


def test_the_checks_follow_wagtails_choice_of_descendants(demo, moderator):
    """``bulk_publish_failures`` checks what ``PublishBulkAction.execute_action`` publishes: the
    drafts under each selected page, not the live ones, each once."""
    from home.publish_checks import bulk_publish_failures

    incomplete = draft_article(demo, title="Child draft", summary="")
    failures = bulk_publish_failures([demo.blog, incomplete], moderator, include_descendants=True)
    assert [(pk, title) for pk, title, _problems in failures] == [(incomplete.pk, "Child draft")]
    assert bulk_publish_failures([demo.articles[0]], moderator, include_descendants=True) == []


@pytest.mark.parametrize(
    "hostile",
    [
        "https://evil.example/admin/",
        "//evil.example/",
        "/\\evil.example/",
        "javascript:alert(1)",
        "not%20a%20url",
        "%00",
        "http://[::1",
        "/admin/bulk/wagtailcore/page/publish/",  # the action itself: a 404 without the selection
        "/admin/bulk/wagtailcore/page/publish",  # the same without its slash
        "/admin/bulk/wagtailcore/page/unpublish/",  # another bulk action
        "/admin/bulk/wagtailcore/page/publish/?id=1",
    ],
)
def test_a_next_that_is_not_a_path_of_this_site_returns_to_the_listing(client, demo, moderator, hostile):
    draft = draft_article(demo, image=None)
    client.force_login(moderator)
    response = client.post(bulk_publish_url([draft], hostile))
    assert response.status_code == 302
    assert response["Location"] == listing(demo.blog)
    assert not is_live(draft)


def test_a_safe_next_is_where_the_refusal_returns(client, demo, moderator):
    draft = draft_article(demo, image=None)
    client.force_login(moderator)
    response = client.post(bulk_publish_url([draft], "/admin/pages/search/?q=bulk"))
    assert response["Location"] == "/admin/pages/search/?q=bulk"


def test_a_deleted_card_image_is_refused_for_a_page_without_revisions(admin_client, demo):
    """A page made in code has no revision: Wagtail publishes its row (after saving it as one)."""
    image = SiteImageFactory()
    article = ArticlePageFactory(parent=demo.blog, live=False, topics=[demo.topics["gpu-costs"]], image=image)
    SiteImage.objects.filter(pk=image.pk).delete()
    assert article.get_latest_revision() is None
    html = publish(admin_client, [article], listing(demo.blog)).content.decode()
    assert "Choose a card image" in html
    assert not is_live(article)
