"""modelsearch: a query of a few hundred words is a RecursionError, so a 500.

modelsearch's database backends compile a query's terms into one nested expression, a level per
term (``CombinedLexeme`` on SQLite, Django's ``CombinedSearchQuery`` on PostgreSQL), and compile
that expression recursively: on Python's default recursion limit of 1,000 frames, about 450
words (``?search=`` on the API, ``?q=`` in any admin search box, and any caller of the backend)
raise ``RecursionError`` and the request answers 500. docs/upstream.md, "modelsearch: long
queries exceed the recursion limit"; tests/test_home_upstream.py shows it still happens.

``bounded_query`` keeps the first ``MAX_QUERY_TERMS`` words of a query, which our backends
(``search.sqlite_backend``, ``search.postgres_backend``) apply to every query they are given,
through ``BoundedQueryMixin``. Not installed globally: the backends are ours.
"""

from wagtail.search.query import And, Boost, Fuzzy, Not, Or, Phrase, PlainText

# Far more words than anyone types into a search box (the site search keeps 200 characters,
# search/views.py), and far fewer than the ~450 that reach the recursion limit.
MAX_QUERY_TERMS = 64


def bounded_query(query, limit: int = MAX_QUERY_TERMS):
    """``query`` (a string or a query object: ``PlainText``, ``Phrase``, ``Fuzzy``, ``And``,
    ``Or``, ``Not``, ``Boost``) with at most ``limit`` words, the first ones, in the same
    structure; a query with fewer words is returned as it is. Other objects (``MatchAll``) are
    returned unchanged."""
    bounded, _left = _bounded(query, limit)
    return bounded


def _words(text: str, budget: int) -> tuple[str, int]:
    words = text.split()
    if len(words) <= budget:
        return text, budget - len(words)
    return " ".join(words[:budget]), 0


def _bounded(query, budget: int):
    """``(query cut to budget words, words left)``; None for a query with no budget left."""
    if isinstance(query, str):
        text, left = _words(query, budget)
        return text, left
    if budget <= 0 and isinstance(query, (PlainText, Phrase, Fuzzy, And, Or, Not, Boost)):
        return None, 0
    if isinstance(query, PlainText):
        text, left = _words(query.query_string, budget)
        if text is query.query_string:
            return query, left
        return PlainText(text, operator=query.operator, boost=query.boost), left
    if isinstance(query, Phrase):
        text, left = _words(query.query_string, budget)
        return (query if text is query.query_string else Phrase(text)), left
    if isinstance(query, Fuzzy):
        text, left = _words(query.query_string, budget)
        if text is query.query_string:
            return query, left
        return Fuzzy(text, operator=query.operator, unaccent=query.unaccent), left
    if isinstance(query, (And, Or)):
        kept = []
        for subquery in query.subqueries:
            bounded, budget = _bounded(subquery, budget)
            if bounded is not None:
                kept.append(bounded)
        if len(kept) == len(query.subqueries) and all(a is b for a, b in zip(kept, query.subqueries, strict=True)):
            return query, budget
        return (type(query)(kept) if kept else None), budget
    if isinstance(query, (Not, Boost)):
        bounded, left = _bounded(query.subquery, budget)
        if bounded is None or bounded is query.subquery:
            return (None if bounded is None else query), left
        return (Not(bounded) if isinstance(query, Not) else Boost(bounded, query.boost)), left
    return query, budget


class BoundedQueryMixin:
    """For a modelsearch backend class: ``search`` and ``autocomplete`` take at most
    ``MAX_QUERY_TERMS`` words of any query (``bounded_query``), whoever calls them."""

    def search(self, query, *args, **kwargs):
        return super().search(bounded_query(query), *args, **kwargs)

    def autocomplete(self, query, *args, **kwargs):
        return super().autocomplete(bounded_query(query), *args, **kwargs)
