"""Excerpts around the matched words of a search, with the matches wrapped in ``<mark>``.

Wagtail's database search backends return ranked objects only: unlike Elasticsearch/OpenSearch
they expose no highlighting (PostgreSQL's ``ts_headline`` is not reachable through Wagtail's
API, and SQLite FTS5's ``highlight()`` works on the index table, not on our fields). So the
excerpt is cut here, in Python, from text the page already holds. It runs on the dozen results
of one page only.
"""

import re
from functools import lru_cache
from html import escape

from django.utils.safestring import SafeString, mark_safe

# Words shorter than this are not highlighted ("a", "of"): they match everywhere.
MIN_TERM_LENGTH = 2
# At most this many distinct words of a query are highlighted (a query is capped, but not short).
MAX_TERMS = 10


def query_terms(query: str) -> list[str]:
    """The words of ``query`` worth highlighting: lowercased, unique, in order, at most MAX_TERMS.

    A word is a run of letters and digits (``\\w``); punctuation separates words.
    """
    terms: list[str] = []
    for word in re.findall(r"\w+", query.lower()):
        if len(word) >= MIN_TERM_LENGTH and word not in terms:
            terms.append(word)
    return terms[:MAX_TERMS]


def _terms_pattern(terms: list[str]) -> re.Pattern | None:
    return _pattern(tuple(terms)) if terms else None


# One pattern per query, not per highlighted text (36 texts on a page of results).
@lru_cache(maxsize=64)
def _pattern(terms: tuple[str, ...]) -> re.Pattern:
    # A term matches at the start of a word and takes the rest of the word, so "checkpoint"
    # marks "checkpointing" and "checkpoints" (close to what PostgreSQL's stemming matched).
    # Longest first, so "gpus" wins over "gpu" at the same place.
    alternatives = "|".join(re.escape(term) for term in sorted(terms, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})\w*", re.IGNORECASE)


def highlight(text: str, terms: list[str]) -> SafeString:
    """``text`` HTML-escaped, with every word starting with one of ``terms`` wrapped in ``<mark>``."""
    pattern = _terms_pattern(terms)
    if pattern is None:
        return mark_safe(escape(text))  # noqa: S308 - escaped just now
    parts: list[str] = []
    position = 0
    for match in pattern.finditer(text):
        parts.append(escape(text[position : match.start()]))
        parts.append(f"<mark>{escape(match.group())}</mark>")
        position = match.end()
    parts.append(escape(text[position:]))
    return mark_safe("".join(parts))  # noqa: S308 - every piece of text is escaped above


def excerpt(text: str, terms: list[str], length: int = 220, normalised: bool = False, after: str = "") -> SafeString:
    """About ``length`` characters of ``text`` around the first match of ``terms``, highlighted.

    The window starts a third of its length before the first match, is cut at spaces and
    gets "…" where text was left out. Returns "" when no term occurs in ``text`` (the caller
    then shows no excerpt: the match was in a field shown elsewhere, e.g. the title).
    Whitespace runs count as one space; ``normalised``: ``text`` has them so already
    (``" ".join(text.split())``), not done again. ``after``: text that ``text`` may begin with
    (whitespace runs as one space there too), left out of the excerpt: the search index holds an
    article's summary first, and its card shows the summary already.

    Only the start of ``text`` that the excerpt needs is made single-spaced (up to the first
    match and the window after it; ``_searched_text``), not the whole of it: 5,700 characters of
    an article's indexed text for each of a page's twelve results cost more than the rest of
    the excerpt.
    """
    pattern = _terms_pattern(terms)
    if pattern is None:
        return mark_safe("")
    text, match = _searched_text(text, pattern, length, normalised, " ".join(after.split()))
    if match is None:
        return mark_safe("")
    start = max(0, match.start() - length // 3)
    end = min(len(text), start + length)
    if start > 0:
        # Cut at a word boundary, so the excerpt never begins mid-word.
        space = text.find(" ", start, match.start())
        start = space + 1 if space != -1 else start
    if end < len(text):
        space = text.rfind(" ", match.end(), end)
        end = space if space != -1 else end
    prefix = "… " if start > 0 else ""
    suffix = " …" if end < len(text) else ""
    return mark_safe(prefix + highlight(text[start:end], terms) + suffix)  # noqa: S308 - highlight() escapes


def _searched_text(text: str, pattern: re.Pattern, length: int, normalised: bool, after: str) -> tuple:
    """``(searched, match)``: ``searched`` is the start of ``text`` made single-spaced, without a
    leading ``after`` (single-spaced), long enough to hold its first match of ``pattern`` and
    the ``length`` characters of window around it (all of it when needed), and ``match`` that
    first match (None if there is none). ``excerpt`` cut from it is the one cut from the whole
    text made single-spaced.

    Why a start suffices: the single-spaced form of a start of ``text`` is a start of the
    single-spaced whole. A match that ends before the end of that start is the first match of
    the whole (a term is made of word characters, so a match running on to the end of the start
    may continue past it, and no other match can begin inside it); and a window that ends
    before the end of that start is the same window in the whole.
    """
    if normalised:
        size = len(text)
    else:
        # No match anywhere (whitespace aside, the same words): nothing to make single-spaced.
        first = pattern.search(text)
        if first is None:
            return text, None
        size = max(4 * length, first.end() + 2 * length)
    while True:
        complete = size >= len(text)
        searched = text if complete else text[:size]
        if not normalised:
            searched = " ".join(searched.split())
        # Whether ``text`` begins with ``after`` is known once more than ``after`` is read.
        if complete or len(searched) > len(after):
            if after and searched.startswith(after):
                searched = searched[len(after) :].lstrip()
            match = pattern.search(searched)
            window_end = max(0, match.start() - length // 3) + length if match else 0
            if complete or (match is not None and match.end() < len(searched) and window_end < len(searched)):
                return searched, match
        size *= 2
