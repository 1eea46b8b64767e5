"""Invalidate cached pages when something readers see changes.

Django's page cache (``home.caching.page_cache``) is invalidated as a whole by a new generation token.
A CDN in front (Wagtail's ``frontend_cache`` backends, configured by ``WAGTAILFRONTENDCACHE``) is
purged by URL: for a page event, the page itself and every listing that shows it (home page,
blog index and topic pages, each with its ``?page=N`` pages); for anything shown site-wide (an
author, an image, site settings, a view restriction, a page move or delete) every live page.
Related-post blocks on other articles are left to the CDN's ``s-maxage`` (CDN_CACHE_SECONDS).
"""

import logging

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_delete, post_save

from wagtail.contrib.frontend_cache.utils import PurgeBatch
from wagtail.contrib.settings.models import BaseSiteSetting
from wagtail.images.models import AbstractImage
from wagtail.models import Page, PageViewRestriction, Site
from wagtail.signals import page_published, page_slug_changed, page_unpublished, post_page_move

from .page_cache import bump_generation

logger = logging.getLogger(__name__)

# Saving or deleting one of these changes what some page shows; apps add theirs with ``watch``.
_watched_models: list[type] = [Page, BaseSiteSetting, AbstractImage, Site, PageViewRestriction]
# Page types that list other pages; apps add theirs with ``register_listings``.
_listing_models: list[type] = []


def watch(*models: type) -> None:
    """Invalidate every cached page when an instance of one of ``models`` is saved or deleted
    (a snippet shown on pages, such as blog's authors). Call from ``AppConfig.ready``."""
    _watched_models.extend(model for model in models if model not in _watched_models)


def register_listings(*page_models: type) -> None:
    """Purge the live pages of ``page_models`` from the CDN whenever any page is published or
    unpublished: they list other pages. Each page's URLs come from Wagtail's
    ``Page.get_cached_paths`` (a listing adds its ``?page=N`` pages). Call from ``AppConfig.ready``."""
    _listing_models.extend(model for model in page_models if model not in _listing_models)


def _watched(instance) -> bool:
    return isinstance(instance, tuple(_watched_models))


def invalidate(page=None, cdn=None):
    """Start a new page-cache generation now and again after the transaction commits (a reader
    rendering between the two would otherwise cache the pre-commit state), then purge the CDN.

    ``cdn``: None (no CDN purge; page saves are followed by a publish/unpublish/move signal),
    ``"page"`` (``page`` and the listings) or ``"site"`` (every live page).
    """
    bump_generation()

    def after_commit():
        bump_generation()
        if cdn and settings.WAGTAILFRONTENDCACHE:
            purge_frontend_cache(page=page, site_wide=cdn == "site")

    transaction.on_commit(after_commit)


def listing_urls(batch):
    """Add every live page of the registered listing page types (``register_listings``), with
    the paths each declares in ``get_cached_paths``, to ``batch``."""
    for model in _listing_models:
        batch.add_pages(model.objects.live())


def purge_frontend_cache(page=None, site_wide=False):
    """Purge the CDN: ``page`` and every listing, or every live page when ``site_wide``."""
    batch = PurgeBatch()
    if site_wide:
        batch.add_pages(Page.objects.live().specific())
    elif page is not None:
        batch.add_page(page)
    listing_urls(batch)
    try:
        batch.purge()
    except Exception:  # a CDN outage must not fail the editor's publish; s-maxage bounds staleness
        logger.exception("Frontend cache purge failed")


def _on_save_or_delete(sender, instance, **kwargs):
    if _watched(instance):
        invalidate(cdn=None if isinstance(instance, Page) else "site")


def _on_publish_change(sender, instance, **kwargs):
    invalidate(page=instance, cdn="page")


def _on_move(sender, instance, **kwargs):
    invalidate(cdn="site")  # the old URLs and everything linking to them


def connect():
    """Connect the receivers (called from HomeConfig.ready); the home page is a listing."""
    from home.models import HomePage

    register_listings(HomePage)
    post_save.connect(_on_save_or_delete, dispatch_uid="page-cache-save")
    post_delete.connect(_on_save_or_delete, dispatch_uid="page-cache-delete")
    page_published.connect(_on_publish_change, dispatch_uid="page-cache-published")
    # Wagtail also sends page_unpublished when a live page is deleted.
    page_unpublished.connect(_on_publish_change, dispatch_uid="page-cache-unpublished")
    post_page_move.connect(_on_move, dispatch_uid="page-cache-moved")
    page_slug_changed.connect(_on_move, dispatch_uid="page-cache-slug-changed")
