"""RSS 2.0 and Atom feeds of the blog and of each topic, parsed with feedparser."""

import re

from django.core.files.base import ContentFile

import feedparser
import pytest

from blog.feeds import FEED_SIZE
from blog.models import ArticlePage

pytestmark = pytest.mark.django_db

FEEDS = [
    ("/blog/feed/rss/", "rss20", "application/rss+xml"),
    ("/blog/feed/atom/", "atom10", "application/atom+xml"),
]


def parse(client, url):
    response = client.get(url)
    assert response.status_code == 200, url
    feed = feedparser.parse(response.content)
    assert not feed.bozo, (url, feed.get("bozo_exception"))
    return response, feed


@pytest.mark.parametrize(("url", "version", "content_type"), FEEDS)
def test_blog_feed_lists_the_newest_articles_with_their_details(client, demo, url, version, content_type):
    response, feed = parse(client, url)
    assert response["Content-Type"].startswith(content_type)
    assert feed.version == version
    assert feed.feed.title == "Cedana blog"
    assert feed.feed.link == "http://localhost/blog/"
    newest = list(ArticlePage.objects.for_listing()[:FEED_SIZE])
    assert [entry.title for entry in feed.entries] == [article.title for article in newest]

    entry, article = feed.entries[0], newest[0]
    assert entry.link == f"http://localhost{article.url}"
    assert entry.summary == article.summary
    assert entry.author == "Cedana Editorial"
    assert entry.published_parsed[:6] == article.date_published.utctimetuple()[:6]
    assert {tag.term for tag in entry.tags} == {topic.title for topic in article.topics.all()}
    (enclosure,) = [link for link in entry.links if link.rel == "enclosure"]
    assert re.fullmatch(r"http://localhost/media/images/.+\.png", enclosure.href)
    assert enclosure.type == "image/png"
    assert int(enclosure.length) > 1000
    if version == "atom10":
        assert entry.updated_parsed is not None


@pytest.mark.parametrize("kind", ["rss", "atom"])
def test_topic_feed_lists_only_that_topics_articles(client, demo, kind):
    _, feed = parse(client, f"/blog/gpu-costs/feed/{kind}/")
    assert feed.feed.title == "GPU costs · Cedana blog"
    expected = ArticlePage.objects.for_listing().filter(topics=demo.topics["gpu-costs"])
    assert [entry.title for entry in feed.entries] == [article.title for article in expected]
    assert len(feed.entries) == 7


def test_drafts_private_future_and_expired_articles_stay_out_of_feeds(client, hidden_articles):
    hidden, visible = hidden_articles.hidden, hidden_articles.visible
    for url in ("/blog/feed/rss/", "/blog/feed/atom/", "/blog/gpu-costs/feed/rss/", "/blog/gpu-costs/feed/atom/"):
        titles = [entry.title for entry in parse(client, url)[1].entries]
        assert visible.title in titles, url
        assert not {article.title for article in hidden} & set(titles), url


def test_feed_of_an_unpublished_topic_is_404(client, demo):
    demo.topics["gpu-costs"].unpublish()
    assert client.get("/blog/gpu-costs/feed/rss/").status_code == 404


@pytest.mark.parametrize(
    "url", ["/blog/feed/", "/blog/feed/xml/", "/blog/no-such-topic/feed/rss/", "/blog/feed/rss/extra/", "/feed/rss/"]
)
def test_unknown_feed_urls_are_404(client, demo, url):
    assert client.get(url).status_code == 404


def test_feed_query_count_does_not_grow_with_articles(client, demo, django_assert_max_num_queries):
    client.get("/blog/feed/rss/")  # renditions are made on the first request
    with django_assert_max_num_queries(12):
        client.get("/blog/feed/rss/")


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("/", ["/blog/feed/rss/", "/blog/feed/atom/"]),
        ("/blog/", ["/blog/feed/rss/", "/blog/feed/atom/"]),
        ("/blog/gpu-costs/", ["/blog/gpu-costs/feed/rss/", "/blog/gpu-costs/feed/atom/", "/blog/feed/rss/"]),
    ],
)
def test_pages_advertise_their_feeds_in_the_head(client, demo, url, expected):
    head = client.get(url).content.decode().split("</head>", 1)[0]
    links = re.findall(
        r'<link rel="alternate" type="application/(?:rss|atom)\+xml" title="[^"]+" href="([^"]+)">', head
    )
    for href in expected:
        assert href in links


def test_a_missing_rendition_file_leaves_the_enclosure_out(client, demo):
    # Media restored without its renditions: the rendition row says the file exists, storage
    # does not have it. Reading its size must not turn the feed into a 500.
    from blog.feeds import SOCIAL_IMAGE_SPEC

    article = ArticlePage.objects.for_listing().first()
    rendition = article.image.get_rendition(SOCIAL_IMAGE_SPEC)
    storage, name = rendition.file.storage, rendition.file.name
    with storage.open(name, "rb") as saved:
        content = saved.read()
    storage.delete(name)
    try:
        _, feed = parse(client, "/blog/feed/rss/")
    finally:  # the demo's media outlive this test's transaction
        storage.save(name, ContentFile(content))
    entry = next(entry for entry in feed.entries if entry.title == article.title)
    assert not [link for link in entry.links if link.rel == "enclosure"]
    assert len(feed.entries) == FEED_SIZE
