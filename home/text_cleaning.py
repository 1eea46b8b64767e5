"""Characters no page, feed or database can carry, removed from what editors type.

Text pasted from Word or PDF brings C0 control characters (``\\x0b`` vertical tab, ``\\x0c`` form
feed, ``\\x1f``...); JSON posts (Draftail, the table editor) can carry lone surrogates
(``"\\ud800"``), and any text the non-characters U+FFFE and U+FFFF. XML 1.0 allows none of them
(its ``Char`` production: tab, newline, carriage return, U+0020-U+D7FF, U+E000-U+FFFD and above),
so one of them in a title made every RSS/Atom feed a 500 (Django refuses to write them); a lone
surrogate cannot be encoded as UTF-8 at all, so saving or rendering it fails.

They are removed silently, in three places: when an editor's form is cleaned (``CleanTextFormMixin``
on the page, snippet and settings forms of ``home.page_forms``; the help texts say so), when an
import stores text (``form_text``: the form's rule, NUL refused included) and when a feed is
written (``blog.feeds``), for text that arrived another way (a fixture, the shell).

A NUL is the one character a form refuses instead: every Django form ``CharField`` runs
``ProhibitNullCharactersValidator`` before the form is cleaned ("Null characters are not
allowed."), and PostgreSQL cannot store one.
"""

import re
import unicodedata

from django.core.exceptions import ValidationError
from django.core.validators import ProhibitNullCharactersValidator

from wagtail.blocks import StreamValue

# Everything outside XML 1.0's Char production that a Python str can hold.
XML_INVALID_CHARACTERS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")

HELP_TEXT = "Control characters (as pasted from Word or PDF) are removed."


def remove_invalid_characters(text: str) -> str:
    """``text`` without the characters XML 1.0 and UTF-8 cannot carry (``XML_INVALID_CHARACTERS``);
    tab, newline and carriage return stay. Returns the same string when there is nothing to remove."""
    return XML_INVALID_CHARACTERS.sub("", text) if XML_INVALID_CHARACTERS.search(text) else text


# Letters and symbols drawn as nothing, though their categories (Lo, So) say otherwise: the Hangul
# fillers, which Unicode lists as Default_Ignorable_Code_Point (DerivedCoreProperties.txt), and the
# blank Braille pattern; all four fillers and U+2800 are the usual "invisible name" characters.
BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def has_visible_character(text: str) -> bool:
    """Whether ``text`` shows anything: a character outside Unicode's control, format (zero-width
    space, joiners, direction marks), surrogate, private-use, unassigned, separator (spaces) and
    combining-mark categories, and not one of ``BLANK_LETTERS`` (Hangul fillers, the blank Braille
    pattern). "\\u200b\\u200d", " \\u00a0" and "\\u3164" show nothing; "A", "7" and "é" do."""
    return any(
        unicodedata.category(character)[0] not in "CZM" and character not in BLANK_LETTERS for character in text
    )


def form_text(value: str) -> str:
    """``value`` as an editor's form keeps text typed into a field, for text that reaches pages
    without one (an import): a NUL is refused as the form's ``CharField`` refuses it (raises
    Django's ``ValidationError``, "Null characters are not allowed."), then the rest of
    ``XML_INVALID_CHARACTERS`` is removed as ``CleanTextFormMixin`` removes it. U+007F (delete)
    and other text stay, as in the editor."""
    ProhibitNullCharactersValidator()(value)
    return remove_invalid_characters(value)


def without_invalid_characters(value):
    """``value`` (a str, or lists, tuples and dicts of them) with every string cleaned by
    ``remove_invalid_characters``; other values are returned as they are."""
    if isinstance(value, str):
        return remove_invalid_characters(value)
    if isinstance(value, (list, tuple)):
        return type(value)(without_invalid_characters(item) for item in value)
    if isinstance(value, dict):
        return {key: without_invalid_characters(item) for key, item in value.items()}
    return value


class CleanTextFormMixin:
    """A Django form mixin whose ``clean()`` removes ``XML_INVALID_CHARACTERS`` from every text
    value of ``cleaned_data``, StreamField values included (by their stored JSON form, the block's
    ``get_prep_value``/``to_python``, rebuilt only when something was removed).

    A required field whose text was only such characters is then empty: it gets the field's
    "This field is required." error, as if typed empty (the field's own required check ran before
    they were removed, and a draft would otherwise store the empty value). A field Wagtail defers
    for a draft is not required then, and may be saved empty, as an empty one may.
    """

    def clean(self):
        cleaned_data = super().clean()
        for name, value in list(cleaned_data.items()):
            if isinstance(value, str):
                cleaned_data[name] = cleaned = remove_invalid_characters(value)
                field = self.fields.get(name)
                if value and not cleaned and field is not None and field.required:
                    self.add_error(name, ValidationError(field.error_messages["required"], code="required"))
            elif isinstance(value, StreamValue):
                stored = value.get_prep_value()
                cleaned = without_invalid_characters(stored)
                if cleaned != stored:
                    cleaned_data[name] = value.stream_block.to_python(cleaned)
        return cleaned_data
