"""``home.upstream.modelsearch.bounded_query``: a query keeps its first MAX_QUERY_TERMS words, in
the same structure, whatever its shape."""

from wagtail.search.query import And, Boost, Fuzzy, MatchAll, Not, Or, Phrase, PlainText

import pytest
from hypothesis import given
from hypothesis import strategies as st

from home.upstream.modelsearch import MAX_QUERY_TERMS, bounded_query


def words(query) -> list[str]:
    """Every word of ``query``, in order."""
    if isinstance(query, str):
        return query.split()
    if isinstance(query, (PlainText, Phrase, Fuzzy)):
        return query.query_string.split()
    if isinstance(query, (And, Or)):
        return [word for subquery in query.subqueries for word in words(subquery)]
    if isinstance(query, (Not, Boost)):
        return words(query.subquery)
    return []


SHORT = [
    "gpu costs",
    PlainText("gpu costs", operator="or", boost=2),
    Phrase("gpu costs"),
    And([PlainText("gpu"), Phrase("inference costs")]),
    Or([Not(PlainText("a")), Boost(Phrase("b c"), 3)]),
    MatchAll(),
]


@pytest.mark.parametrize("query", SHORT, ids=repr)
def test_a_short_query_is_left_as_it_is(query):
    assert bounded_query(query) is query


def test_a_long_string_keeps_its_first_words():
    text = " ".join(f"w{n}" for n in range(500))
    assert bounded_query(text).split() == [f"w{n}" for n in range(MAX_QUERY_TERMS)]


def test_plain_text_keeps_its_operator_and_boost():
    query = bounded_query(PlainText(" ".join(["gpu"] * 300), operator="or", boost=2))
    assert isinstance(query, PlainText) and (query.operator, query.boost) == ("or", 2)
    assert len(query.query_string.split()) == MAX_QUERY_TERMS


def test_a_list_of_phrases_keeps_the_phrases_that_fit():
    query = bounded_query(And([Phrase("gpu costs")] * 300))
    assert isinstance(query, And) and len(query.subqueries) == MAX_QUERY_TERMS // 2
    assert all(isinstance(subquery, Phrase) for subquery in query.subqueries)


def test_nested_queries_keep_their_structure_and_drop_what_is_past_the_limit():
    long = " ".join(["x"] * MAX_QUERY_TERMS)
    query = bounded_query(Or([Boost(PlainText(long), 2), Not(Phrase("never kept")), Fuzzy("gone")]))
    assert isinstance(query, Or) and len(query.subqueries) == 1
    assert isinstance(query.subqueries[0], Boost) and query.subqueries[0].boost == 2


leaf = st.builds(
    lambda cls, n: cls(" ".join(["w"] * n)), st.sampled_from([PlainText, Phrase, Fuzzy]), st.integers(1, 80)
)
tree = st.recursive(
    leaf,
    lambda children: st.one_of(
        st.builds(And, st.lists(children, min_size=1, max_size=6)),
        st.builds(Or, st.lists(children, min_size=1, max_size=6)),
        st.builds(Not, children),
        st.builds(Boost, children, st.floats(0.5, 4)),
    ),
    max_leaves=12,
)


@given(tree)
def test_any_query_keeps_exactly_its_first_words_up_to_the_limit(query):
    bounded = bounded_query(query)
    assert words(bounded) == words(query)[:MAX_QUERY_TERMS]
