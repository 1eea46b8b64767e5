"""modelsearch: defects of its database backends that turn a user's search text into a 500.

Three workarounds, each with its section in docs/upstream.md and a test in
tests/test_home_upstream.py that shows the defect still happens in modelsearch's own backend.
None is installed globally: our backends (``search.sqlite_backend``, ``search.postgres_backend``)
compose them, so callers of ``get_search_backend()`` (the API's ``?search=``, every admin search
box, the site search) all get them.

- A query of a few hundred words is a RecursionError ("modelsearch: long queries exceed the
  recursion limit"). The database backends compile a query's terms into one nested expression, a
  level per term (``CombinedLexeme`` on SQLite, Django's ``CombinedSearchQuery`` on PostgreSQL),
  and compile it recursively: on Python's default limit of 1,000 frames about 450 words raise.
  ``bounded_query`` keeps the first ``MAX_QUERY_TERMS`` words of a query
  (``BoundedQueryMixin``).
- A NUL byte in a query is a database error on both backends ("modelsearch: NUL bytes in a query
  reach the database"): PostgreSQL text cannot hold NUL (``DataError``) and SQLite's FTS5 reads
  its ``MATCH`` text only up to the NUL ("unterminated string"). ``nul_free_query`` makes each NUL
  a space (``NulFreeQueryMixin``), before the query is bounded: a NUL separates words.
- The SQLite FTS5 query compiler leaves a ``"`` inside a term unescaped, a syntax error, and takes
  ``fields=`` for FTS column names, "no such column" ("modelsearch: SQLite FTS5 queries from user
  text and ``fields=``"): ``SQLiteSafeQueryMixin``, for our SQLite query compilers.
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


def nul_free_query(query):
    """``query`` (a string or a query object, as for ``bounded_query``) with every NUL byte made a
    space, in the same structure. A string is also stripped, so that one of NULs and spaces alone
    is "", which modelsearch answers with no results before compiling anything. A query object
    without NUL is returned as it is, and so are other objects (``MatchAll``)."""
    if isinstance(query, str):
        return query.replace("\x00", " ").strip()
    if isinstance(query, (PlainText, Phrase, Fuzzy)):
        if "\x00" not in query.query_string:
            return query
        text = query.query_string.replace("\x00", " ")
        if isinstance(query, PlainText):
            return PlainText(text, operator=query.operator, boost=query.boost)
        if isinstance(query, Phrase):
            return Phrase(text)
        return Fuzzy(text, operator=query.operator, unaccent=query.unaccent)
    if isinstance(query, (And, Or)):
        subqueries = [nul_free_query(subquery) for subquery in query.subqueries]
        if all(a is b for a, b in zip(subqueries, query.subqueries, strict=True)):
            return query
        return type(query)(subqueries)
    if isinstance(query, Not):
        subquery = nul_free_query(query.subquery)
        return query if subquery is query.subquery else Not(subquery)
    if isinstance(query, Boost):
        subquery = nul_free_query(query.subquery)
        return query if subquery is query.subquery else Boost(subquery, query.boost)
    return query


class NulFreeQueryMixin:
    """For a modelsearch backend class: ``search`` and ``autocomplete`` make every NUL byte of
    a query a space (``nul_free_query``), whoever calls them. Put it before ``BoundedQueryMixin``
    in the bases, so that the words a NUL separates are counted."""

    def search(self, query, *args, **kwargs):
        return super().search(nul_free_query(query), *args, **kwargs)

    def autocomplete(self, query, *args, **kwargs):
        return super().autocomplete(nul_free_query(query), *args, **kwargs)


def fts5_string(text: str) -> str:
    """``text`` made safe inside an FTS5 double-quoted string: ``"`` doubled, FTS5's escape."""
    return text.replace('"', '""')


class SQLiteSafeQueryMixin:
    """For a modelsearch SQLite query compiler (search and autocomplete): user text as FTS5
    strings only, and ``fields=`` as FTS columns.

    modelsearch quotes each term (``"term"``) but leaves a ``"`` inside it as it is, so ``a"b`` or
    a lone ``"`` is an FTS5 syntax error, "unterminated string" (a 500 in every admin search box).
    Here each term is escaped, terms with nothing the tokenizer indexes (only punctuation: FTS5
    finds nothing for them, so an AND query found nothing at all, where PostgreSQL ignores them)
    are dropped, and a query left with no term matches nothing. ``fields=`` is honoured as closely
    as the FTS table allows (see ``fts_columns``) instead of being taken for FTS column names
    (SQLite: "no such column").

    NUL bytes never get here: the backend takes them out first (``NulFreeQueryMixin``).
    """

    def build_search_query_content(self, query, config=None):
        # modelsearch's SQLite query module reads its FTS index model when imported, which
        # exists only on SQLite: imported here, not with this module.
        from wagtail.search.backends.database.sqlite.query import Lexeme, SearchQueryExpression

        if isinstance(query, PlainText):
            terms = [fts5_string(term) for term in query.query_string.split()]
            terms = [term for term in terms if any(char.isalnum() for char in term)]
            if not terms:
                return SearchQueryExpression(Lexeme(""))  # the empty string: matches nothing
            query = PlainText(" ".join(terms), operator=query.operator, boost=query.boost)
        elif isinstance(query, Phrase):
            query = Phrase(fts5_string(query.query_string))
        return super().build_search_query_content(query, config=config)

    def fts_columns(self) -> list[str]:
        """The FTS5 columns to match for ``self.fields`` (model field names, already checked to be
        search fields by ``check()``). The SQLite index keeps three columns, not one per field:
        ``title`` (the ``title`` search field), ``body`` (every other search field) and
        ``autocomplete`` (every autocomplete field); modelsearch passes the field names through."""
        if not self.fields:
            return self.FTS_TABLE_FIELDS
        if self.FTS_TABLE_FIELDS == ["autocomplete"]:
            return ["autocomplete"]
        return sorted({"title" if field == "title" else "body" for field in self.fields}, reverse=True)

    def search(self, config, start, stop, score_field=None):
        # modelsearch's search() builds its MATCH from ``self.fields``: give it the columns meanwhile.
        fields, self.fields = self.fields, self.fts_columns()
        try:
            return super().search(config, start, stop, score_field)
        finally:
            self.fields = fields
