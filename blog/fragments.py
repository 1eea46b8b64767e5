"""What an article's cached fragments are keyed by: everything each one shows.

The templates cache an article's card (``components/article_card.html``,
``components/featured_article.html``) and its body (``pages/article_page.html``) with Wagtail's
``{% wagtailcache %}`` tag (Wagtail's "Template fragment caching" docs), which renders without
the cache in previews and reviewer links (both set ``request.is_preview``). The tag's ``vary_on``
values are these keys, so a change to anything a fragment shows makes a new key and the old
fragment is never read again (it expires from the cache); nothing is deleted on publish.

- A card: the article (id, live revision, the fields the card prints, its alt text, which may be
  the image's description), its image (id, file hash, focal point), its topics' titles and its
  authors' names, as prefetched for the card (``blog.listings.prefetch_cards``), so the key
  costs no query and no cache round trip.
- A body: the article's live revision and version token, and the version tokens of the pages
  and images its blocks refer to (``home.caching.fragments``; one cache round trip), because
  rich-text links print their target's URL (or plain text once it is unpublished) and figures
  their image's renditions.
- Both: the Wagtail site's root URL (links are relative on their own site, absolute on another),
  and ``FRAGMENT_VERSION`` with the Pygments version (code highlighting).
"""

import hashlib

from wagtail.models import Site

import pygments

from home.caching import fragments

# Change this when a fragment's template or the code that renders it changes what it prints.
FRAGMENT_VERSION = "1"


def _digest(*parts) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def _site_root(request) -> str:
    site = Site.find_for_request(request) if request is not None else None
    return site.root_url if site is not None else ""


def _image_parts(image) -> tuple:
    if image is None:
        return ()
    return (
        image.pk,
        image.file_hash,
        image.focal_point_x,
        image.focal_point_y,
        image.focal_point_width,
        image.focal_point_height,
    )


def card_key(article, request=None) -> str:
    """The fragment key (a hex digest) of ``article``'s card (an ArticlePage with its card relations
    prefetched) as served to ``request``. No query once the relations are prefetched."""
    return _digest(
        FRAGMENT_VERSION,
        _site_root(request),
        article.pk,
        article.live_revision_id,
        article.url_path,
        article.title,
        article.summary,
        article.date_published,
        article.last_published_at,
        article.card_alt_text,
        _image_parts(article.image),
        [(topic.pk, topic.title) for topic in article.topics.all()],
        [(author.pk, author.name) for author in article.authors.all()],
    )


def body_key(article, request=None) -> str:
    """The fragment key (a hex digest) of ``article``'s rendered body as served to ``request``.
    One cache round trip for the version tokens of the article and of what its body refers to."""
    body = article.body
    references = sorted({(model, str(pk)) for model, pk, *_ in body.stream_block.extract_references(body)}, key=str)
    keys = [
        fragments.URLS_KEY,
        fragments.object_key(type(article), article.pk),
        *(fragments.object_key(model, pk) for model, pk in references),
    ]
    return _digest(
        FRAGMENT_VERSION,
        pygments.__version__,
        _site_root(request),
        article.pk,
        article.live_revision_id,
        keys,
        fragments.versions(keys),
    )
