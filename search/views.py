"""Site search at ``/search/`` and title autocomplete at ``/search/autocomplete/``.

Both run on Wagtail's search backend (``WAGTAILSEARCH_BACKENDS``: the database backend, i.e.
PostgreSQL full-text search or SQLite FTS5), through the ``search_fields`` declared on
``ArticlePage`` and ``TopicPage``; moving to Elasticsearch/OpenSearch is a settings change.
"""

import hashlib
import re
import zlib

from django.conf import settings
from django.core.cache import cache
from django.db.models import F
from django.http import JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from wagtail.contrib.search_promotions.models import SearchPromotion
from wagtail.models import Page, Site
from wagtail.search.backends import get_search_backend
from wagtail.search.utils import normalise_query_string

from blog.fragments import article_card_row, render_cards
from blog.listings import add_card_relations, paginate_listing, remembered_card_rows
from blog.models import ArticlePage, TopicPage
from home.caching import memo
from home.public_pages import exclude_private, in_request_site, next_expiry

from .backends import INDEXED_TEXT_ATTRIBUTE
from .highlight import excerpt, highlight, query_terms
from .models import ZeroResultQuery
from .query_log import record_search
from .retention import trim_if_over_limit
from .suggestions import suggest

# Longer queries are cut to this many characters: no real query needs more, and the database
# full-text parsers' cost grows with the query's length.
MAX_QUERY_LENGTH = 200
# Autocomplete: at most this many titles, for at most this many typed characters.
AUTOCOMPLETE_LIMIT = 8
AUTOCOMPLETE_MAX_LENGTH = 60

SORT_RELEVANCE = "relevance"
SORT_NEWEST = "newest"
SORTS = {SORT_RELEVANCE: "Relevance", SORT_NEWEST: "Newest"}

# Full-text parsers (SQLite FTS5, PostgreSQL tsquery) give their own meaning to punctuation and
# fail on some of it (an unbalanced quote is a syntax error in FTS5), so only word characters,
# spaces, hyphens, apostrophes and dots reach the backend.
_UNSAFE_QUERY_CHARS = re.compile(r"[^\w\s'.-]+")
_WORD_CHAR = re.compile(r"\w")
# Page slugs may be unicode (WAGTAIL_ALLOW_UNICODE_SLUGS): letters and digits of any script.
_SLUG = re.compile(r"[-\w]{1,255}")


def clean_query(raw: str, max_length: int = MAX_QUERY_LENGTH) -> str:
    """The text to search for: NUL bytes and operator punctuation made spaces (so they separate
    words, as a space would), words with no letter or digit ("-", "...") dropped, spaces
    collapsed, cut to ``max_length`` characters at a word boundary (a word cut in two would
    search for a word nobody typed). May return "" (then nothing is searched)."""
    text = _UNSAFE_QUERY_CHARS.sub(" ", raw)  # NUL is one of them
    if len(text) > max_length:
        cut = text[: max_length + 1]
        text = cut[: cut.rstrip().rfind(" ")] if not cut[-1].isspace() and " " in cut.strip() else cut
    return " ".join(word for word in text.split() if _WORD_CHAR.search(word))[:max_length]


def searchable_articles(request):
    """Articles readers of the site serving ``request`` may find: in that site, live, public and
    not past their expiry time.

    Privacy through ``exclude_private`` (no query once the restricted paths are remembered for
    the generation; a form search backends accept) rather than Wagtail's ``public()``, which
    costs a query per call.

    ``live`` alone is not enough: an expired page stays live until ``publish_scheduled``
    next runs.
    """
    articles = exclude_private(ArticlePage.objects.live()).exclude(expire_at__lte=timezone.now())
    return in_request_site(articles, request)


def topics_matching(topics, terms: list[str], limit: int = 5) -> list:
    """The topics (at most ``limit``, in the order given) whose title or intro has a word
    starting with each of ``terms`` (``search.highlight.query_terms``). The site's few topics are
    in memory already for the facets (remembered per cache generation), so this costs no query,
    where searching the topic pages cost two on every search."""
    if not terms:
        return []
    matching = []
    for topic in topics:
        words = re.findall(r"\w+", f"{topic.title} {topic.intro}".lower())
        if all(any(word.startswith(term) for word in words) for term in terms):
            matching.append(topic)
    return matching[:limit]


def searchable_topics(request):
    """Topic pages readers of the site serving ``request`` may find: in that site, live and public."""
    return in_request_site(exclude_private(TopicPage.objects.live()), request)


def _body_text(article) -> str:
    """The text of every block of ``article``'s body, code included, as the index has it."""
    texts = []
    for block in article.body:
        texts.extend(block.block.get_searchable_content(block.value))
    return " ".join(texts)


def _excerpt_texts(rows) -> dict:
    """``{pk: (text, after)}`` to cut each result's excerpt from (``rows``: card rows of the
    results, from ``blog.listings.card_rows`` or ``blog.fragments.article_card_row``): its body
    text and the topic and author names, everything searched besides the title and the summary,
    which the card shows (``search.highlight.excerpt`` leaves out ``after``, the summary the
    index holds first).

    Taken from the database search index when the backend offers it: the database backends
    give each result its indexed text (``INDEXED_TEXT_ATTRIBUTE``; otherwise one query for the
    page); decoding a StreamField runs every rich-text block through the HTML sanitiser, 5 ms or
    more an article. Otherwise (Elasticsearch/OpenSearch) from the body blocks of each row's
    ``"article"``.
    """
    backend = get_search_backend()
    if not rows or not hasattr(backend, "indexed_texts"):
        return {row["pk"]: (_body_text(row["article"]), "") for row in rows}
    indexed = {row["pk"]: row[INDEXED_TEXT_ATTRIBUTE] or "" for row in rows if INDEXED_TEXT_ATTRIBUTE in row}
    unannotated = [row["pk"] for row in rows if row["pk"] not in indexed]
    if unannotated:
        indexed.update(backend.indexed_texts(ArticlePage, unannotated))
    return {row["pk"]: (indexed.get(row["pk"], ""), row["summary"]) for row in rows}


def promoted_queries() -> dict[str, tuple[str, ...]]:
    """Query strings that have editors' picks, by the form a reader's search for them takes
    (``clean_query``, then Wagtail's normalisation: a pick for "What is a roofline?" answers the
    search "what is a roofline"). Remembered for the page-cache generation (``home.caching.memo``;
    saving or deleting a pick starts a new one: ``search.apps``)."""

    def build():
        by_search = {}
        for stored in SearchPromotion.objects.values_list("query__query_string", flat=True).distinct():
            by_search.setdefault(normalise_query_string(clean_query(stored)), set()).add(stored)
        return {search: tuple(sorted(stored)) for search, stored in by_search.items()}

    return memo.memoized("promoted-queries", build)


def _promotions(query: str) -> list:
    """Editors' picks for ``query`` (Wagtail search promotions): external links, and pages
    readers can see (live, public, unexpired). Looked up without creating a ``Query`` row, and
    only for queries that have picks (known from the site chrome: no query for the others)."""
    stored = promoted_queries().get(normalise_query_string(query))
    if not stored:
        return []
    picks = list(SearchPromotion.objects.filter(query__query_string__in=stored).order_by("sort_order"))
    page_ids = [pick.page_id for pick in picks if pick.page_id]
    visible = (
        exclude_private(Page.objects.live()).exclude(expire_at__lte=timezone.now()).filter(pk__in=page_ids).specific()
    ).in_bulk()
    return [
        {"title": pick.title, "url": pick.external_link_url, "description": pick.description, "page": None}
        if not pick.page_id
        else {"title": visible[pick.page_id].title, "description": pick.description, "page": visible[pick.page_id]}
        for pick in picks
        if not pick.page_id or pick.page_id in visible
    ]


def _log_query(query: str, found: int) -> None:
    """Count a hit for ``query`` in Wagtail's query log (``search.query_log``); remember it if it
    found nothing.

    A query seen for the first time may take the log past its size limit: then it is trimmed
    (``search.retention``)."""
    logged, created = record_search(query)
    if found == 0:
        ZeroResultQuery.record(logged)
    if created:
        trim_if_over_limit()


@csrf_exempt  # read-only: another method gets its 405, not a CSRF 403
@require_safe  # GET and HEAD
def search(request):
    """Render search results for ``/search/?query=...&topic=<slug>&sort=newest&page=2``.

    Parameters (every one hostile; repeated parameters: the last value counts; unknown
    parameters are ignored):

    - ``query``: text, cleaned by ``clean_query`` (punctuation and NUL removed, cut to
      MAX_QUERY_LENGTH characters). Empty after cleaning: the search form and the topics show.
    - ``topic``: a live topic page's slug. Anything else is ignored with a message on the
      page ("showing all topics") rather than a 404, so an old link still finds results.
    - ``sort``: ``relevance`` (default) or ``newest``; anything else is ignored with a message.
    - ``page``: a positive integer naming an existing page of results; anything else (``abc``,
      ``0``, ``-1``, past the end) gives a 404, as on the blog's listings.

    Page 1 of each search is logged in Wagtail's search-terms report (``Query.add_hit``), and
    searches finding nothing are also kept in ``ZeroResultQuery``.
    """
    raw_query = request.GET.get("query", "")
    query = clean_query(raw_query)
    notices = []
    # Said only when words were left out: spaces and punctuation past the limit cut nothing.
    if len(raw_query) > MAX_QUERY_LENGTH and clean_query(raw_query, max_length=len(raw_query)) != query:
        notices.append(f"Your search was cut to its first {MAX_QUERY_LENGTH} characters.")
    if raw_query.strip() and not query:
        notices.append("Your search had no letters or digits to search for.")

    site = Site.find_for_request(request)
    topics = memo.memoized(
        ("search-topics", site.pk if site else None), lambda: list(searchable_topics(request).order_by("title"))
    )
    topic = None
    raw_topic = request.GET.get("topic", "")
    if raw_topic:
        if _SLUG.fullmatch(raw_topic):
            topic = next((candidate for candidate in topics if candidate.slug == raw_topic), None)
        if topic is None:
            notices.append("That topic does not exist; showing results from all topics.")

    sort = request.GET.get("sort", SORT_RELEVANCE)
    if sort not in SORTS:
        notices.append("Unknown sort order; showing the most relevant results first.")
        sort = SORT_RELEVANCE

    context = {
        "search_query": query,
        "topics": topics,
        "topic": topic,
        "sort": sort,
        "sorts": SORTS,
        "notices": notices,
    }
    if not query:
        # Nothing to search for; still validate the page number, so bad values never pass.
        paginate_listing(request, [])
        return render(request, "search/search.html", context)

    cache_key = _results_cache_key(request, query, topic, sort)
    stored = cache.get(cache_key) if cache_key else None
    if stored is not None:
        outcome = stored | {"html": zlib.decompress(stored["html"]).decode()}
    else:
        outcome = _search_results(request, query, topic, sort, topics)
        if cache_key:
            # Kept compressed (a page of results is about 35 KB of HTML); compressed only when
            # kept, since with the cache off it would only be undone again.
            stored = outcome | {"html": zlib.compress(outcome["html"].encode())}
            cache.set(cache_key, stored, settings.SEARCH_RESULTS_CACHE_SECONDS)
    if outcome["page"] == 1:
        _log_query(query, outcome["found"])
    context["promotions"] = _promotions(query) if outcome["page"] == 1 else []
    context["results_html"] = mark_safe(outcome["html"])  # noqa: S308 - rendered by us
    return render(request, "search/search.html", context)


def _results_cache_key(request, query: str, topic, sort: str) -> str | None:
    """The cache key of this search's rendered results, or None when they are not to be cached.

    Results are kept for SEARCH_RESULTS_CACHE_SECONDS within one page-cache generation (the
    token every change readers could see replaces: ``home.caching.invalidation``), so a publish,
    unpublish, move, rename or view restriction shows in the next search. Not cached outside a
    request (no generation read: ``home.caching.memo``), nor once an article's expiry
    time has passed in this generation (it leaves the results at that moment, before
    ``publish_scheduled`` unpublishes it and starts a new generation).
    """
    generation = memo.current_generation()
    if not settings.SEARCH_RESULTS_CACHE_SECONDS or generation is None:
        return None
    expiry = next_expiry()
    if expiry is not None and expiry <= timezone.now():
        return None
    site = Site.find_for_request(request)  # page URLs in the results are relative to it
    search = (generation, site.pk if site else None, query, topic.pk if topic else None, sort, request.GET.get("page"))
    return "search:results:" + hashlib.sha256(repr(search).encode()).hexdigest()


def _search_results(request, query: str, topic, sort: str, topics: list) -> dict:
    """Run the search and render its results (``search/results.html``): ``{"html": the HTML,
    "found": articles and topic pages found, "page": the page number}``. Raises Http404
    for a ``page`` that is not a page of results."""
    # On the database backends each result is its primary key with the text indexed for it (for
    # the excerpt), and its card row (blog.listings.card_rows: no model instance) is the one
    # remembered for the cache generation (the listings remember the same rows), else read with
    # the others missing in one query. Other backends (Elasticsearch/OpenSearch) return
    # instances: the card image comes with each, bodies are read only for excerpts.
    rows_from_index = hasattr(get_search_backend(), "indexed_texts")
    articles = searchable_articles(request)
    articles = articles.values("pk") if rows_from_index else articles.defer_streamfields().select_related("image")
    if sort == SORT_NEWEST:
        matches = articles.order_by(F("date_published").desc(nulls_last=True), "-id").search(
            query, order_by_relevance=False
        )
    else:
        matches = articles.search(query)
    all_topics_matches = matches
    if topic is not None:
        filtered = articles.filter(pk__in=topic.articles.values("pk"))
        if sort == SORT_NEWEST:
            filtered = filtered.order_by(F("date_published").desc(nulls_last=True), "-id")
        matches = filtered.search(query, order_by_relevance=sort == SORT_RELEVANCE)

    # Counts per topic are for the whole query, whichever topic is chosen. Asked for before the
    # count, so that on PostgreSQL one statement finds the count, the facets and the first keys.
    topic_counts = all_topics_matches.facet("topics")
    results = paginate_listing(request, matches)
    total = results.paginator.count
    terms = query_terms(query)
    # The cards' keys from the result rows and their topics and authors (one query); only the
    # cards missing from the fragment cache are loaded and rendered (blog.fragments.render_cards).
    page = list(results.object_list) if total else []
    if rows_from_index:
        rows = remembered_card_rows([result["pk"] for result in page])
        indexed = {result["pk"]: result for result in page if INDEXED_TEXT_ATTRIBUTE in result}
        for row in rows:
            if row["pk"] in indexed:
                row[INDEXED_TEXT_ATTRIBUTE] = indexed[row["pk"]][INDEXED_TEXT_ATTRIBUTE]
    else:
        rows = add_card_relations([article_card_row(article, False) for article in page])
    excerpt_texts = _excerpt_texts(rows)
    hits = []
    for row in rows:
        text, after = excerpt_texts[row["pk"]]
        hits.append(
            {
                "title": highlight(row["title"], terms),
                "summary": highlight(row["summary"], terms),
                "excerpt": excerpt(text, terms, after=after),
            }
        )
    cards = render_cards(
        request, rows, heading_level=2, texts=[(hit["title"], hit["summary"], hit["excerpt"]) for hit in hits]
    )
    for hit, html in zip(hits, cards, strict=True):
        hit["html"] = html
    matching_topics = []
    if results.number == 1 and topic is None:
        matching_topics = topics_matching(topics, terms)
    html = render_to_string(
        "search/results.html",
        {
            "search_query": query,
            "topic": topic,
            "topics": topics,
            "sort": sort,
            "results": results,
            "hits": hits,
            "total": total,
            "matching_topics": matching_topics,
            "topic_facets": [
                {"topic": candidate, "count": topic_counts.get(candidate.pk, 0)}
                for candidate in topics
                if topic_counts.get(candidate.pk)
            ],
            "suggestions": suggest(query) if total == 0 else [],
        },
        request=request,
    )
    return {"html": html, "found": total + len(matching_topics), "page": results.number}


@csrf_exempt  # read-only: another method gets its 405, not a CSRF 403
@require_safe  # GET and HEAD (monitors and link checkers use HEAD)
def autocomplete(request):
    """Titles of live, public, unexpired articles with words starting as typed, as JSON.

    ``GET /search/autocomplete/?q=<text>`` returns
    ``{"query": str, "results": [{"title": str, "url": str}, ...]}``, at most
    AUTOCOMPLETE_LIMIT results; ``q`` is cleaned like a search and cut to
    AUTOCOMPLETE_MAX_LENGTH characters; an empty ``q`` gives no results. Never logged.
    """
    query = clean_query(request.GET.get("q", ""), max_length=AUTOCOMPLETE_MAX_LENGTH)
    results = []
    if query:
        for page in searchable_articles(request).autocomplete(query)[:AUTOCOMPLETE_LIMIT]:
            results.append({"title": page.title, "url": page.get_url(request)})
    response = JsonResponse({"query": query, "results": results})
    response["Cache-Control"] = "public, max-age=60"
    return response
