"""Spelling-tolerant suggestions for searches that found nothing ("Did you mean ...?").

Wagtail's database backend offers fuzzy matching only on PostgreSQL with the ``pg_trgm``
extension, and none on SQLite, so suggestions come from the words of live article and topic
titles, compared with ``difflib`` (the same on both databases).
"""

import difflib
import re

from django.core.cache import cache
from django.utils import timezone

from blog.models import ArticlePage, TopicPage

VOCABULARY_CACHE_KEY = "search:title-vocabulary"
VOCABULARY_CACHE_SECONDS = 600
# difflib's similarity ratio a suggested word needs (0..1); 0.75 accepts one typo in a
# five-letter word ("cheskpoint" -> "checkpoint") and rejects unrelated words.
MIN_SIMILARITY = 0.75
MIN_WORD_LENGTH = 3


def title_vocabulary() -> frozenset[str]:
    """Lowercased words (3+ letters) of live, public, unexpired article titles and of topic titles.

    Cached for VOCABULARY_CACHE_SECONDS; only pages with no results read it.
    """
    vocabulary = cache.get(VOCABULARY_CACHE_KEY)
    if vocabulary is None:
        titles = list(
            ArticlePage.objects.live().public().exclude(expire_at__lte=timezone.now()).values_list("title", flat=True)
        )
        titles += list(TopicPage.objects.live().public().values_list("title", flat=True))
        vocabulary = frozenset(
            word for title in titles for word in re.findall(r"\w+", title.lower()) if len(word) >= MIN_WORD_LENGTH
        )
        cache.set(VOCABULARY_CACHE_KEY, vocabulary, VOCABULARY_CACHE_SECONDS)
    return vocabulary


def suggest(query: str) -> list[str]:
    """At most one alternative query: ``query`` with each unknown word replaced by the closest
    title word, or ``[]`` when no word has a close match (or every word is known)."""
    vocabulary = title_vocabulary()
    words = query.lower().split()
    changed = False
    suggestion = []
    for word in words[:10]:
        if len(word) < MIN_WORD_LENGTH or word in vocabulary:
            suggestion.append(word)
            continue
        close = difflib.get_close_matches(word, vocabulary, n=1, cutoff=MIN_SIMILARITY)
        if close:
            changed = True
        suggestion.append(close[0] if close else word)
    return [" ".join(suggestion)] if changed else []
