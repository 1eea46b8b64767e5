"""RSS 2.0 and Atom 1.0 feeds of the blog and of each topic (Django's syndication framework).

The feeds are served by the blog index and topic pages themselves (``FeedRoutesMixin`` in
``blog/models.py``), so their URLs follow the page tree: ``/blog/feed/rss/``,
``/blog/feed/atom/``, ``/blog/<topic>/feed/rss/`` and ``/blog/<topic>/feed/atom/``. Each lists
the ``FEED_SIZE`` newest live, public, unexpired articles with their summary, dates, authors,
topics and the social image rendition as an enclosure. The summary is the entry's description;
the whole rendered body goes in RSS ``content:encoded`` and Atom ``content`` (``feed_body_html``).

Any text an editor typed is safe in them: characters XML 1.0 cannot carry are removed as the
feed is written (``home.text_cleaning``; the editor's forms remove them too), and a summary is
HTML-escaped, because RSS ``<description>`` and Atom ``<summary type="html">`` are read as HTML:
``<script>`` in a summary reaches feed readers as the text "<script>", never as a tag.
"""

import mimetypes
from contextvars import ContextVar
from urllib.parse import urljoin

from django.contrib.syndication.views import Feed
from django.template.loader import render_to_string
from django.utils.feedgenerator import Atom1Feed, Enclosure, Rss201rev2Feed
from django.utils.html import escape

from wagtail.images.models import SourceImageIOError
from wagtail.whitelist import check_url

from blog import charts, mathml
from home.caching import memo
from home.models import SOCIAL_IMAGE_SPEC
from home.public_pages import in_request_site
from home.rich_text_safety import RICH_TEXT_ATTRIBUTES, RICH_TEXT_TAGS, allow_list
from home.seo import absolute_url, site_name
from home.text_cleaning import without_invalid_characters

# The newest articles a feed carries: enough for a reader who checks weekly, small enough to
# keep the response light (each entry carries the whole body).
FEED_SIZE = 20

# What the rendered body may hold in a feed: the stored rich text's elements
# (home.rich_text_safety) plus what our block templates (templates/components/streamfield/blocks/),
# Wagtail's {% picture %}, Pygments (blog.blocks.highlight) and footnote references write, and the
# MathML and chart SVG of our own renderers (blog.mathml, blog.charts).
_HTML_TAGS = frozenset(
    {
        *("div", "section", "aside", "figure", "figcaption", "span", "strong", "em", "pre", "mark"),
        *("table", "caption", "thead", "tbody", "tr", "th", "td", "details", "summary"),
        *("picture", "source", "img"),
    }
)
# (Rendered rich text has no <embed>: Wagtail has made its images and players of them.)
FEED_TAGS = (RICH_TEXT_TAGS - {"embed"}) | _HTML_TAGS | mathml.ELEMENTS | charts.SVG_ELEMENTS
FEED_ATTRIBUTES = {
    **RICH_TEXT_ATTRIBUTES,
    "*": {"class", "id", "role", "aria-label", "aria-labelledby", "aria-hidden"},
    "img": {"src", "srcset", "sizes", "alt", "width", "height", "loading", "decoding"},
    "source": {"srcset", "sizes", "type", "media"},
    "th": {"scope", "colspan", "rowspan"},
    "td": {"colspan", "rowspan"},
    "ol": {"start"},
    "annotation": {"encoding"},
    **{name: mathml.ATTRIBUTES | {"xmlns"} for name in mathml.ELEMENTS - {"annotation"}},
    **dict.fromkeys(charts.SVG_ELEMENTS, charts.SVG_ATTRIBUTES),
}


# The article URL that relative URLs in the body being cleaned resolve against: one cleaner for
# every entry (building one takes about a millisecond), its URL hooks reading the entry's base.
_BASE_URL: ContextVar[str] = ContextVar("feed_base_url")


def _absolute_url(url: str) -> str:
    return urljoin(_BASE_URL.get(), url.strip())


def _absolute_srcset(tag: str, attribute: str, value: str) -> str | None:
    if attribute != "srcset":
        return value
    candidates = [_absolute_candidate(_BASE_URL.get(), part) for part in value.split(",") if part.strip()]
    return ", ".join(c for c in candidates if check_url(c.partition(" ")[0])) or None


_FEED_CLEANER = allow_list(FEED_TAGS, FEED_ATTRIBUTES, relative_url=_absolute_url, attribute_filter=_absolute_srcset)


def feed_body_html(article, request) -> str:
    """The article's whole body as the page shows it, fit for a feed reader: HTML (str) with
    every link and image URL absolute against the article's URL, embedded players as links to
    them (``for_feed`` in the block templates), and nothing but ``FEED_TAGS`` with
    ``FEED_ATTRIBUTES`` (nh3, ``home.rich_text_safety.allow_list``: no script, style, frame,
    form, ``on*`` attribute or ``javascript:`` URL). ``article`` needs its body loaded."""
    html = render_to_string(
        "components/feed_body.html", {"article": article, "page": article, "for_feed": True}, request=request
    )
    token = _BASE_URL.set(article.get_full_url(request))
    try:
        # Characters XML 1.0 cannot hold (a code block may hold an ANSI escape) are removed with
        # the rest of the entry's text as the feed is written (``home.text_cleaning``).
        return _FEED_CLEANER.clean(html)
    finally:
        _BASE_URL.reset(token)


def _absolute_candidate(base: str, candidate: str) -> str:
    url, _, descriptor = candidate.strip().partition(" ")
    return f"{urljoin(base, url)} {descriptor}".strip()


class FullContentRssFeed(Rss201rev2Feed):
    """RSS 2.0 with each item's whole body in ``content:encoded`` (the RSS content module,
    https://web.resource.org/rss/1.0/modules/content/), the summary staying in ``description``."""

    def rss_attributes(self):
        return {**super().rss_attributes(), "xmlns:content": "http://purl.org/rss/1.0/modules/content/"}

    def add_item_elements(self, handler, item):
        super().add_item_elements(handler, item)
        if item.get("content_html"):
            handler.addQuickElement("content:encoded", item["content_html"])


class FullContentAtomFeed(Atom1Feed):
    """Atom 1.0 with each entry's whole body in ``<content type="html">`` (RFC 4287 4.1.3), the
    summary staying in ``<summary>``."""

    def add_item_elements(self, handler, item):
        super().add_item_elements(handler, item)
        if item.get("content_html"):
            handler.addQuickElement("content", item["content_html"], {"type": "html"})


class ArticleRssFeed(Feed):
    """RSS 2.0 feed of a blog index or topic page, called as ``ArticleRssFeed()(request, page=page)``."""

    feed_type = FullContentRssFeed

    def __call__(self, request, *args, **kwargs):
        self.request = request
        return super().__call__(request, *args, **kwargs)

    def get_feed(self, obj, request):
        """Django's feed generator with every text of the channel and its items cleaned of
        characters XML 1.0 cannot carry (Django refuses to write them: a 500)."""
        feed = super().get_feed(obj, request)
        feed.feed = without_invalid_characters(feed.feed)
        feed.items = without_invalid_characters(feed.items)
        return feed

    def get_object(self, request, page):
        return page

    def title(self, page):
        from blog.models import TopicPage

        name = site_name(self.request)
        return f"{page.title} · {name}" if isinstance(page, TopicPage) else name

    def link(self, page):
        return page.get_full_url(self.request)

    def feed_url(self, page):
        return absolute_url(self.request, self.request.path)

    def description(self, page):
        return page.get_meta_description() or self.title(page)

    subtitle = description

    def items(self, page):
        from blog.models import ArticlePage, TopicPage

        articles = ArticlePage.objects.for_listing()
        # A topic's feed: articles with the topic in this site only (another site's articles
        # may carry it too).
        articles = (
            in_request_site(articles.filter(topics=page), self.request)
            if isinstance(page, TopicPage)
            else articles.child_of(page)
        )
        return articles.defer(None)[:FEED_SIZE]  # listings defer the body; entries carry it

    def item_extra_kwargs(self, article):
        # Rendering a body reads its images and renditions (a query or two per article with
        # figures): each body is remembered for the cache generation, which every change a
        # reader could see replaces (home.caching.memo).
        key = ("feed-body", article.pk, article.last_published_at, article.get_full_url(self.request))
        return {"content_html": memo.memoized(key, lambda: feed_body_html(article, self.request))}

    def item_title(self, article):
        return article.title

    def item_description(self, article):
        """The summary as HTML that shows its text: markup an editor typed stays text."""
        return escape(article.summary)

    def item_link(self, article):
        return article.get_full_url(self.request)

    def item_pubdate(self, article):
        return article.date_published or article.first_published_at

    def item_updateddate(self, article):
        return article.updated_at

    def item_author_name(self, article):
        """Live authors only, as bylines credit them (``blog.models.live_authors``); None if none is."""
        return ", ".join(author.name for author in article.authors.all() if author.live) or None

    def item_categories(self, article):
        """Live topics only: an unpublished topic has no page."""
        return [topic.title for topic in article.topics.all() if topic.live]

    def item_enclosures(self, article):
        """The social image rendition (``SOCIAL_IMAGE_SPEC``) as an absolute URL with its size in bytes."""
        if article.image is None:
            return []
        try:
            rendition = article.image.get_rendition(SOCIAL_IMAGE_SPEC)
        except SourceImageIOError:  # the original file is missing: leave the enclosure out
            return []
        try:
            size = rendition.file.size
        except OSError:  # the rendition's file is gone (media restored without it): leave it out
            return []
        mime_type = mimetypes.guess_type(rendition.file.name)[0] or "application/octet-stream"
        return [Enclosure(absolute_url(self.request, rendition.url), str(size), mime_type)]


class ArticleAtomFeed(ArticleRssFeed):
    """The same feed as Atom 1.0 (summaries as ``<summary>``, enclosures as ``rel="enclosure"`` links)."""

    feed_type = FullContentAtomFeed
