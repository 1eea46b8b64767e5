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
  and images its blocks refer to (``home.caching.fragments``), because rich-text links print
  their target's URL (or plain text once it is unpublished) and figures their image's renditions.
- An article page's own fragments (``pages/article_page.html``: the SEO head, and the article
  from its header to its author cards, the body's fragment nested inside): Wagtail's
  ``{% wagtailpagecache %}``, keyed by ``ArticlePage.get_cache_key_components``: the article's
  row and live revision, ``PAGE_CODE_VERSION``, and the version tokens of everything they show:
  the article, its image and social image, its topics, its authors (whose tokens change with
  their photos too), its ancestors (breadcrumbs), what its body refers to, the URL token and the
  sites token (site name, site settings). All the tokens an article's key and its body's key
  need are read in one round trip (``article_state``).
- A listing reads its cards' fragments in one round trip (``get_many`` in
  ``prefetch_grid_renditions``) and keeps what it found on the request, so each cached card is
  printed from there (``prefetched_fragment``) instead of being read again, one round trip per
  card, by its ``{% wagtailcache %}`` tag; a card not found renders through the tag as before.
- An article's outline (``article_state``): its body outline (word count for the reading time
  and the JSON-LD, table of contents, whether it has its own call to action:
  ``ArticlePage.body_outline``), the token keys of what its body refers to, and the ids of its
  topics and authors (a ParentalManyToMany relation is written when a revision is published), so
  a request whose fragments are cached neither walks the body nor queries the relations. Cached
  by the article's live revision (a revision's body never changes) and the code that computes it
  (``OUTLINE_VERSION``), and checked against the article's own version token, which any save of
  its row replaces (a change made without a new revision computes it again).
- Both: the Wagtail site's root URL (links are relative on their own site, absolute on another),
  ``CODE_VERSION`` (a digest of the templates and modules that render them, read once per
  process, and ``FRAGMENT_VERSION``) and, for bodies, the Pygments version (code highlighting).
"""

import hashlib
from dataclasses import dataclass

from django.core.cache import caches
from django.core.cache.utils import make_template_fragment_key
from django.db.models import prefetch_related_objects

from wagtail.images import get_image_model
from wagtail.models import Page, Site

import pygments

from home.caching import fragments, memo

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
# What renders an article page's own fragments besides the components: its template, the base
# template's SEO block, and the SEO head's tags and helpers (``ArticlePage.get_cache_key_components``).
PAGE_CODE_VERSION = fragments.files_digest(
    [
        "templates/pages/article_page.html",
        "templates/base.html",
        "home/templatetags/seo_tags.py",
        "home/seo.py",
        "home/models.py",
    ],
    seed=OUTLINE_VERSION,
)


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


def _reference_keys(article) -> list[str]:
    """The version token keys of the pages and images ``article``'s body refers to (walks the body)."""
    body = article.body
    references = {(model, str(pk)) for model, pk, *_ in body.stream_block.extract_references(body)}
    return sorted({fragments.object_key(model, pk) for model, pk in references})


def _body_keys(article, reference_keys) -> list[str]:
    return [fragments.URLS_KEY, fragments.object_key(type(article), article.pk), *reference_keys]


def body_key(article, request=None) -> str:
    """The fragment key (a hex digest) of ``article``'s rendered body as served to ``request``.
    With ``article.fragment_state`` (``article_state``, set by ``ArticlePage.get_context``) no
    cache round trip; otherwise one, for the version tokens of the article and of what its body
    refers to (walking the body to find them)."""
    state = getattr(article, "fragment_state", None)
    if state is not None:
        keys = _body_keys(article, state.outline["reference_keys"])
        tokens = [state.tokens[key] for key in keys]
    else:
        keys = _body_keys(article, _reference_keys(article))
        tokens = fragments.versions(keys)
    return _digest(
        CODE_VERSION,
        pygments.__version__,
        _site_root(request),
        article.pk,
        article.live_revision_id,
        keys,
        tokens,
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


@dataclass(frozen=True)
class ArticleState:
    """What an article's cached fragments are keyed by (``article_state``).

    ``outline``: ``ArticlePage.body_outline``'s keys plus ``reference_keys`` (token keys of what
    the body refers to), ``topic_ids`` and ``author_ids`` (every topic and author the article is
    linked to, shown or not) and ``page_version`` (the article's token it was computed under).
    ``tokens``: ``{token key: token}`` for the article, its images, topics, authors, ancestors,
    body references, the URL token and the sites token."""

    outline: dict
    tokens: dict


def _ancestor_ids(article) -> list:
    """The primary keys of ``article``'s ancestors (breadcrumbs show their titles): one query per
    parent, remembered for the cache generation (``home.caching.memo``; a move starts a new one)."""
    parent_path = article.path[: -article.steplen]
    paths = [parent_path[:end] for end in range(article.steplen, len(parent_path) + 1, article.steplen)]
    return memo.memoized(
        ("ancestor-ids", parent_path),
        lambda: sorted(Page.objects.filter(path__in=paths).values_list("pk", flat=True)),
    )


def _state_keys(article, outline) -> list[str]:
    image_ids = {pk for pk in (article.image_id, getattr(article, "social_image_id", None)) if pk is not None}
    return [
        *_body_keys(article, outline["reference_keys"]),
        fragments.SITES_KEY,
        *(fragments.object_key(get_image_model(), pk) for pk in sorted(image_ids)),
        *(fragments.object_key(Page, pk) for pk in [*outline["topic_ids"], *_ancestor_ids(article)]),
        *(fragments.object_key(type(article).authors.field.related_model, pk) for pk in outline["author_ids"]),
    ]


def _compute_outline(article, page_version: str) -> dict:
    """The outline of ``article`` as stored in the database (three queries and a walk over the body)."""
    relations = type(article)
    return {
        **article.body_outline,
        "reference_keys": _reference_keys(article),
        "topic_ids": sorted(
            relations.topics.through.objects.filter(articlepage_id=article.pk).values_list("topicpage_id", flat=True)
        ),
        "author_ids": sorted(
            relations.authors.through.objects.filter(articlepage_id=article.pk).values_list("author_id", flat=True)
        ),
        "page_version": page_version,
    }


def outline_cache_key(article) -> str:
    """The cache key of ``article``'s outline: its primary key and live revision, and the code."""
    return "fragments:article-outline:" + _digest(OUTLINE_VERSION, article.pk, article.live_revision_id)


def article_state(article) -> ArticleState:
    """The outline and version tokens of ``article`` (an ArticlePage as published and served to
    readers: never a preview's draft). Two cache round trips (the outline, then every token in one
    ``get_many``); on a miss, or when the article's row changed since the outline was stored,
    the outline is computed afresh (``_compute_outline``) and stored."""
    key = outline_cache_key(article)
    page_key = fragments.object_key(type(article), article.pk)
    cache = _fragment_cache()
    outline = cache.get(key)
    if outline is not None:
        keys = _state_keys(article, outline)
        tokens = dict(zip(keys, fragments.versions(keys), strict=True))
        if tokens[page_key] == outline["page_version"]:
            return ArticleState(outline, tokens)
    # The article's token before its rows are read: a change saved meanwhile replaces it, so an
    # outline stored under the old token is computed again on the next request.
    outline = _compute_outline(article, page_version=fragments.versions([page_key])[0])
    cache.set(key, outline, fragments.FRAGMENT_SECONDS)
    keys = _state_keys(article, outline)
    return ArticleState(outline, dict(zip(keys, fragments.versions(keys), strict=True)))


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
