"""A rich text link to a page readers cannot open (unpublished, private, expired, moved outside the
site, deleted) or to a deleted document is plain text wherever the text is rendered, the editor
can still save and publish the linking page, and the "Unavailable links" report lists it
(issue 15, "Links"; ``home.rich_text_links``)."""

import re
from datetime import timedelta

from django.contrib.auth.models import Group
from django.urls import reverse
from django.utils import timezone

from wagtail.models import Page, PageViewRestriction
from wagtail.rich_text import expand_db_html

import pytest
from lxml import etree
from wagtail_factories import DocumentFactory

from .admin_forms import article_form_data
from .factories import ArticlePageFactory
from .test_blog_admin_hostile_body import draftail

pytestmark = pytest.mark.django_db

ATOM_TITLE = "{http://www.w3.org/2005/Atom}title"
ATOM_CONTENT = "{http://www.w3.org/2005/Atom}content"
CONTENT_ENCODED = "{http://purl.org/rss/1.0/modules/content/}encoded"


def unpublish(page):
    page.unpublish()


def password_protect(page):
    PageViewRestriction.objects.create(page=page, restriction_type="password", password="s3cret-pass")  # noqa: S106


def groups_only(page):
    PageViewRestriction.objects.create(page=page, restriction_type="groups").groups.set(
        [Group.objects.get(name="Editors")]
    )


def login_only(page):
    PageViewRestriction.objects.create(page=page, restriction_type="login")


def expire(page):
    page.expire_at = timezone.now() - timedelta(minutes=1)
    page.save_revision().publish()


def move_outside_the_site(page):
    page.move(Page.get_first_root_node(), pos="last-child")


def delete(page):
    page.delete()


UNAVAILABLE = {
    "unpublished": unpublish,
    "password protected": password_protect,
    "for a group only": groups_only,
    "for signed-in readers only": login_only,
    "expired": expire,
    "moved outside the site": move_outside_the_site,
    "deleted": delete,
}


def linking_article(demo, html: str):
    article = demo.articles[4]
    article.body = [
        {"type": "heading", "value": {"text": "Setting the scene", "level": "h2", "anchor": ""}},
        {"type": "paragraph", "value": html},
    ]
    article.save_revision().publish()
    return article


def feed_entry(feed: bytes, title: str) -> str:
    """The body HTML of the RSS item or Atom entry titled ``title`` (unescaped, as a reader gets it)."""
    root = etree.fromstring(feed)
    for item in root.iter("item", "{http://www.w3.org/2005/Atom}entry"):
        if item.findtext("title", namespaces=None) == title or item.findtext(ATOM_TITLE) == title:
            node = item.find(CONTENT_ENCODED)
            node = node if node is not None else item.find(ATOM_CONTENT)
            return node.text
    raise AssertionError(f"{title!r} is not in the feed")


def anchors(html: str, text: str) -> list[str]:
    return re.findall(rf"<a\b[^>]*>{text}</a>", html)


@pytest.mark.parametrize("state", UNAVAILABLE)
def test_a_link_to_a_page_readers_cannot_open_is_plain_text(client, demo, moderator, state):
    target = ArticlePageFactory(parent=demo.blog, title="Link target", slug="link-target")
    target_url = target.url
    control = demo.articles[0]
    UNAVAILABLE[state](target)
    html = (
        f'<p>Read <a linktype="page" id="{target.pk}">the target</a> and '
        f'<a linktype="page" id="{control.pk}">the control</a>.</p>'
    )
    article = linking_article(demo, html)

    for rendered in (client.get(article.url).content.decode(), expand_db_html(html)):
        assert 'href="None"' not in rendered
        assert target_url not in rendered, state
        assert anchors(rendered, "the target") == ["<a>the target</a>"], state
        assert f'href="{control.url}"' in rendered  # a link to a readable page stays a link

    # Feeds carry the whole body (escaped HTML in RSS content:encoded and Atom content).
    for feed_url in ("/blog/feed/rss/", "/blog/feed/atom/"):
        entry = feed_entry(client.get(feed_url).content, article.title)
        assert 'href="None"' not in entry and target_url not in entry, (state, feed_url)
        assert anchors(entry, "the target") == ["<a>the target</a>"], (state, feed_url)
        assert f'href="{control.full_url}"' in entry, (state, feed_url)

    # The body's words reach the result's excerpt, with "the target" as text.
    search = client.get("/search/", {"query": "target control"}).content.decode()
    assert f'href="{article.url}"' in search, state
    assert 'href="None"' not in search and target_url not in search, state
    assert "target" in re.sub(r"<[^>]+>", "", search.partition(f'href="{article.url}"')[2]), state

    # The editor opens, saves and publishes the linking page as it is.
    client.force_login(moderator)
    edit_url = reverse("wagtailadmin_pages:edit", args=(article.pk,))
    assert client.get(edit_url).status_code == 200
    body = [("heading", {"text": "Setting the scene", "level": "h2", "anchor": ""})]
    body.append(("paragraph", draftail({"id": target.pk, "url": target_url})))
    response = client.post(edit_url, article_form_data(article.slug, title=article.title, body=body, action="publish"))
    assert response.status_code == 302, (state, response.content.decode()[:3000])

    report = client.get(reverse("unavailable_links_report")).content.decode()
    assert article.title in report, state


def test_a_link_to_a_deleted_document_is_plain_text_and_reported(client, demo, moderator):
    document = DocumentFactory(title="Whitepaper")
    kept = DocumentFactory(title="Kept")
    html = (
        f'<p><a linktype="document" id="{document.pk}">the paper</a> '
        f'<a linktype="document" id="{kept.pk}">kept</a></p>'
    )
    article = linking_article(demo, html)
    document.delete()
    page = client.get(article.url).content.decode()
    assert anchors(page, "the paper") == ["<a>the paper</a>"]
    assert f'href="{kept.url}"' in page
    for feed_url in ("/blog/feed/rss/", "/blog/feed/atom/"):
        entry = feed_entry(client.get(feed_url).content, article.title)
        assert anchors(entry, "the paper") == ["<a>the paper</a>"], feed_url
        assert 'href="None"' not in entry and "kept" in entry, feed_url
    client.force_login(moderator)
    assert article.title in client.get(reverse("unavailable_links_report")).content.decode()


def test_the_report_leaves_out_pages_whose_links_all_work(client, demo, moderator):
    article = linking_article(demo, f'<p><a linktype="page" id="{demo.articles[0].pk}">fine</a></p>')
    client.force_login(moderator)
    response = client.get(reverse("unavailable_links_report"))
    assert response.status_code == 200
    assert article.title not in response.content.decode()
