"""RSS 2.0 and Atom 1.0 feeds of the blog and of each topic (Django's syndication framework).

The feeds are served by the blog index and topic pages themselves (``FeedRoutesMixin`` in
``blog/models.py``), so their URLs follow the page tree: ``/blog/feed/rss/``,
``/blog/feed/atom/``, ``/blog/<topic>/feed/rss/`` and ``/blog/<topic>/feed/atom/``. Each lists
the ``FEED_SIZE`` newest live, public, unexpired articles with their summary, dates, authors,
topics and the social image rendition as an enclosure.

Any text an editor typed is safe in them: characters XML 1.0 cannot carry are removed as the
feed is written (``home.text_cleaning``; the editor's forms remove them too), and a summary is
HTML-escaped, because RSS ``<description>`` and Atom ``<summary type="html">`` are read as HTML:
``<script>`` in a summary reaches feed readers as the text "<script>", never as a tag.
"""

import mimetypes

from django.contrib.syndication.views import Feed
from django.utils.feedgenerator import Atom1Feed, Enclosure, Rss201rev2Feed
from django.utils.html import escape

from wagtail.images.models import SourceImageIOError

from home.models import SOCIAL_IMAGE_SPEC
from home.seo import absolute_url, site_name
from home.text_cleaning import without_invalid_characters

# The newest articles a feed carries: enough for a reader who checks weekly, small enough to
# keep the response light (each entry is a summary, not the whole body).
FEED_SIZE = 20


class ArticleRssFeed(Feed):
    """RSS 2.0 feed of a blog index or topic page, called as ``ArticleRssFeed()(request, page=page)``."""

    feed_type = Rss201rev2Feed

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
        articles = articles.filter(topics=page) if isinstance(page, TopicPage) else articles.child_of(page)
        return articles[:FEED_SIZE]

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
        return ", ".join(author.name for author in article.authors.all()) or None

    def item_categories(self, article):
        return [topic.title for topic in article.topics.all()]

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

    feed_type = Atom1Feed
