"""Slugs that make a URL: at least one letter or digit, in the alphabet the site allows.

Wagtail's setting ``WAGTAIL_ALLOW_UNICODE_SLUGS`` (default on) says whether slugs may use
letters beyond ASCII. With it off, a title without ASCII letters or digits ("日本語", "!!!")
slugifies to nothing, and Wagtail then saves the page with an empty slug (its URL is its
parent's with an extra "/"); a typed slug of punctuation only ("---", "_") is a valid Django
slug but names nothing. ``slug_problem`` says what is wrong with such a slug, for the page and
author forms to show as a form error (``home.page_forms``, ``blog.forms.AuthorForm``).
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug, validate_unicode_slug
from django.utils.text import slugify


def unicode_slugs_allowed() -> bool:
    """Wagtail's ``WAGTAIL_ALLOW_UNICODE_SLUGS`` (default True)."""
    return getattr(settings, "WAGTAIL_ALLOW_UNICODE_SLUGS", True)


def slug_for(title: str) -> str:
    """The slug Wagtail makes from ``title`` when the editor leaves the slug blank."""
    return slugify(title or "", allow_unicode=unicode_slugs_allowed())


def slug_problem(slug: str) -> str | None:
    """What to fix in ``slug`` (a str), or None when it makes a URL: it has a letter or digit, and
    only the characters ``WAGTAIL_ALLOW_UNICODE_SLUGS`` allows (Django's slug validators)."""
    if not slug or not any(character.isalnum() for character in slug):
        return "Enter a slug with at least one letter or digit, e.g. 'gpu-costs': it is the last part of the URL."
    validator = validate_unicode_slug if unicode_slugs_allowed() else validate_slug
    try:
        validator(slug)
    except ValidationError:  # Django's message names no example; ours does
        return "Use only letters, digits, hyphens and underscores in the slug, e.g. 'gpu-costs'."
    return None
