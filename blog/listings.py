"""Listing helpers shared by the blog's listing pages and search: paging that treats ``?page=``
as hostile input, counts remembered per cache generation, one query per relation for cards, and
what a page of a listing shows (its cards' keys and rows) remembered per cache generation."""

from django.conf import settings
from django.core.paginator import EmptyPage, Page, Paginator
from django.db.models import CharField, IntegerField, Prefetch, QuerySet, Value, prefetch_related_objects
from django.http import Http404
from django.utils import timezone

from home.caching import memo
from home.page_numbers import page_number
from home.public_pages import next_expiry


class ListingPaginator(Paginator):
    """Django's paginator, reading pages past the middle of an ordered queryset from its end.

    ``OFFSET n`` makes the database walk and discard ``n`` rows, so the last page of a 10,000-card
    listing cost as much as reading every card. Past the middle, the page is read in the reverse
    order (an offset of at most half the listing, near 0 for the last pages; the listing index is
    read backwards) and turned round. The order must be total (``listed()`` ends with the pk).
    """

    def page(self, number):
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = bottom + self.per_page
        if top + self.orphans >= self.count:
            top = self.count
        if isinstance(self.object_list, QuerySet) and self.object_list.ordered and bottom > self.count // 2:
            rows = list(self.object_list.reverse()[self.count - top : self.count - bottom])
            rows.reverse()
            return self._get_page(rows, number, self)
        return super().page(number)


def paginate_listing(request, queryset, per_page: int | None = None, count_key: tuple | None = None):
    """Return the Django ``Page`` of ``queryset`` that ``?page=`` asks for.

    ``?page`` is hostile input: it must be a positive integer of at most six digits naming an
    existing page; anything else (``abc``, ``0``, ``-1``, ``1.5``, past the last page) raises
    Http404. A missing parameter means page 1. ``per_page`` defaults to ``BLOG_PAGE_SIZE``.
    ``count_key``: names the listing, so its number of items (a ``COUNT(*)`` over every match)
    is remembered for the cache generation (``listed_count``).
    """
    number = requested_page_number(request)
    paginator = ListingPaginator(queryset, per_page or settings.BLOG_PAGE_SIZE, allow_empty_first_page=True)
    if count_key is not None:
        paginator.count = listed_count(count_key, queryset)  # Paginator.count is a cached_property
    try:
        return paginator.page(number)
    except EmptyPage as error:
        raise Http404("No such page of posts.") from error


def requested_page_number(request) -> int:
    """The page number ``?page=`` names (1 without it); Http404 for anything else
    (``home.page_numbers.page_number``)."""
    number = page_number(request.GET.get("page"))
    if number is None:
        raise Http404("No such page of posts.")
    return number


def page_of_rows(rows: list, number: int, count: int, per_page: int | None = None) -> Page:
    """A Django ``Page`` numbered ``number`` holding ``rows``, of a listing of ``count`` items
    (``per_page`` defaults to ``BLOG_PAGE_SIZE``), as ``paginate_listing`` gives: for a page
    whose rows and count were remembered. Http404 if ``number`` is past the last page."""
    paginator = ListingPaginator([], per_page or settings.BLOG_PAGE_SIZE, allow_empty_first_page=True)
    paginator.count = count  # Paginator.count is a cached_property
    try:
        number = paginator.validate_number(number)
    except EmptyPage as error:
        raise Http404("No such page of posts.") from error
    return Page(rows, number, paginator)


def listed_count(key: tuple, queryset) -> int:
    """``queryset.count()``, remembered under ``key`` for the cache generation (``home.caching.memo``):
    publishing, unpublishing, moving or deleting an article starts a new one. An article whose
    ``expire_at`` passes stays counted until ``publish_scheduled`` unpublishes it (every minute),
    as the full-page cache keeps showing it until then. ``queryset`` may be a function returning
    it, called only when the count is not remembered (building a queryset costs too)."""
    return memo.memoized(("listed-count", *key), lambda: (queryset() if callable(queryset) else queryset).count())


def _listings_unchanged() -> bool:
    """Whether every listing still holds what it held when the cache generation began: no live
    page's expiry time has passed since (``home.public_pages.next_expiry``, remembered for the
    generation). Anything else that changes a listing starts a new generation."""
    expiry = next_expiry()
    return expiry is None or timezone.now() < expiry


def recall_listing_page(key: tuple):
    """What ``remember_listing_page`` kept under ``key`` in this cache generation, else
    ``home.caching.memo.MISSING`` (always once an article's expiry time has passed: the listing
    is read again until the scheduler unpublishes it, which starts a new generation)."""
    if not _listings_unchanged():
        return memo.MISSING
    return memo.recall(key, group="listing-pages")


def remember_listing_page(key: tuple, value) -> None:
    """Remember ``value`` (what a page of a listing shows, by primary keys and counts: small and
    immutable) under ``key`` for the cache generation (memo group "listing-pages"): publishing,
    unpublishing, moving or deleting an article, or editing anything a card shows, starts a new
    one, and an expiry time passing stops ``recall_listing_page`` from answering."""
    if _listings_unchanged():
        memo.remember(key, value, group="listing-pages")


# What an article card shows besides the article's own row: one query each, however many cards.
CARD_PREFETCHES = ("topics", "authors", "image__renditions")


def prefetch_cards(articles, author_photos: bool = False, renditions_for=None):
    """Fetch what cards need (topics, authors, image renditions) for ``articles``, an iterable of
    ArticlePage instances (other page types are skipped), in one query per relation. Returns the
    articles as a list. Use it when cards come from several querysets (featured + a page of posts,
    search results) so the relations are fetched once for all of them. ``author_photos``: also the
    authors' photos, their renditions fetched in the same query as the cards' (the article page).
    ``renditions_for``: the articles whose image renditions to fetch (default: all of them); cards
    are rendered by ``blog.fragments.render_cards``, which prefetches again only for the cards
    whose cached fragment is missing."""
    from .models import ArticlePage, TopicPage, live_authors

    articles = list(articles)
    cards = [article for article in articles if isinstance(article, ArticlePage)]
    # The image first, for cards that lack it, so renditions are then fetched for every card.
    prefetch_related_objects([card for card in cards if not ArticlePage.image.is_cached(card)], "image")
    # Only live authors: a new author waiting for review is not credited yet.
    authors = live_authors().select_related("photo") if author_photos else live_authors()
    # Only live topics: an unpublished topic has no page to be listed on.
    prefetch_related_objects(
        cards, Prefetch("topics", queryset=TopicPage.objects.live()), Prefetch("authors", queryset=authors)
    )
    with_renditions = cards if renditions_for is None else [card for card in cards if card in renditions_for]
    images = [card.image for card in with_renditions if card.image is not None]
    if author_photos:
        images += [author.photo for card in cards for author in card.authors.all() if author.photo is not None]
    if images:
        prefetch_related_objects(images, "renditions")
    return articles


# What a card's fragment key needs of an article's row (``blog.fragments.card_key``): the fields
# the card prints and its image's identity; ``values()`` names, the image's joined.
CARD_FIELDS = (
    "pk",
    "live_revision",
    "url_path",
    "title",
    "summary",
    "date_published",
    "last_published_at",
    "image_alt",
    "image_decorative",
    "image",
    "image__file_hash",
    "image__focal_point_x",
    "image__focal_point_y",
    "image__focal_point_width",
    "image__focal_point_height",
    "image__description",
)


def card_rows(queryset) -> QuerySet:
    """``queryset`` (of ArticlePage) as rows for cards: ``values(*CARD_FIELDS)`` dicts, no model
    instances. Page and slice it, then give the rows their relations with ``add_card_relations``."""
    return queryset.values(*CARD_FIELDS)


def add_card_relations(rows) -> list[dict]:
    """Give each card row (a ``card_rows`` dict, or any dict with "pk") ``"topics"``: ``[(pk,
    title, tree path)]`` of its live topics and ``"authors"``: ``[(pk, name)]`` of its live authors (what
    ``prefetch_cards`` fetches; in no particular order, ``blog.fragments.card_key`` sorts them).
    Each article's relations are remembered for the cache generation (``home.caching.memo``,
    group "card-relations"; saving a page or an author starts a new one); those not remembered
    are read in one query (a union over the two relation tables) however many rows, with no
    model instances. Returns the rows as a list."""
    rows = list(rows)
    relations = {}
    for row in rows:
        found = memo.recall(row["pk"], group=CARD_RELATIONS)
        if found is not memo.MISSING:
            relations[row["pk"]] = found
    missing = [row["pk"] for row in rows if row["pk"] not in relations]
    if missing:
        fetched = _card_relations(missing)
        for pk, found in fetched.items():
            memo.remember(pk, found, group=CARD_RELATIONS)
        relations |= fetched
    for row in rows:
        # Copies: the remembered lists are shared by every request of the generation.
        topics, authors = relations[row["pk"]]
        row["topics"], row["authors"] = list(topics), list(authors)
    return rows


# The memo group of each article's card relations (bounded in ``home.caching.memo``).
CARD_RELATIONS = "card-relations"


def _card_relations(pks) -> dict:
    """``{pk: (topics, authors)}`` of the articles with ``pks``, as ``add_card_relations`` gives
    them; one query."""
    from .models import ArticlePage

    relations = {pk: ([], []) for pk in pks}
    topics = ArticlePage.topics.through.objects.filter(articlepage_id__in=pks, topicpage__live=True).values_list(
        "articlepage_id", Value(0, IntegerField()), "topicpage_id", "topicpage__title", "topicpage__path"
    )
    # Only live authors, as in prefetch_cards: a new author waiting for review is not credited yet.
    authors = ArticlePage.authors.through.objects.filter(articlepage_id__in=pks, author__live=True).values_list(
        "articlepage_id", Value(1, IntegerField()), "author_id", "author__name", Value("", CharField())
    )
    for article, kind, pk, text, path in topics.union(authors, all=True):
        relations[article][kind].append((pk, text, path) if kind == 0 else (pk, text))
    return relations


# The memo group of each article's card row, without its relations (bounded in ``home.caching.memo``).
CARD_ROWS = "card-rows"


def remember_card_rows(rows) -> None:
    """Remember each card row (``card_rows``) by its article's primary key for the cache
    generation (memo group "card-rows", read by ``remembered_card_rows``), without its topics and
    authors, which ``add_card_relations`` remembers apart: what a card shows (the article, its
    image) changes only with a save or publish, each of which starts a new generation."""
    for row in rows:
        memo.remember(row["pk"], {k: v for k, v in row.items() if k not in ("topics", "authors")}, group=CARD_ROWS)


def remembered_card_rows(pks) -> list[dict]:
    """Card rows with their relations (``card_rows``, ``add_card_relations``) of the articles
    ``pks`` (listed in this cache generation, or found by a search), in that order: copies of
    the rows remembered by ``remember_card_rows``, the rows not remembered read in one query
    (and remembered), then their relations (``add_card_relations``: remembered too, else one
    more query). An article with no row (deleted meanwhile) is left out."""
    from .models import ArticlePage

    found = {pk: memo.recall(pk, group=CARD_ROWS) for pk in pks}
    missing = [pk for pk, row in found.items() if row is memo.MISSING]
    if missing:
        rows = list(card_rows(ArticlePage.objects.filter(pk__in=missing)))
        remember_card_rows(rows)
        found.update((row["pk"], row) for row in rows)
    return add_card_relations(dict(found[pk]) for pk in pks if found[pk] is not memo.MISSING)
