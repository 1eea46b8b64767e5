"""What an article's cached fragments are keyed by (everything each one shows), and the one
place cards are rendered.

Cards (``components/article_card.html``, ``components/featured_article.html``) are rendered by
``render_card_groups`` (``render_cards`` for one group) and an article's body
(``pages/article_page.html``) by Wagtail's ``{% wagtailcache %}`` tag (Wagtail's "Template
fragment caching" docs); neither reads nor writes the cache in previews and reviewer links (both
set ``request.is_preview``). A change to anything a fragment shows makes a new key and the old
fragment is never read again (it expires from the cache); nothing is deleted on publish.

- A card: the article (id, live revision, URL path, the fields the card prints, its alt text and
  the image description it may come from), its image (id, file hash, focal point), its topics'
  titles and tree paths and its live authors' names. Listings and search take these from a
  ``values()`` row (``blog.listings.card_rows``, ``add_card_relations``: no model instance), other
  callers from an ArticlePage with its card relations prefetched (``article_card_row``); both
  give the same key. ``render_card_groups`` takes every group of cards a page shows (a
  listing's featured card and its grid), computes each key once, reads the grids stored whole
  (keyed by their cards' keys) and the other cards in one round trip (``get_many``), the cards of
  a grid not found whole in one more, loads and renders the missing ones of every group in one
  batch (their ArticlePages in one query, their renditions in one more; topics and authors from
  the rows) and stores them and the grids whole in one ``set_many``, under
  ``make_template_fragment_key`` keys.
- A body: the article's live revision and version token, and the version tokens of the pages
  and images its blocks refer to (``home.caching.fragments``), because rich-text links print
  their target's URL (or plain text once it is unpublished) and figures their image's renditions.
- An article page's own fragments (``pages/article_page.html``: the SEO head, and the article
  from its header to its author cards, the body's fragment nested inside): Wagtail's
  ``{% wagtailpagecache %}``, keyed by ``ArticlePage.get_cache_key_components``: the article's
  row and live revision, ``PAGE_CODE_VERSION``, and the version tokens of everything they show:
  the article, its image and social image, its topics, its authors (whose tokens change with
  their photos too), what its body refers to, the URL token and the sites token (site name, site
  settings); and what the breadcrumbs show of its ancestors (titles and URLs of the live ones,
  ``home.seo.ancestor_crumbs``, remembered for the cache generation), not their tokens. All the
  tokens an article's key and its body's key need are read in one round trip (``article_state``).
- An article's outline (``article_state``): its body outline (word count for the reading time
  and the JSON-LD, table of contents, whether it has its own call to action:
  ``ArticlePage.body_outline``), the token keys of what its body refers to, and the ids of its
  topics and authors (a ParentalManyToMany relation is written when a revision is published), so
  a request whose fragments are cached neither walks the body nor queries the relations. Cached
  by the article's live revision (a revision's body never changes) and the code that computes it
  (``OUTLINE_VERSION``), and checked against the article's own version token, which any save of
  its row replaces (a change made without a new revision computes it again).
- All: the Wagtail site's root URL (links are relative on their own site, absolute on another),
  ``CODE_VERSION`` (a digest of the templates and modules that render them, read once per
  process, and ``FRAGMENT_VERSION``) and, for bodies, the Pygments version (code highlighting).
"""

import hashlib
from collections import namedtuple
from dataclasses import dataclass

from django.core.cache.utils import make_template_fragment_key
from django.db.models import CharField, Value, prefetch_related_objects
from django.template.loader import get_template
from django.utils.safestring import SafeString, mark_safe

from wagtail.images import get_image_model
from wagtail.models import Page, Site

import pygments

from home.caching import fragments, memo
from home.seo import ancestor_crumbs

from .listings import CARD_FIELDS

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
    "blog/listings.py",
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


# What renders a listing page's (blog index, topic page) cached SEO head besides the components:
# its templates, the base template's SEO block, and the SEO head's tags and helpers.
LISTING_HEAD_VERSION = fragments.files_digest(
    [
        "templates/pages/blog_listing.html",
        "templates/pages/blog_index_page.html",
        "templates/pages/topic_page.html",
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
    """What the URLs a card or body prints are relative to: the root URL of the site serving
    ``request``, and every site's root page path and root URL (Wagtail's
    ``Site.get_site_root_paths``, which ``pageurl`` resolves against: a site given another root
    page, host or port changes the URL of every page under it). The paths are remembered for
    the cache generation, which a saved or deleted ``Site`` replaces (``home.caching.memo``)."""
    site = Site.find_for_request(request) if request is not None else None
    roots = memo.memoized(
        "site-root-paths",
        lambda: repr([(root.site_id, root.root_path, root.root_url) for root in Site.get_site_root_paths()]),
    )
    return f"{site.root_url if site is not None else ''}|{roots}"


def article_card_row(article, relations: bool = True) -> dict:
    """An ArticlePage (its image loaded) as a card row (``blog.listings.card_rows``), with
    ``"article"``: the instance itself, rendered if its fragment is missing. ``relations``: take
    ``"topics"`` and ``"authors"`` from its prefetched relations (``prefetch_cards``); else add
    them with ``blog.listings.add_card_relations`` (one query for any number of rows, none for
    those remembered in the cache generation)."""
    image = article.image
    row = {
        "pk": article.pk,
        "live_revision": article.live_revision_id,
        "url_path": article.url_path,
        "title": article.title,
        "summary": article.summary,
        "date_published": article.date_published,
        "last_published_at": article.last_published_at,
        "image_alt": article.image_alt,
        "image_decorative": article.image_decorative,
        "image": article.image_id,
        "image__file_hash": image.file_hash if image else None,
        "image__focal_point_x": image.focal_point_x if image else None,
        "image__focal_point_y": image.focal_point_y if image else None,
        "image__focal_point_width": image.focal_point_width if image else None,
        "image__focal_point_height": image.focal_point_height if image else None,
        "image__description": image.description if image else None,
        "article": article,
    }
    if relations:
        row["topics"] = [(topic.pk, topic.title, topic.path) for topic in article.topics.all()]
        row["authors"] = [(author.pk, author.name) for author in article.authors.all()]
    return row


def _card_key(row: dict, site_root: str) -> str:
    # Topics print in tree order and authors by name: sorted so, their order is a function of
    # what the key holds, however the rows came.
    return _digest(
        CODE_VERSION,
        site_root,
        [row[field] for field in CARD_FIELDS],
        sorted((path, pk, title) for pk, title, path in row["topics"]),
        sorted((name, pk) for pk, name in row["authors"]),
    )


def card_key(card, request=None) -> str:
    """The fragment key (a hex digest) of a card as served to ``request``: ``card`` is a card row
    (``blog.listings.card_rows`` with ``add_card_relations``) or an ArticlePage with its card
    relations prefetched (``prefetch_cards``); both give the same key for the same content. The
    key holds everything the card prints (title, summary, dates, URL path, alt text and what it
    comes from, topics' titles, authors' names), the live revision, the image's file hash and
    focal point, and the site's root URL. No query."""
    row = card if isinstance(card, dict) else article_card_row(card)
    return _card_key(row, _site_root(request))


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
    """The cache key a grid card of ``article`` (a card row or an ArticlePage with its card
    relations prefetched) is stored under: Django's ``make_template_fragment_key`` of
    "article-card" with the card key, ``loading``, ``heading_level`` and the three search-result
    texts (empty in a grid), as ``render_cards`` stores it."""
    return make_template_fragment_key("article-card", [card_key(article, request), loading, heading_level, "", "", ""])


# The card templates, and the fragment name each is cached under.
CARD_TEMPLATES = {
    "article-card": "components/article_card.html",
    "featured-card": "components/featured_article.html",
}


@dataclass(frozen=True)
class CardGroup:
    """Cards shown one way on a page, for ``render_card_groups``: ``cards`` (card rows with their
    relations, or ArticlePages with their card relations prefetched) rendered with
    ``CARD_TEMPLATES[name]``; for grid cards ("article-card") ``heading_level``, the first card's
    image loaded eagerly when ``first_eager``, and a search result's highlighted ``texts`` (one
    ``(title, summary, excerpt)`` per card). ``inside_fragment``: the cards are rendered inside
    a fragment cached for the generation (an article's related posts), which holds the grid's
    HTML already, so the grid is not also stored whole (one write fewer on a cold page; when the
    enclosing fragment is rendered again, its cards are read one key each)."""

    cards: list
    name: str = "article-card"
    heading_level: int = 3
    first_eager: bool = False
    texts: list[tuple] | None = None
    inside_fragment: bool = False


# What a card prints of its topics and authors (``components/article_card.html``): from the card
# row, so rendering a card reads neither relation again.
CardTopic = namedtuple("CardTopic", "pk title path")
CardAuthor = namedtuple("CardAuthor", "pk name")


def render_cards(
    request,
    cards,
    *,
    name: str = "article-card",
    heading_level=3,
    first_eager: bool = False,
    texts: list[tuple] | None = None,
    inside_fragment: bool = False,
) -> list[SafeString]:
    """The HTML of each card in ``cards``, in order ("" for an article deleted since its row was
    read): ``render_card_groups`` with one ``CardGroup`` of these arguments."""
    group = CardGroup(list(cards), name, heading_level, first_eager, texts, inside_fragment)
    return render_card_groups(request, [group])[0]


def render_card_groups(request, groups: list[CardGroup]) -> list[list[SafeString]]:
    """The HTML of each group's cards, in order (one list per group; "" for an article deleted
    since its row was read), every group of the page in one batch.

    Each card is a cached fragment, keyed by what it shows (``card_key``) and how it is shown
    (the group's ``name``, and for grid cards the image's ``loading``, ``heading_level`` and the
    highlighted ``texts``). A group of two or more cards without ``texts`` (a listing's grid) is
    also stored whole under its cards' keys. Reads: one ``get_many`` of every group's whole grid
    and of the other groups' cards; for a grid not found whole, one more ``get_many`` of its
    cards. Only the cards missing then are rendered, all groups' together: their ArticlePage rows
    in one query and their images' renditions in one more (topics and authors come from the card
    rows), stored with the grids in one ``set_many``. Previews and reviewer links
    (``request.is_preview``) and renders without a request neither read nor write the cache, as
    Wagtail's ``{% wagtailcache %}``.
    """
    rows = [[card if isinstance(card, dict) else article_card_row(card) for card in group.cards] for group in groups]
    if not any(rows):
        return [[] for _ in groups]
    site_root = _site_root(request)
    keys = [_presentation_keys(group, group_rows, site_root) for group, group_rows in zip(groups, rows, strict=True)]
    cached = request is not None and not getattr(request, "is_preview", False)
    # A listing's grid of cards is also stored whole, keyed by its cards' keys: one read of one
    # entry instead of one per card (a file each on the file-based cache). Not search results:
    # their cards are per query already, and the search results cache holds the page.
    grid_keys = [
        make_template_fragment_key(f"{group.name}-grid", [_digest(group_keys)])
        if cached and len(group_keys) > 1 and not group.texts and not group.inside_fragment
        else None
        for group, group_keys in zip(groups, keys, strict=True)
    ]
    found, whole = {}, set()
    if cached:
        first = []
        for grid_key, group_keys in zip(grid_keys, keys, strict=True):
            first += [grid_key] if grid_key else group_keys
        found = fragments.fragment_cache().get_many(first)
        for grid_key, group_keys in zip(grid_keys, keys, strict=True):
            grid = found.pop(grid_key, None) if grid_key else None
            if isinstance(grid, list) and len(grid) == len(group_keys):
                found.update(zip(group_keys, grid, strict=True))
                whole.add(grid_key)
        unread = [
            key
            for grid_key, group_keys in zip(grid_keys, keys, strict=True)
            if grid_key and grid_key not in whole
            for key in group_keys
        ]
        if unread:
            found.update(fragments.fragment_cache().get_many(unread))
    missing = [
        (group_index, index)
        for group_index, group_keys in enumerate(keys)
        for index, key in enumerate(group_keys)
        if key not in found
    ]
    new = {}
    if missing:
        rendered = _render_missing(request, groups, rows, missing)
        new = {
            keys[group_index][index]: html
            for (group_index, index), html in zip(missing, rendered, strict=True)
            if html is not None
        }
        found.update(new)
    if cached:
        for grid_key, group_keys in zip(grid_keys, keys, strict=True):
            if grid_key and grid_key not in whole and all(key in found for key in group_keys):
                new[grid_key] = [found[key] for key in group_keys]
        if new:
            fragments.fragment_cache().set_many(new, fragments.FRAGMENT_SECONDS)
    # The fragments are HTML this site rendered (stored as rendered, never from readers' input).
    return [[mark_safe(found.get(key, "")) for key in group_keys] for group_keys in keys]  # noqa: S308


def _presentation_keys(group: CardGroup, rows: list[dict], site_root: str) -> list[str]:
    """The cache key of each card of ``group``: what it shows and how."""
    keys = []
    for index, row in enumerate(rows):
        vary_on = [_card_key(row, site_root)]
        if group.name == "article-card":
            loading = "eager" if group.first_eager and index == 0 else "lazy"
            vary_on += [loading, group.heading_level, *(group.texts[index] if group.texts else ("", "", ""))]
        keys.append(make_template_fragment_key(group.name, vary_on))
    return keys


def _render_missing(request, groups, rows, missing) -> list[str | None]:
    """The HTML of the cards ``missing`` (``(group index, card index)`` pairs), None for an
    article deleted since its row was read: the ArticlePages not given in one query, their
    images' renditions in one more."""
    from .models import ArticlePage

    wanted = [rows[group_index][index] for group_index, index in missing]
    to_load = {row["pk"] for row in wanted if "article" not in row}
    loaded = ArticlePage.objects.defer_streamfields().select_related("image").in_bulk(to_load) if to_load else {}
    articles = [row["article"] if "article" in row else loaded.get(row["pk"]) for row in wanted]
    images = [article.image for article in articles if article is not None and article.image is not None]
    if images:
        prefetch_related_objects(images, "renditions")
    templates = {}
    html = []
    for (group_index, index), row, article in zip(missing, wanted, articles, strict=True):
        if article is None:  # deleted since its row was read: no card (and nothing stored)
            html.append(None)
            continue
        group = groups[group_index]
        if group.name not in templates:
            templates[group.name] = get_template(CARD_TEMPLATES[group.name])
        # The request in the context (for {% pageurl %}), not as render()'s argument: the cards
        # use no context processor, and running them for each card cost more than the card.
        context = {"article": article, "request": request, **card_relations(row)}
        if group.name == "article-card":
            title, summary, excerpt = group.texts[index] if group.texts else ("", "", "")
            context |= {
                "loading": "eager" if group.first_eager and index == 0 else "lazy",
                "heading_level": group.heading_level,
                "card_title": title,
                "card_summary": summary,
                "card_excerpt": excerpt,
            }
        html.append(templates[group.name].render(context))
    return html


def card_relations(row: dict) -> dict:
    """``{"topics": [CardTopic], "authors": [CardAuthor]}`` of a card row, in the order a card
    prints them (topics in tree order, authors by name, as their models order them)."""
    return {
        "topics": [CardTopic(*topic) for topic in sorted(row["topics"], key=lambda topic: (topic[2], topic[0]))],
        "authors": [
            CardAuthor(*author) for author in sorted(row["authors"], key=lambda author: (author[1], author[0]))
        ],
    }


@dataclass(frozen=True)
class ArticleState:
    """What an article's cached fragments are keyed by (``article_state``).

    ``outline``: ``ArticlePage.body_outline``'s keys plus ``reference_keys`` (token keys of what
    the body refers to), ``topic_ids`` and ``author_ids`` (every topic and author the article is
    linked to, shown or not) and ``page_version`` (the article's token it was computed under).
    ``tokens``: ``{token key: token}`` for the article, its images, topics, authors, body
    references, the URL token and the sites token. ``crumbs``: what the breadcrumbs show of its
    ancestors (``home.seo.ancestor_crumbs``: their titles and URLs), in the key itself rather
    than through the ancestors' tokens (three fewer tokens to read, or to store on a cold page)."""

    outline: dict
    tokens: dict
    crumbs: tuple = ()


def _state_keys(article, outline) -> list[str]:
    image_ids = {pk for pk in (article.image_id, getattr(article, "social_image_id", None)) if pk is not None}
    return [
        *_body_keys(article, outline["reference_keys"]),
        fragments.SITES_KEY,
        *(fragments.object_key(get_image_model(), pk) for pk in sorted(image_ids)),
        *(fragments.object_key(Page, pk) for pk in outline["topic_ids"]),
        *(fragments.object_key(type(article).authors.field.related_model, pk) for pk in outline["author_ids"]),
    ]


def _compute_outline(article, page_version: str) -> dict:
    """The outline of ``article`` as stored in the database (two queries: the body's references,
    and its topic and author ids in one union; and a walk over the body)."""
    relations = type(article)
    topics = relations.topics.through.objects.filter(articlepage_id=article.pk)
    authors = relations.authors.through.objects.filter(articlepage_id=article.pk)
    linked = {"topic": [], "author": []}
    for kind, pk in topics.values_list(Value("topic", CharField()), "topicpage_id").union(
        authors.values_list(Value("author", CharField()), "author_id"), all=True
    ):
        linked[kind].append(pk)
    return {
        **article.body_outline,
        "reference_keys": _reference_keys(article),
        "topic_ids": sorted(linked["topic"]),
        "author_ids": sorted(linked["author"]),
        "page_version": page_version,
    }


def outline_cache_key(article) -> str:
    """The cache key of ``article``'s outline: its primary key and live revision, and the code."""
    return "fragments:article-outline:" + _digest(OUTLINE_VERSION, article.pk, article.live_revision_id)


def article_state(article, request=None) -> ArticleState:
    """The outline, version tokens and breadcrumbs of ``article`` (an ArticlePage as published and
    served to ``request``'s readers: never a preview's draft). The breadcrumbs are remembered for
    the cache generation (one query on its first request). Two cache round trips (the outline, then every token in one
    ``get_many``); on a miss, or when the article's row changed since the outline was stored,
    the outline is computed afresh (``_compute_outline``) and stored, the article's token read
    once before its rows and the others after them."""
    key = outline_cache_key(article)
    page_key = fragments.object_key(type(article), article.pk)
    cache = fragments.fragment_cache()
    crumbs = ancestor_crumbs(request, article)
    outline = cache.get(key)
    if outline is not None:
        keys = _state_keys(article, outline)
        tokens = dict(zip(keys, fragments.versions(keys), strict=True))
        if tokens[page_key] == outline["page_version"]:
            return ArticleState(outline, tokens, crumbs)
        page_version = tokens[page_key]
    else:
        page_version = fragments.versions([page_key])[0]
    # The article's token is read before its rows: a change saved meanwhile replaces it, so an
    # outline stored under the old token is computed again on the next request.
    outline = _compute_outline(article, page_version=page_version)
    cache.set(key, outline, fragments.FRAGMENT_SECONDS)
    # The other tokens in one more round trip (the article's was just read: not read again).
    keys = [state_key for state_key in _state_keys(article, outline) if state_key != page_key]
    tokens = {page_key: page_version, **dict(zip(keys, fragments.versions(keys), strict=True))}
    return ArticleState(outline, tokens, crumbs)
