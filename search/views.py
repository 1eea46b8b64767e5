"""Site search at ``/search/?query=...`` over live, public articles and topic pages."""

import re

from django.core.paginator import EmptyPage, Paginator
from django.http import Http404
from django.shortcuts import render

from wagtail.models import Page

from blog.models import prefetch_cards

# Longer queries are cut to this many characters: no real query needs more, and the database
# full-text parsers' cost grows with the query's length.
MAX_QUERY_LENGTH = 200
RESULTS_PER_PAGE = 12
# ASCII digits only: str.isdigit() also accepts "²" and "٢", which int() then rejects.
PAGE_NUMBER = re.compile(r"^[1-9][0-9]{0,5}$", re.ASCII)

# Full-text parsers (SQLite FTS5, PostgreSQL tsquery) give their own meaning to punctuation and
# fail on some of it (an unbalanced quote is a syntax error in FTS5), so only word characters,
# spaces, hyphens, apostrophes and dots reach the backend.
_UNSAFE_QUERY_CHARS = re.compile(r"[^\w\s'.-]+")


def clean_query(raw: str) -> str:
    """The text to search for: NUL bytes and operator punctuation removed, spaces collapsed,
    cut to MAX_QUERY_LENGTH characters. May return "" (then nothing is searched)."""
    text = _UNSAFE_QUERY_CHARS.sub(" ", raw.replace("\x00", ""))[:MAX_QUERY_LENGTH]
    return " ".join(text.split())


def search(request):
    """Render search results.

    Query parameters: ``query`` (text, cleaned by ``clean_query``),
    ``page`` (positive integer; anything else or past the end gives 404).
    """
    query = clean_query(request.GET.get("query", ""))
    raw_page = request.GET.get("page", "1")
    if not PAGE_NUMBER.match(raw_page):
        raise Http404("No such page of results.")

    results = None
    if query:
        # search() on the specific live, public pages; Wagtail's search backend does the ranking.
        pages = Page.objects.live().public().specific()
        paginator = Paginator(pages.search(query), RESULTS_PER_PAGE)
        try:
            results = paginator.page(int(raw_page))
        except EmptyPage as error:
            if int(raw_page) != 1:
                raise Http404("No such page of results.") from error
            results = paginator.page(1)
        # Cards' topics, authors and images in one query each for the whole page of results.
        results.object_list = prefetch_cards(results.object_list)

    return render(request, "search/search.html", {"search_query": query, "search_results": results})
