"""Any character an editor can type in a title, summary, body, author name or topic keeps every feed,
the sitemap, JSON-LD, the API and search results up and well-formed (issue 15, "Feeds").

Text that reaches the database without a form (fixtures, imports) is cleaned as feeds are
written (``blog.feeds``); text typed in the editor is cleaned when the form is (see
tests/test_hostile_text_entry.py). Markup in a summary is text in a feed, never a tag.
"""

import json
import re
import uuid

from django.db import connection
from django.utils.html import escape

import feedparser
import pytest
from bs4 import BeautifulSoup
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from blog.feeds import FEED_SIZE
from home.text_cleaning import XML_INVALID_CHARACTERS, remove_invalid_characters

from .factories import ArticlePageFactory, AuthorFactory
from .sitemaps import section_documents

pytestmark = pytest.mark.django_db

HYPOTHESIS = settings(
    max_examples=5,  # of three texts each
    deadline=None,
    database=None,  # nothing written to .hypothesis/ in the work tree
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# What Word and PDF paste, and what XML 1.0 has no place for (lone surrogates cannot be stored
# at all: tests/test_hostile_text_entry.py posts them).
BAD_CHARACTERS = ["\x00", "\x01", "\x08", "\x0b", "\x0c", "\x0e", "\x1b", "\x1f", "\ufffe", "\uffff"]
MARKUP = ["<script>alert(1)</script>", "<b>bold</b>", "a & b", "&lt;script&gt;", "]]>", "<![CDATA[x]]>", "\"'<>"]
ODD_TEXT = ["\u202e\u200b\ufeff", "🙂", "\t\n\r", "\x7f\x85\x9f", "\U0010fffd", "é", "\ufffd"]

BODY_ELEMENTS = ("{http://purl.org/rss/1.0/modules/content/}encoded", "{http://www.w3.org/2005/Atom}content")
LD_JSON = re.compile(r'<script type="application/ld\+json">(.*?)</script>', re.S)

# Text as an editor could get it into the database: anything but a lone surrogate.
SPECIAL_CHARACTERS = sorted(set("".join(BAD_CHARACTERS + ODD_TEXT + MARKUP)))
storable_text = st.text(
    alphabet=st.one_of(st.sampled_from(SPECIAL_CHARACTERS), st.characters(codec="utf-8")),
    min_size=1,
    max_size=40,
)


def local_name(node) -> str:
    """An XML element's tag without its namespace."""
    return node.tag.rsplit("}", 1)[-1] if isinstance(node.tag, str) else ""


def child_text(node, name: str) -> str:
    """The text of ``node``'s first child element called ``name`` (any namespace), or ""."""
    return next((child.text or "" for child in node if local_name(child) == name), "")


def squeeze(text: str | None) -> str:
    """``text`` without whitespace: XML parsers normalise line ends, feeds may trim."""
    return "".join((text or "").split())


def storable(text: str) -> str:
    """PostgreSQL text cannot hold NUL (the editor's forms refuse it: Django's
    ProhibitNullCharactersValidator), so it is left out there."""
    return text.replace("\x00", "") if connection.vendor == "postgresql" else text


def feed_urls(topic) -> list[str]:
    return ["/blog/feed/rss/", "/blog/feed/atom/", f"{topic.url}feed/rss/", f"{topic.url}feed/atom/"]


def hostile_articles(demo, texts: list[str]) -> tuple[list, object]:
    """One live article for each of ``texts`` (at most ``FEED_SIZE``, so all are in the blog's
    feeds), whose title, summary, body (heading, paragraph, code) and author carry its text, all
    in one topic whose title carries every text. Returns the articles (each with
    ``search_marker``, a word of letters only it has) and the topic."""
    assert len(texts) <= FEED_SIZE
    texts = [storable(text) for text in texts]
    topic = demo.topics["gpu-costs"]
    topic.title = " ".join(["GPU", *texts])
    topic.save_revision().publish()
    articles = []
    for text in texts:
        author = AuthorFactory(name=f"Ada {uuid.uuid4().hex[:8]} {text}")  # names are unique
        # A word of letters only this article has, to find it among the search results and its
        # entry in the feeds (texts cleaned of invalid characters may read alike).
        marker = "".join(chr(ord("a") + int(digit, 16)) for digit in uuid.uuid4().hex[:12])
        article = ArticlePageFactory(
            parent=demo.blog,
            title=f"Title {marker} {text}",
            slug=f"hostile-{uuid.uuid4().hex}",  # Hypothesis repeats texts; slugs must stay unique
            summary=f"Summary {marker} {text}",
            body=[
                {"type": "heading", "value": {"text": f"Heading {text}", "level": "h2", "anchor": ""}},
                {"type": "paragraph", "value": f"<p>Body {escape(text)}</p>"},
                {
                    "type": "code",
                    "value": {"language": "python", "filename": "", "source": f"code = {text!r}\n# {text}"},
                },
            ],
            topics=[topic],
            authors=[author],
        )
        article.save_revision().publish()
        article.search_marker = marker
        article.hostile_text = text
        articles.append(article)
    return articles, topic


def check_every_output(client, articles, topic):
    """Every feed, the sitemap, the API, each article (JSON-LD) and search answer 200 with
    well-formed documents, and the feeds carry each article's text (``hostile_articles``) without
    its invalid characters. The documents that list every article are read once for all."""
    texts = [article.hostile_text for article in articles]
    for url in feed_urls(topic):
        response = client.get(url)
        assert response.status_code == 200, (url, texts)
        root = etree.fromstring(response.content)  # well-formed XML 1.0, or this raises
        if url.startswith(topic.url):
            # A reader's parser accepts it too. The topic's feeds are enough for that: the same
            # feed classes write the article's entry as in the blog's feeds, and the channel
            # title carries the text as well (feedparser reads the blog's twenty full bodies a
            # character at a time: a third of this test's time). Its HTML clean-up is not what
            # is checked here, so it is left off.
            parsed = feedparser.parse(response.content, sanitize_html=False, resolve_relative_uris=False)
            assert not parsed.bozo, (url, texts)
        assert not XML_INVALID_CHARACTERS.search(response.content.decode())
        assert not any("<script" in (node.text or "") for node in root.iter(*BODY_ELEMENTS)), (url, texts)
        entries = [node for node in root.iter() if local_name(node) in ("item", "entry")]
        for article in articles:
            shown = remove_invalid_characters(article.hostile_text)
            title = squeeze(f"Title {article.search_marker} {shown}")
            ours = [entry for entry in entries if squeeze(child_text(entry, "title")) == title]
            assert len(ours) == 1, (url, article.hostile_text)
            # The entry's whole body (content:encoded / Atom content) is there, with the typed text.
            body = next((node.text or "" for node in ours[0].iter(*BODY_ELEMENTS)), "")
            body_text = squeeze(BeautifulSoup(body, "html.parser").get_text())
            assert squeeze(f"Body {shown}") in body_text, (url, article.hostile_text)

    for document in section_documents(client):  # each a 200 (tests/sitemaps.py)
        etree.fromstring(document)

    listing = client.get("/api/v2/pages/", {"type": "blog.ArticlePage", "fields": "title,summary"})
    assert listing.status_code == 200
    listing.json()
    for query in ("Title", "Summary"):
        response = client.get("/search/", {"query": query})
        assert response.status_code == 200, query
        assert "<script>alert" not in response.content.decode(), query
        assert client.get("/search/autocomplete/", {"q": query}).status_code == 200, query

    for article in articles:
        text = article.hostile_text
        detail = client.get(f"/api/v2/pages/{article.pk}/")
        assert detail.status_code == 200
        assert squeeze(detail.json()["title"]) == squeeze(f"Title {article.search_marker} {text}")

        page = client.get(article.url)
        assert page.status_code == 200
        for block in LD_JSON.findall(page.content.decode()):
            json.loads(block)

        # Search results (the page's ``query``) and autocomplete (``q``) list the article, its
        # markup as text.
        query = text[:20]
        response = client.get("/search/", {"query": query})
        assert response.status_code == 200, query
        assert "<script>alert" not in response.content.decode(), query
        assert client.get("/search/autocomplete/", {"q": query}).status_code == 200, query
        results = client.get("/search/", {"query": article.search_marker}).content.decode()
        assert f'href="{article.url}"' in results and "<script>alert" not in results, text


# Each kind of character in one publish and one reading of the feeds and sitemap: the blog's
# feeds render their twenty full bodies afresh for each reading, most of this test's time.
@pytest.mark.parametrize("kind", [BAD_CHARACTERS, MARKUP, ODD_TEXT], ids=["bad characters", "markup", "odd text"])
def test_each_kind_of_character_keeps_every_output_up(client, demo, kind):
    articles, topic = hostile_articles(demo, [f"a{text}b" for text in kind])
    check_every_output(client, articles, topic)


@HYPOTHESIS
@given(texts=st.lists(storable_text, min_size=3, max_size=3))
def test_any_text_keeps_every_output_up(client, demo, texts):
    """Fifteen drawn texts, three to a publish and a reading of every output."""
    articles, topic = hostile_articles(demo, texts)
    check_every_output(client, articles, topic)


@pytest.mark.parametrize("url", ["/blog/feed/rss/", "/blog/feed/atom/"])
def test_markup_in_a_summary_is_text_in_feeds(client, demo, url):
    """RSS descriptions and Atom ``type="html"`` summaries are read as HTML: the summary is
    escaped, so a reader decodes it back to the editor's text, never to a tag. Each member of
    ``MARKUP`` in an article of its own, all in one reading of the feed."""
    for number, markup in enumerate(MARKUP):
        article = ArticlePageFactory(
            parent=demo.blog, title=f"Markup {markup}", slug=f"markup-{number}", summary=f"Sum {markup}"
        )
        article.save_revision().publish()
    content = client.get(url).content
    root = etree.fromstring(content)
    ns = {"atom": "http://www.w3.org/2005/Atom"}
    summaries = [node.text for node in root.iter("description")] + [
        node.text for node in root.iterfind(".//atom:summary", ns)
    ]
    titles = [node.text for node in root.iter("title")] + [node.text for node in root.iterfind(".//atom:title", ns)]
    entries = {entry.title: entry for entry in feedparser.parse(content).entries}
    for markup in MARKUP:
        # The element's text is HTML whose meaning is the summary: escaped once, nothing live.
        assert escape(f"Sum {markup}") in summaries, markup
        assert f"Markup {markup}" in titles, markup  # titles are plain text in both formats
        summary = entries[f"Markup {markup}"].summary
        assert "<script" not in summary and "<b>" not in summary, markup
