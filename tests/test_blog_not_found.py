"""The 404 page offers a way back in: the newest articles and the topics, for any missing URL."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

import pytest
from bs4 import BeautifulSoup

from blog.models import ArticlePage, TopicPage
from blog.templatetags.blog_tags import NOT_FOUND_ARTICLES

from .factories import ArticlePageFactory, TopicPageFactory

pytestmark = pytest.mark.django_db

HOSTILE_PATHS = [
    "/blog/no-such-article/",
    "/no-such-page/",
    "/blog/%3Cscript%3Ealert(1)%3C/script%3E/",
    "/blog/%00/",
    "/blog/%C0%AF/",  # overlong UTF-8: not valid UTF-8 at all
    "/blog/..%2F..%2Fetc%2Fpasswd/",
    "/blog/" + "a" * 3000 + "/",
    "/blog/%F0%9F%92%A9/",
    "/blog/gpu-costs/no-such/",
    "/blog/feed/rss/extra/",
    "/blog/?page=%00",
]


def not_found(client, path):
    response = client.get(path)
    assert response.status_code == 404, path
    return BeautifulSoup(response.content, "html.parser")


def suggestion_links(soup, heading_id):
    section = soup.find("section", attrs={"aria-labelledby": heading_id})
    return [(a.get_text(), a["href"]) for a in section.select("ul a")] if section else []


def test_the_404_page_lists_the_newest_articles_and_the_topics(client, demo):
    soup = not_found(client, "/blog/no-such-article/")
    newest = ArticlePage.objects.for_listing()[:NOT_FOUND_ARTICLES]
    assert suggestion_links(soup, "not-found-newest") == [(a.title, a.url) for a in newest]
    topics = TopicPage.objects.live().order_by("title")
    assert suggestion_links(soup, "not-found-topics") == [(t.title, t.url) for t in topics]
    assert soup.select_one("h1").get_text() == "Page not found."


@pytest.mark.parametrize("path", HOSTILE_PATHS)
def test_a_hostile_url_still_gets_the_full_404_page(client, demo, path):
    soup = not_found(client, path)
    assert len(suggestion_links(soup, "not-found-newest")) == NOT_FOUND_ARTICLES
    assert suggestion_links(soup, "not-found-topics")
    assert not soup.find("script", string=lambda text: text and "alert" in text)


def test_hidden_articles_and_topics_are_not_suggested(client, hidden_articles):
    soup = not_found(client, "/missing/")
    titles = [title for title, _url in suggestion_links(soup, "not-found-newest")]
    assert titles[0] == hidden_articles.visible.title
    assert not {article.title for article in hidden_articles.hidden} & set(titles)
    draft_topic = TopicPageFactory(parent=hidden_articles.visible.get_parent(), title="Draft topic", live=False)
    assert draft_topic.title not in [
        title for title, _url in suggestion_links(not_found(client, "/x/"), "not-found-topics")
    ]


def test_the_404_page_costs_the_same_queries_however_much_content_there_is(client, demo):
    def queries():
        client.get("/blog/no-such-article/")  # the first one fills the site-chrome memo
        with CaptureQueriesContext(connection) as captured:
            not_found(client, "/blog/no-such-article/")
        return len(captured)

    before = queries()
    for number in range(8):
        ArticlePageFactory(parent=demo.blog, title=f"Extra article {number}", topics=[demo.topics["gpu-costs"]])
        TopicPageFactory(parent=demo.blog, title=f"Extra topic {number}")
    assert queries() == before
    assert before <= 12, before
