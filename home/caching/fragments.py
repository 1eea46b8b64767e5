"""Versions of the things a cached template fragment shows, so that its key changes with them.

Rendered fragments (an article's card, its body, the site chrome) are cached with Wagtail's
preview-aware ``{% wagtailcache %}`` tag on Django's cache, keyed by what they show
(``blog/fragments.py``). Most of that is at hand when the fragment is rendered (the page's live
revision, its prefetched image, topics and authors). What a StreamField body *refers to* is not:
the pages its rich-text links point at and the images its blocks show are loaded while the body
renders, which is what the cache saves. For those, this module keeps one version token per object
in Django's cache (``fragments:version:<app.model>:<pk>``), replaced whenever the object is saved
or deleted, and read for all of a fragment's references in one round trip (``versions``).

Snippets shown in fragments (blog's authors) get tokens too, once their app registers them with
``watch`` (home imports nothing from blog); a snippet that shows an image (an author's photo) has
its token replaced when that image changes as well, so a fragment keyed by the snippet's token
shows a new focal point. The site-wide ``fragments:version:sites`` token (``SITES_KEY``) is
replaced whenever a ``Site`` or any site setting is saved or deleted: fragments that print a site
name, a brand or a URL built from a site's root include it.

A missing token (never set, or evicted) is created on read, so a fragment keyed on an evicted
token is never served again. A page move or slug change alters the URL of every page below it,
so it replaces the site-wide ``fragments:version:urls`` token that every link-bearing fragment
includes, instead of one token per descendant.

Tokens are replaced at once and again after the transaction commits (as the page cache's
generation, ``home.caching.invalidation``): a reader rendering between the two would otherwise
cache the pre-commit state under the new token.

Independent of ``PAGE_CACHE_SECONDS``: with the full-page cache off, fragments stay cached.
"""

import hashlib
import uuid
from collections.abc import Iterable
from pathlib import Path

from django.conf import settings
from django.core.cache import cache, caches
from django.db import transaction
from django.db.models import Model, Q
from django.db.models.signals import post_delete, post_save, pre_delete

from wagtail.contrib.settings.models import BaseSiteSetting
from wagtail.images.models import AbstractImage
from wagtail.models import Page, Site
from wagtail.signals import page_published, page_slug_changed, page_unpublished, post_page_move

VERSION_PREFIX = "fragments:version:"
URLS_KEY = VERSION_PREFIX + "urls"
SITES_KEY = VERSION_PREFIX + "sites"
# Fragments are keyed by content, so a new version is a new key; this bounds how long an unused
# one stays in a cache without an eviction policy of its own (Redis without maxmemory).
FRAGMENT_SECONDS = 7 * 24 * 3600


def fragment_cache():
    """The cache ``{% wagtailcache %}`` uses (Django's ``{% cache %}`` rule): the
    "template_fragments" alias if configured, else "default"."""
    return caches["template_fragments" if "template_fragments" in caches else "default"]


def files_digest(names: Iterable[str], seed: str = "", length: int = 16) -> str:
    """A hex digest (``length`` characters) of ``seed`` and the contents of ``names``: files or
    folders (every file below, in name order) relative to ``settings.BASE_DIR``. Fragment keys
    include the digest of the templates and modules that render them, so a deployment that
    changes one never serves a fragment the old code rendered. Read once, at import."""
    digest = hashlib.sha256(seed.encode())
    for name in names:
        path = Path(settings.BASE_DIR) / name
        for file in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if file.is_file():
                digest.update(file.read_bytes())
    return digest.hexdigest()[:length]


def object_key(model: type[Model], pk) -> str:
    """The cache key of the version token of one object (``model`` instance with ``pk``); pages
    of every type share Wagtail's ``Page`` label, as references to them name ``Page``."""
    if issubclass(model, Page):
        model = Page
    return f"{VERSION_PREFIX}{model._meta.label_lower}:{pk}"


def versions(keys: Iterable[str]) -> list[str]:
    """The version tokens under ``keys`` (from ``object_key``, or ``URLS_KEY``), in that order, in
    one cache round trip (plus one to store the tokens that were missing)."""
    keys = list(keys)
    found = cache.get_many(keys)
    missing = {key: uuid.uuid4().hex for key in keys if key not in found}
    if missing:
        cache.set_many(missing, FRAGMENT_SECONDS)
        found.update(missing)
    return [found[key] for key in keys]


def _replace(keys: list[str]) -> None:
    cache.delete_many(keys)  # the next read makes new tokens

    def after_commit():
        cache.delete_many(keys)

    transaction.on_commit(after_commit)


# Snippet models with version tokens (``watch``): {model: the names of its image foreign keys}.
_watched: dict[type[Model], tuple[str, ...]] = {}


def watch(model: type[Model], image_fields: tuple[str, ...] = ()) -> None:
    """Keep a version token for each instance of ``model`` (a snippet that cached fragments show),
    replaced when it is saved or deleted, and when an image it shows through one of
    ``image_fields`` (foreign keys to the image model) is saved or deleted. Call from
    ``AppConfig.ready``."""
    _watched[model] = tuple(image_fields)


def _on_object_change(sender, instance, **kwargs):
    if isinstance(instance, (Page, AbstractImage, *_watched)):
        keys = [object_key(type(instance), instance.pk)]
        if isinstance(instance, AbstractImage) and instance.pk is not None:
            # The snippets showing this image: one query per watched model, when an editor saves.
            for model, fields in _watched.items():
                if fields:
                    showing = Q()
                    for field in fields:
                        showing |= Q(**{field: instance.pk})
                    showing_pks = model.objects.filter(showing).values_list("pk", flat=True)
                    keys += [object_key(model, pk) for pk in showing_pks]
        _replace(keys)
    elif isinstance(instance, (Site, BaseSiteSetting)):
        _replace([SITES_KEY])


def _on_urls_change(sender, instance, **kwargs):
    _replace([URLS_KEY, object_key(type(instance), instance.pk)])


def connect() -> None:
    """Replace the version token of a page, image or watched snippet when it is saved, deleted,
    published or unpublished, the sites token when a site or a site setting is saved or deleted,
    and the site-wide URL token when a page moves or changes its slug (called from
    HomeConfig.ready)."""
    post_save.connect(_on_object_change, dispatch_uid="fragments-save")
    post_delete.connect(_on_object_change, dispatch_uid="fragments-delete")
    # Before an image's rows go: deleting it clears the snippets' foreign keys to it first.
    pre_delete.connect(_on_object_change, dispatch_uid="fragments-pre-delete")
    page_published.connect(_on_object_change, dispatch_uid="fragments-published")
    page_unpublished.connect(_on_object_change, dispatch_uid="fragments-unpublished")
    post_page_move.connect(_on_urls_change, dispatch_uid="fragments-moved")
    page_slug_changed.connect(_on_urls_change, dispatch_uid="fragments-slug-changed")
