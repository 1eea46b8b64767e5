"""The search highlighter: escapes everything, marks the matched words, cuts a tidy excerpt."""

from hypothesis import given, settings
from hypothesis import strategies as st

from search.highlight import MAX_TERMS, excerpt, highlight, query_terms


def test_query_terms_are_lowercased_unique_words_without_short_ones():
    assert query_terms("GPU gpu a Cost-per-token (cost)") == ["gpu", "cost", "per", "token"]
    assert len(query_terms(" ".join(f"word{n}" for n in range(50)))) == MAX_TERMS
    assert query_terms("") == []


def test_highlight_marks_whole_words_starting_with_a_term_case_insensitively():
    assert highlight("Checkpointing GPUs: a checkpoint", ["checkpoint"]) == (
        "<mark>Checkpointing</mark> GPUs: a <mark>checkpoint</mark>"
    )
    # Inside a word is not a match.
    assert highlight("rebalancing", ["balancing"]) == "rebalancing"


def test_highlight_escapes_the_text_and_the_matches():
    html = highlight('<script>alert("x")</script> & <b>gpu</b>', ["gpu", "script"])
    assert "<script>" not in html and "<b>" not in html
    assert "&lt;<mark>script</mark>&gt;" in html
    assert "&amp; &lt;b&gt;<mark>gpu</mark>&lt;/b&gt;" in html


def test_highlight_treats_terms_as_text_not_patterns():
    assert highlight("a.b a+b", ["a.b"]) == "<mark>a.b</mark> a+b"
    assert highlight("nothing", []) == "nothing"


def test_excerpt_is_a_window_around_the_first_match_cut_at_spaces():
    text = " ".join(["lorem"] * 100) + " the tapir sleeps " + " ".join(["ipsum"] * 100)
    cut = excerpt(text, ["tapir"], length=120)
    assert cut.startswith("… lorem") and cut.endswith("ipsum …")
    assert "the <mark>tapir</mark> sleeps" in cut
    assert len(cut) < 120 + 30


def test_excerpt_at_the_start_has_no_leading_ellipsis_and_no_match_gives_nothing():
    assert excerpt("Tapir at the start.", ["tapir"]) == "<mark>Tapir</mark> at the start."
    assert excerpt("No match here.", ["tapir"]) == ""
    assert excerpt("Anything", []) == ""


def test_excerpt_escapes_html_in_the_source_text():
    assert excerpt("x <img src=x onerror=alert(1)> tapir", ["tapir"]) == (
        "x &lt;img src=x onerror=alert(1)&gt; <mark>tapir</mark>"
    )


def test_an_excerpt_of_text_normalised_already_is_the_same():
    text = " ".join(("Tapirs  browse\tat night. " * 40 + "A tapir\n\nsleeps by day. " + "Filler words. " * 40).split())
    for length in (60, 120, 220):
        assert excerpt(text, ["tapir", "day"], length=length, normalised=True) == excerpt(
            text, ["tapir", "day"], length=length
        )


def _whole_text_excerpt(text, terms, length, after):
    """The excerpt as cut before only the start of the text was made single-spaced: the whole
    text single-spaced, a leading ``after`` removed, then cut."""
    whole, skip = " ".join(text.split()), " ".join(after.split())
    if skip and whole.startswith(skip):
        whole = whole[len(skip) :].lstrip()
    return excerpt(whole, terms, length=length, normalised=True)


# Words that match the terms below, almost match them ("gp", "xgpu") or are other text, and
# whitespace runs of every kind: matches anywhere, cut at any point of a start.
_WORDS = st.sampled_from(["gpu", "GPUs", "gp", "xgpu", "tapir", "tapirs", "ta", "cost", "a", "<b>", "&", "é", "42"])
_SPACES = st.sampled_from([" ", "  ", "\n", "\n\n", "\t", " \u00a0 ", "\r\n  "])


@settings(max_examples=300, deadline=None, database=None)
@given(
    pieces=st.lists(st.tuples(_WORDS, _SPACES), max_size=120),
    lead=st.sampled_from(["", " ", "\n  "]),
    summary_words=st.integers(min_value=0, max_value=8),
    summary_spacing=_SPACES,
    length=st.sampled_from([8, 20, 45, 220]),
    terms=st.sampled_from([["gpu"], ["gpus", "gpu"], ["tapir", "cost"], ["absent"]]),
)
def test_an_excerpt_made_from_the_start_of_a_text_is_the_whole_texts(
    pieces, lead, summary_words, summary_spacing, length, terms
):
    text = lead + "".join(word + space for word, space in pieces)
    # The index holds the summary first (differently spaced, at times not at all).
    after = summary_spacing.join(word for word, _ in pieces[:summary_words])
    assert excerpt(text, terms, length=length, after=after) == _whole_text_excerpt(text, terms, length, after)
    assert excerpt(text, terms, length=length) == _whole_text_excerpt(text, terms, length, "")


def test_an_excerpt_deep_in_a_long_text_is_the_whole_texts():
    filler = "lorem   ipsum\n" * 2000
    text = "Summary here.\n\n" + filler + "the  tapir\tsleeps " + filler
    for length in (60, 220):
        cut = excerpt(text, ["tapir"], length=length, after="Summary  here.")
        assert "the <mark>tapir</mark> sleeps" in cut
        assert cut == _whole_text_excerpt(text, ["tapir"], length, "Summary  here.")
    assert excerpt("Summary here. no match " * 50, ["tapir"], after="Summary here.") == ""
    # A match only in the summary left out is no excerpt.
    assert excerpt("Tapir facts. Other words " * 30, ["tapir"], after="Tapir facts.") == excerpt(
        " ".join(("Other words " + "Tapir facts. Other words " * 29).split()), ["tapir"], normalised=True
    )
