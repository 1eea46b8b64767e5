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


def _full_content_article(demo):
    """The newest article, with a figure, links of every kind, a video and hostile code."""
    from .factories import ArticlePageFactory

    image = ArticlePage.objects.live().exclude(image=None).first().image
    body = [
        {"type": "heading", "value": {"text": "Fleet costs", "level": "h2", "anchor": ""}},
        {
            "type": "paragraph",
            "value": '<p>See <a href="/blog/">the blog</a>, <a href="#fleet-costs">the costs</a>, '
            '<a href="https://example.org/x">a paper</a> and <a href="mailto:ops@example.org">ops</a>.</p>',
        },
        {"type": "image", "value": {"image": image.pk, "alt_text": "A ridge plot", "caption": "The ridge"}},
        {
            "type": "code",
            "value": {"language": "bash", "filename": "", "source": "echo '\x1b[31mred\x1b[0m' </script><b>"},
        },
        {"type": "paragraph", "value": '<p onclick="alert(1)">Tail <a href="javascript:alert(1)">x</a></p>'},
    ]
    return ArticlePageFactory(parent=demo.blog, title="Full content entry", summary="The short summary.", body=body)


def _entry_content(client, url):
    """(summary or description, content HTML) of the "Full content entry" item, from the XML."""
    import xml.etree.ElementTree as ET  # noqa: S405 - our own feed, parsed in a test

    response = client.get(url)
    assert response.status_code == 200
    root = ET.fromstring(response.content)  # noqa: S314 - well-formed or this raises
    ns = {"atom": "http://www.w3.org/2005/Atom", "content": "http://purl.org/rss/1.0/modules/content/"}
    if root.tag == "rss":
        (item,) = [i for i in root.iter("item") if i.findtext("title") == "Full content entry"]
        return item.findtext("description"), item.findtext("content:encoded", namespaces=ns)
    (entry,) = [
        e
        for e in root.iter("{http://www.w3.org/2005/Atom}entry")
        if e.findtext("atom:title", namespaces=ns) == "Full content entry"
    ]
    content = entry.find("atom:content", ns)
    assert content.get("type") == "html"
    return entry.findtext("atom:summary", namespaces=ns), content.text


@pytest.mark.parametrize("url", ["/blog/feed/rss/", "/blog/feed/atom/"])
def test_entries_carry_the_whole_body_with_absolute_urls_and_the_summary_as_description(client, demo, url):
    from bs4 import BeautifulSoup

    article = _full_content_article(demo)
    summary, content = _entry_content(client, url)
    assert summary == "The short summary."
    soup = BeautifulSoup(content, "html.parser")
    assert soup.find("h2", id="fleet-costs").get_text(strip=True) == "Fleet costs"
    hrefs = [a["href"] for a in soup.find_all("a", href=True)]
    article_url = f"http://localhost{article.url}"
    assert {
        "http://localhost/blog/",
        f"{article_url}#fleet-costs",
        "https://example.org/x",
        "mailto:ops@example.org",
    } <= set(hrefs)
    images = soup.find_all("img")
    assert images and images[0]["alt"] == "A ridge plot"
    urls = [img["src"] for img in images]
    for tag in soup.find_all(srcset=True):
        urls += [candidate.split()[0] for candidate in tag["srcset"].split(",")]
    assert urls and all(re.fullmatch(r"http://localhost/media/images/\S+", u) for u in urls), urls
    assert "echo" in soup.find("figure", class_="block-code").get_text()
    assert not soup.find_all(["script", "style", "iframe", "form"])
    assert not [t for t in soup.find_all(True) for name in t.attrs if name.startswith("on")]
    assert "javascript:" not in content and "\x1b" not in content


def test_feed_parsers_see_the_content_too(client, demo):
    _full_content_article(demo)
    for url in ("/blog/feed/rss/", "/blog/feed/atom/"):
        _, feed = parse(client, url)
        (entry,) = [e for e in feed.entries if e.title == "Full content entry"]
        assert entry.summary == "The short summary."
        assert "Fleet costs" in entry.content[0].value, url


@pytest.mark.parametrize("url", ["/blog/feed/rss/", "/blog/feed/atom/"])
def test_formulas_reach_feed_readers_as_mathml(client, demo, url):
    """A display formula and inline math stay MathML in the entry's content, inside SVG-free,
    script-free markup (the feed of an article with a formula was a 500: the cleaner met the
    children of an element it had just removed)."""
    import xml.etree.ElementTree as ET  # noqa: S405 - our own feed, parsed in a test

    from bs4 import BeautifulSoup

    from .factories import ArticlePageFactory

    body = [
        {"type": "heading", "value": {"text": "The ridge point", "level": "h2", "anchor": ""}},
        {"type": "math", "value": r"P = \frac{F}{B}"},
        {"type": "paragraph", "value": "<p>Inline $x^2$ too.</p>"},
    ]
    ArticlePageFactory(parent=demo.blog, title="Full content entry", summary="Formulas.", body=body)
    _summary, content = _entry_content(client, url)
    soup = BeautifulSoup(content, "html.parser")
    formulas = soup.find_all("math")
    assert len(formulas) == 2
    for formula in formulas:
        ET.fromstring(str(formula))  # noqa: S314 - well-formed MathML or this raises
        assert formula.find("annotation").get("encoding") == "application/x-tex"
    assert not soup.find_all(["script", "svg"])


@pytest.mark.parametrize("url", ["/blog/feed/rss/", "/blog/feed/atom/"])
def test_charts_reach_feed_readers_as_svg_and_videos_as_links(client, demo, monkeypatch, url):
    """The feed's allow-list (``blog.feeds.FEED_TAGS``) keeps the chart's SVG as blog.charts
    draws it, and the video block gives feed readers a link to the player instead of a frame."""
    from bs4 import BeautifulSoup

    from .factories import ArticlePageFactory

    player = {"src": "https://www.youtube-nocookie.com/embed/abc", "title": "A tour of the fleet"}
    monkeypatch.setattr("blog.blocks.video_player", lambda video: player if video else None)
    body = [
        {
            "type": "chart",
            "value": {
                "title": "Busy vs idle",
                "kind": "grouped_bar",
                "data": "month,busy,idle\nJan,3,1\nFeb,5,2",
                "series": "",
                "x_title": "",
                "x_unit": "",
                "y_title": "GPU-hours",
                "y_unit": "",
                "summary": "",
            },
        },
        {"type": "embed", "value": {"video": "https://www.youtube.com/watch?v=abc", "caption": "The tour"}},
    ]
    ArticlePageFactory(parent=demo.blog, title="Full content entry", summary="A chart.", body=body)
    _summary, content = _entry_content(client, url)
    soup = BeautifulSoup(content, "html.parser")
    (svg,) = soup.find_all("svg")
    assert svg["role"] == "img" and svg["viewbox"].startswith("0 0 ")
    assert svg.find("title").get_text() == "Busy vs idle"
    assert len(svg.find_all("rect", class_="chart__mark")) == 4
    assert svg.find("text", transform=True).get_text() == "GPU-hours"
    assert not soup.find_all(["iframe", "script", "style"])
    links = {a.get_text(): a.get("href") for a in soup.find_all("a")}
    assert links["A tour of the fleet"] == player["src"]
    assert links["Download the data as CSV"] is None  # a data: URL, which feeds do not carry
