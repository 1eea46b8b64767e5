"""Query helpers that keep public pages at a fixed, small number of SQL queries."""

from django.db.models import Q

from wagtail.models import Page, PageViewRestriction

from .caching import memo


def restricted_paths() -> frozenset[str]:
    """Tree paths of every page with a view restriction (remembered per cache generation: saving
    or deleting a restriction starts a new one). Usually empty."""
    return memo.memoized(
        "restricted-paths", lambda: frozenset(PageViewRestriction.objects.values_list("page__path", flat=True))
    )


def next_expiry():
    """The earliest expiry time still ahead among live pages (a datetime), or None; remembered
    for the page-cache generation (``home.caching.memo``).

    Reaching an expiry time changes what readers may see (an expired page leaves listings,
    feeds and search at once) but starts no generation until ``publish_scheduled`` unpublishes
    the page, so what is cached for the generation is valid only until then.
    """
    from django.db.models import Min
    from django.utils import timezone

    return memo.memoized(
        "next-expiry",
        lambda: Page.objects.live().filter(expire_at__gt=timezone.now()).aggregate(Min("expire_at"))["expire_at__min"],
    )


def exclude_private(queryset):
    """``queryset`` (any page queryset, search querysets included) without pages under a view
    restriction (password, login, groups), as Wagtail's ``PageQuerySet.public()``: a page is
    private when it or an ancestor has a restriction, that is when its tree path starts with a
    restricted page's path. The one privacy filter of the site.

    No query once the restricted paths are remembered for the generation (``restricted_paths``):
    no restriction (the usual case) adds no condition at all, otherwise each restricted subtree
    is excluded by its path prefix. ``public()`` runs a query on every call, and a listing page
    calls it several times. This form also suits searched querysets: Wagtail's search backends
    turn a queryset's filters into their own and accept ``path__startswith`` (``path`` is a
    FilterField of every page), but not a subquery.
    """
    paths = restricted_paths()
    private = Q()
    for path in paths:
        private |= Q(path__startswith=path)
    return queryset.exclude(private) if paths else queryset


def in_request_site(queryset, request):
    """``queryset`` (any page queryset, search querysets included) narrowed to the Wagtail site
    serving ``request``: its root page and the pages under it (``PageQuerySet.in_site``, a tree
    path prefix, which the search backends filter on). No pages when no site serves the request
    (no default site and an unknown host). No query once Wagtail has found the request's site."""
    from wagtail.models import Site

    site = Site.find_for_request(request)
    return queryset.in_site(site) if site is not None else queryset.none()
