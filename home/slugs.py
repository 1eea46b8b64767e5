"""Slugs that make a URL: at least one letter or digit, in the alphabet the site allows.

Wagtail's setting ``WAGTAIL_ALLOW_UNICODE_SLUGS`` (default on) says whether slugs may use
letters beyond ASCII. With it off, a title without ASCII letters or digits ("日本語", "!!!")
slugifies to nothing, and Wagtail then saves the page with an empty slug (its URL is its
parent's with an extra "/"); a typed slug of punctuation only ("---", "_") is a valid Django
slug but names nothing. ``slug_problem`` says what is wrong with such a slug, for the page and
author forms to show as a form error (``home.page_forms``, ``blog.forms.AuthorForm``).

Slugs a parent page keeps for itself: a routable page (Wagtail's ``RoutablePageMixin``: the blog
index's ``feed/rss/``, ``feed/atom/`` and ``authors/<slug>/``) serves addresses below its own
URL, and a site's root page has the project's URLconf beside it (``/admin/``, ``/search/``...).
A child whose slug is the first segment of such an address either cannot be reached or takes
over part of the parent's address space (and a redirect made when it is renamed would answer
there for good). ``reserved_slug_problem`` names the clash, for the page editor, the copy and
move views (``home.page_forms``, ``home.wagtail_hooks``) and the article imports
(``blog.markdown_import``). The reserved names are read from the parent's routes themselves,
so a route added later is covered without a list to keep.
"""

from collections.abc import Iterable, Iterator

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug, validate_unicode_slug
from django.urls import URLResolver, get_resolver
from django.urls.exceptions import Resolver404
from django.utils.regex_helper import normalize
from django.utils.text import slugify

from wagtail.contrib.routable_page.models import RoutablePageMixin


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


def route_addresses(patterns: Iterable) -> Iterator[str]:
    """The paths ``patterns`` (Django URL patterns) match, as text with each parameter shown as
    ``<name>`` (``"feed/rss/"``, ``"authors/<slug>/"``); an include without a prefix (Wagtail's
    page URLs at the root) gives its own patterns' paths."""
    for pattern in patterns:
        for text, names in normalize(pattern.pattern.regex.pattern):
            address = text % {name: f"<{name}>" for name in names}
            if isinstance(pattern, URLResolver) and not address:
                yield from route_addresses(pattern.url_patterns)
            else:
                yield address


def first_segments(addresses: Iterable[str]) -> dict[str, list[str]]:
    """``{segment: [addresses]}``: each address once under its first path segment, leaving out the
    empty one (the page's own URL) and those that are a parameter (``<year>/``)."""
    segments = {}
    for address in dict.fromkeys(addresses):  # once each: DEBUG's media route repeats MEDIA_URL
        segment = address.split("/", 1)[0]
        if segment and "<" not in segment:
            segments.setdefault(segment, []).append(address)
    return segments


def page_route_slugs(page_class) -> dict[str, list[str]]:
    """The slugs a page type keeps from its children: ``{segment: [addresses]}`` of its routes
    (Wagtail's ``RoutablePageMixin.get_subpage_urls``), ``{}`` for a page type without routes.
    The blog index's are ``feed`` (``feed/rss/``, ``feed/atom/``) and ``authors``."""
    if page_class is None or not issubclass(page_class, RoutablePageMixin):
        return {}
    return first_segments(route_addresses(page_class.get_subpage_urls()))


def site_url_slugs() -> dict[str, list[str]]:
    """The slugs a site's root page keeps from its children: ``{segment: [addresses]}`` of the
    project's URLconf, whose paths Django matches before Wagtail's pages (``admin``, ``search``...),
    and of ``STATIC_URL`` and ``MEDIA_URL`` where they are paths on this site: WhiteNoise or the
    front end answers those before Django, whether or not the URLconf names them (it names
    ``media`` only under DEBUG)."""
    addresses = list(route_addresses(get_resolver().url_patterns))
    for prefix in (settings.STATIC_URL, settings.MEDIA_URL):
        if prefix and prefix.startswith("/") and not prefix.startswith("//"):
            addresses.append(prefix.lstrip("/") + "<path>")
    return first_segments(addresses)


def reserved_addresses(parent) -> dict[str, list[str]]:
    """``{slug: [addresses]}``: the slugs ``parent`` (a page) keeps from its children, each with
    the addresses below its URL that begin with it: its page type's routes (``page_route_slugs``)
    and, for a site's root page, the project's URLs (``site_url_slugs``)."""
    reserved = dict(page_route_slugs(parent.specific_class))
    if parent.is_site_root():
        for slug, addresses in site_url_slugs().items():
            reserved[slug] = list(dict.fromkeys(reserved.get(slug, []) + addresses))
    return reserved


def reserved_slug_problem(slug: str, parent) -> str | None:
    """What is wrong with ``slug`` for a child of ``parent`` (a page), or None: it must not be the
    first segment of an address ``parent`` serves itself (``reserved_addresses``), nor an address
    one of its routes answers (a route ``<year>/`` answers ``2024/``)."""
    if not slug or parent is None:
        return None
    clashes = reserved_addresses(parent).get(slug, [])
    page_class = parent.specific_class
    if not clashes and page_class is not None and issubclass(page_class, RoutablePageMixin):
        try:
            page_class.get_resolver().resolve(f"/{slug}/")
        except Resolver404:
            pass
        else:
            clashes = [f"{slug}/"]
    if not clashes:
        return None
    parts = parent.get_url_parts()
    base = parts[2] if parts and parts[2] else "/"
    addresses = " and ".join(base + address for address in clashes[:2])
    return (
        f"The slug '{slug}' is taken: the site already serves {addresses}, and a page at "
        f"{base}{slug}/ would clash with {'it' if len(clashes) == 1 else 'them'}. Choose another slug."
    )
