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
- A listing reads its cards' fragments in one round trip (``get_many`` in
  ``prefetch_grid_renditions``) and keeps what it found on the request, so each cached card is
  printed from there (``prefetched_fragment``) instead of being read again, one round trip per
  card, by its ``{% wagtailcache %}`` tag; a card not found renders through the tag as before.
- An article's body outline (word count for the reading time and the JSON-LD, table of
  contents, whether it has its own call to action: ``ArticlePage.body_outline``), printed outside
  the body's fragment: keyed by the article's live revision (a revision's body never changes) and
  the code that computes it (``OUTLINE_VERSION``), so a cached page does not walk its body.
- Both: the Wagtail site's root URL (links are relative on their own site, absolute on another),
  ``CODE_VERSION`` (a digest of the templates and modules that render them, read once per
  process, and ``FRAGMENT_VERSION``) and, for bodies, the Pygments version (code highlighting).
"""

import hashlib

from django.core.cache import caches
from django.core.cache.utils import make_template_fragment_key
from django.db.models import prefetch_related_objects

from wagtail.models import Site

import pygments

from home.caching import fragments

# Change this when code outside ``_RENDERING_FILES`` changes what a fragment prints.
FRAGMENT_VERSION = "1"
# The templates and modules that render cards and bodies, relative to the project root: their
# contents are part of every key, so a deployment that changes one never serves old fragments.
_RENDERING_FILES = (
    "templates/components",
    "blog/blocks.py",
    "blog/charts.py",
    "blog/footnotes.py",
    "blog/mathml.py",
    "blog/fragments.py",
    "blog/templatetags/blog_tags.py",
)


CODE_VERSION = fragments.files_digest(_RENDERING_FILES, seed=FRAGMENT_VERSION)
# The outline is computed by ArticlePage.body_outline (blog/models.py, which CODE_VERSION leaves out).
OUTLINE_VERSION = fragments.files_digest(["blog/models.py"], seed=CODE_VERSION)


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
        CODE_VERSION,
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
        CODE_VERSION,
        pygments.__version__,
        _site_root(request),
        article.pk,
        article.live_revision_id,
        keys,
        fragments.versions(keys),
    )


def card_fragment_cache_key(article, request, loading: str = "lazy", heading_level=3) -> str:
    """The cache key ``{% wagtailcache %}`` stores ``article``'s grid card under in
    ``components/article_card.html`` (Django's ``make_template_fragment_key`` with the tag's
    ``vary_on`` values: the card key, ``loading``, ``heading_level``, and the three search-result
    texts, empty in a grid). ``tests/test_performance_fragments.py`` checks that both agree."""
    return make_template_fragment_key("article-card", [card_key(article, request), loading, heading_level, "", "", ""])


def prefetch_grid_renditions(articles, request, first_eager: bool = False, heading_level=None) -> None:
    """Fetch the image renditions of the cards in ``articles`` (as ``components/card_grid.html``
    shows them) whose cached fragment is missing, in one query; the cached ones are not rendered,
    so they need none. One cache round trip (``get_many``) for all the cards' fragments."""
    articles = list(articles)
    keys = [
        card_fragment_cache_key(
            article,
            request,
            loading="eager" if first_eager and index == 0 else "lazy",
            heading_level=heading_level or 3,
        )
        for index, article in enumerate(articles)
    ]
    _prefetch_missing(list(zip(keys, articles, strict=True)), request)


def prefetch_result_renditions(hits, request) -> None:
    """``prefetch_grid_renditions`` for search results (``templates/search/result_card.html``):
    ``hits`` are ``{"article", "title", "summary", "excerpt"}`` dicts (``search/views.py``), each
    card keyed with its highlighted title, summary and excerpt at heading level 2."""
    keyed = [
        (
            make_template_fragment_key(
                "article-card",
                [card_key(hit["article"], request), "lazy", 2, hit["title"], hit["summary"], hit["excerpt"]],
            ),
            hit["article"],
        )
        for hit in hits
    ]
    _prefetch_missing(keyed, request)


def prefetch_featured_renditions(article, request) -> None:
    """``prefetch_grid_renditions`` for the featured card (``components/featured_article.html``)."""
    key = make_template_fragment_key("featured-card", [card_key(article, request)])
    _prefetch_missing([(key, article)], request)


def _fragment_cache():
    """The cache ``{% wagtailcache %}`` uses: "template_fragments" if configured, else "default"."""
    return caches["template_fragments" if "template_fragments" in caches else "default"]


def body_outline(article) -> dict:
    """``article.body_outline`` (an ArticlePage as published: not a preview's draft) from the
    cache, keyed by its live revision; computed from the body and stored on a miss. One cache
    round trip once stored."""
    if article.live_revision_id is None:
        return article.body_outline
    key = "fragments:article-outline:" + _digest(OUTLINE_VERSION, article.pk, article.live_revision_id)
    cache = _fragment_cache()
    outline = cache.get(key)
    if outline is None:
        outline = article.body_outline
        cache.set(key, outline, fragments.FRAGMENT_SECONDS)
    return outline


# The request attribute holding the fragments a listing's get_many found: {cache key: HTML}.
PREFETCHED_ATTRIBUTE = "prefetched_fragments"


def prefetched_fragment(request, name: str, *vary_on):
    """The HTML of fragment ``name`` with ``vary_on`` (the ``{% wagtailcache %}`` tag's arguments
    after its timeout) if this request already read it with ``prefetch_grid_renditions`` or
    ``prefetch_featured_renditions``, else None (the tag then reads or renders it)."""
    found = getattr(request, PREFETCHED_ATTRIBUTE, None) if request is not None else None
    if not found:
        return None
    return found.get(make_template_fragment_key(name, vary_on))


def _prefetch_missing(keyed_articles: list[tuple], request) -> None:
    if request is None or getattr(request, "is_preview", False):  # no fragments: every card renders
        missing = [article for _key, article in keyed_articles]
    else:
        found = _fragment_cache().get_many([key for key, _article in keyed_articles])
        # Kept for the card templates (prefetched_fragment): each card is read once, not twice.
        if not hasattr(request, PREFETCHED_ATTRIBUTE):
            setattr(request, PREFETCHED_ATTRIBUTE, {})
        getattr(request, PREFETCHED_ATTRIBUTE).update(found)
        missing = [article for key, article in keyed_articles if key not in found]
    images = [article.image for article in missing if article.image is not None]
    if images:
        prefetch_related_objects(images, "renditions")
