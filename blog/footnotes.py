"""Numbered footnotes: ``[^label]`` references in an article's paragraphs and the notes of its
footnotes block (``blog.blocks.FootnotesBlock``), as Markdown writes them.

Our own, not Torchbox's wagtail-footnotes: its 0.15.0 declares Wagtail 6 and 7 only, and it keeps
notes as page inline objects with a Draftail plugin, outside the body StreamField, so they would
miss revisions' block comparison, the Markdown export and import, and the feeds. Here a note is
referenced by typing ``[^label]`` in a paragraph (the same syntax as Markdown), and numbered by
its place in the footnotes block, which lists the notes in the order they are first referenced.
"""

import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from bs4 import BeautifulSoup

# A note's label: letters, digits, hyphens and underscores (it is part of the notes' ids).
FOOTNOTE_LABEL = re.compile(r"[A-Za-z0-9_-]{1,40}")
FOOTNOTE_REF = re.compile(r"\[\^([A-Za-z0-9_-]{1,40})\]")
FOOTNOTES_HEADING_ID = "footnotes-heading"
# The Markdown line that marks where the footnotes block stands (Markdown itself moves footnote
# definitions to the end): written by blog.markdown_export, read by blog.markdown_import.
FOOTNOTES_PLACE = "<!-- footnotes -->"


def footnote_anchor(label: str) -> str:
    """The id of the note labelled ``label`` in the notes list."""
    return f"fn-{label}"


def reference_anchor(label: str) -> str:
    """The id of the first reference to ``label`` in the text (the note's back link goes there)."""
    return f"fnref-{label}"


def _text_nodes(soup):
    for node in soup.find_all(string=True):
        if "[^" in node and not node.find_parent(["code", "pre", "math", "a"]):
            yield node


def references_in_html(html: str) -> list[str]:
    """The labels referenced as ``[^label]`` in rich text ``html`` (outside code and links), in order."""
    if "[^" not in (html or ""):
        return []
    soup = BeautifulSoup(html, "html.parser")
    return [match for node in _text_nodes(soup) for match in FOOTNOTE_REF.findall(str(node))]


def body_notes(body) -> tuple[list, list[str]]:
    """``(notes, references)`` of an article body (StreamValue or a list of its children): the
    notes of its first footnotes block (``[{"label", "text"}, ...]``) and every label referenced
    by its paragraphs and callouts, in body order."""
    notes, references = [], []
    for child in body:
        if child.block_type == "footnotes" and not notes:
            notes = list(child.value["notes"])
        elif child.block_type == "paragraph":
            references += references_in_html(child.value.source)
        elif child.block_type == "callout":
            references += references_in_html(child.value["text"].source)
    return notes, references


def footnote_numbers(body) -> dict[str, int]:
    """``{label: number}`` for the notes of ``body``'s footnotes block, numbered from 1 in order."""
    notes, _references = body_notes(body)
    return {note["label"]: number for number, note in enumerate(notes, start=1)}


def order_problem(notes, references) -> str | None:
    """Why ``notes`` (labels in the footnotes block's order) do not fit ``references`` (labels
    in body order), or None: each reference needs a note, each note a reference, and the notes
    come in the order they are first referenced (as Markdown numbers them, so an export and
    import keep the numbers)."""
    labels = [note["label"] for note in notes]
    missing = [label for label in dict.fromkeys(references) if label not in labels]
    if missing:
        return f"The text refers to [^{missing[0]}] but no note has that label; add the note or fix the reference."
    unused = [label for label in labels if label not in references]
    if unused:
        return f"No paragraph refers to note “{unused[0]}”; type [^{unused[0]}] where it belongs, or remove the note."
    first_use = list(dict.fromkeys(references))
    if labels != first_use:
        return "Put the notes in the order the text first refers to them: " + ", ".join(first_use) + "."
    return None


def with_footnote_references(html: str, numbers: dict[str, int], seen: set) -> SafeString:
    """Rendered rich text ``html`` with each ``[^label]`` of a known label as a superscript link
    to its note, numbered by ``numbers``; the first reference to a label in the page (not yet in
    ``seen``, which is updated) gets the id the note's back link points at. Unknown labels stay
    as typed."""
    if "[^" not in html or not numbers:
        return mark_safe(html)  # noqa: S308 - the caller's HTML, already safe rich text

    def reference(match) -> str:
        label = match.group(1)
        if label not in numbers:
            return escape(match.group(0))
        id_attribute = "" if label in seen else f' id="{reference_anchor(label)}"'
        seen.add(label)
        return (
            f'<sup class="footnote-ref"><a href="#{footnote_anchor(label)}"{id_attribute} '
            f'aria-label="Note {numbers[label]}">{numbers[label]}</a></sup>'
        )

    soup = BeautifulSoup(html, "html.parser")
    for node in list(_text_nodes(soup)):
        text = str(node)
        parts, end = [], 0
        for match in FOOTNOTE_REF.finditer(text):
            parts.append(escape(text[end : match.start()]))
            parts.append(reference(match))
            end = match.end()
        parts.append(escape(text[end:]))
        node.replace_with(BeautifulSoup("".join(parts), "html.parser"))
    return mark_safe(str(soup))  # noqa: S308 - text re-escaped above
