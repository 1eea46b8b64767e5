"""Wagtail: a malformed StreamField post is a 400, not a 500 (docs/upstream.md, "Wagtail:
malformed StreamField form data").

The StreamField form widget (``wagtail.blocks.BlockWidget``) reads the post with
``StreamBlock.value_from_datadict`` and ``ListBlock.value_from_datadict``, which index the data
directly: a hand-made page edit or preview POST without ``body-count``, with a count that is not
a whole number (``"abc"``, ``"1e3"``) or larger than the blocks sent, or without a block's
``-type``, ``-deleted`` or ``-order`` field raises KeyError or ValueError, and the editor answers
500. A browser using Wagtail's own editor always sends them, so such a post is a bad request:
``install()`` wraps the widget's ``value_from_datadict`` to raise Django's ``BadRequest`` (a 400
response) for those errors instead. The page and its revisions are left as they were.
"""

from django.core.exceptions import BadRequest

from wagtail.blocks import BlockWidget

# Wagtail's own method, kept before ``install`` wraps it (tests/test_home_upstream.py checks that
# it still fails on a post without the count).
WAGTAIL_VALUE_FROM_DATADICT = BlockWidget.value_from_datadict

# What Wagtail's block readers raise on missing or non-numeric management fields
# (MultiValueDictKeyError is a KeyError).
MALFORMED_POST_ERRORS = (KeyError, ValueError, TypeError, OverflowError)


def value_from_datadict(widget: BlockWidget, data, files, name: str):
    """Wagtail's ``BlockWidget.value_from_datadict``; raises ``BadRequest`` (400) when the post
    lacks a StreamField management field or has one that is not a whole number."""
    try:
        return WAGTAIL_VALUE_FROM_DATADICT(widget, data, files, name)
    except MALFORMED_POST_ERRORS as error:
        raise BadRequest(f"Malformed form data for the {name!r} field.") from error


def install():
    """Wrap ``BlockWidget.value_from_datadict`` (called from ``home.upstream.install``)."""
    BlockWidget.value_from_datadict = value_from_datadict
