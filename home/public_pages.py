"""Query helpers that keep public pages at a fixed, small number of SQL queries."""

from django.contrib.contenttypes.models import ContentType
from django.db.models import Exists, OuterRef, Q
from django.db.models.functions import Substr
from django.http import Http404

from wagtail.contrib.routable_page.models import RoutablePageMixin
from wagtail.models import Page, PageViewRestriction

from .caching import site_chrome

# Ancestors deeper than this are not checked by exclude_private (the page itself always is). The
# site's tree is four levels deep: root, home, blog index, article or topic.
MAX_CHECKED_DEPTH = 8


def restricted_paths() -> frozenset[str]:
    """Tree paths of every page with a view restriction (remembered per cache generation: saving
    or deleting a restriction starts a new one). Usually empty."""
    return site_chrome.memoized(
        "restricted-paths", lambda: frozenset(PageViewRestriction.objects.values_list("page__path", flat=True))
    )


def exclude_private(queryset):
    """``queryset`` (any page queryset) without pages under a view restriction (password, login,
    groups), as Wagtail's ``PageQuerySet.public()``, but as a subquery of the same SQL statement:
    ``public()`` runs one extra query on every call, and a listing page calls it several times.

    A page is private when it or an ancestor has a restriction. Ancestors' tree paths are the
    prefixes of the page's own path, so the subquery looks up those exact paths (index lookups
    per row) rather than comparing every page's path with every other: PostgreSQL planned that
    form as a nested loop over the whole page table (12 s per query at 10,000 articles).

    While the site chrome is remembered (``home.caching.site_chrome``), the restricted paths are known
    without a query: no restriction (the usual case) adds no condition at all, and otherwise each
    restricted subtree is excluded by its path prefix.
    """
    if site_chrome.is_active():
        return exclude_private_by_path(queryset)
    own_or_ancestor = Q(page__path=OuterRef("path"))
    for depth in range(1, MAX_CHECKED_DEPTH + 1):
        own_or_ancestor |= Q(page__path=Substr(OuterRef("path"), 1, Page.steplen * depth))
    return queryset.exclude(Exists(PageViewRestriction.objects.filter(own_or_ancestor)))


def next_expiry():
    """The earliest expiry time still ahead among live pages (a datetime), or None; remembered
    for the page-cache generation (``home.caching.site_chrome``).

    Reaching an expiry time changes what readers may see (an expired page leaves listings,
    feeds and search at once) but starts no generation until ``publish_scheduled`` unpublishes
    the page, so what is cached for the generation is valid only until then.
    """
    from django.db.models import Min
    from django.utils import timezone

    return site_chrome.memoized(
        "next-expiry",
        lambda: Page.objects.live().filter(expire_at__gt=timezone.now()).aggregate(Min("expire_at"))["expire_at__min"],
    )


def exclude_private_by_path(queryset):
    """``queryset`` without pages under a view restriction, excluded by the restricted subtrees'
    path prefixes (``restricted_paths``: remembered with the site chrome, otherwise one query).

    The form for querysets that are searched: Wagtail's search backends turn a queryset's filters
    into their own and accept ``path__startswith`` (``path`` is a FilterField of every page), but
    not ``exclude_private``'s ``Exists`` subquery (an AttributeError inside ``.search()``).
    """
    paths = restricted_paths()
    private = Q()
    for path in paths:
        private |= Q(path__startswith=path)
    return queryset.exclude(private) if paths else queryset


def route_in_two_queries(root, request, path_components: list[str]):
    """Route ``path_components`` (URL path segments below ``root``, the site's root page) in two
    queries at any depth: one for the pages on the path, one for the routed page's specific row.

    Wagtail's ``Page.route`` costs two queries per path segment. Pages with sub-URLs of their own
    (``RoutablePageMixin``: the blog index's feeds and author pages) are routed as Wagtail does,
    their own URLs first, then their children, without a query for the URL resolver. Returns
    Wagtail's ``RouteResult``, or None to let the caller fall back to Wagtail's walk (a page on the
    path with a ``route`` method of another kind). Raises Http404 like ``Page.route`` (no such
    page, or the routed page is not live).
    """
    if not path_components:
        return None
    prefixes = []
    url_path = root.url_path
    for component in path_components:
        url_path += component + "/"
        prefixes.append(url_path)
    chain = list(
        Page.objects.descendant_of(root)
        # The slugs let the database use Wagtail's slug index (url_path has none).
        .filter(slug__in=set(path_components), url_path__in=prefixes)
        .only("id", "url_path", "depth", "live", "content_type_id")
        .order_by("depth")
    )
    if [page.url_path for page in chain] != prefixes[: len(chain)]:
        return None
    for index, page in enumerate(chain):
        cls = ContentType.objects.get_for_id(page.content_type_id).model_class()
        if cls is None:
            return None
        remaining = path_components[index + 1 :]
        if cls.route is RoutablePageMixin.route:
            if page.live and remaining and _resolves(cls, remaining):
                return _specific(cls, page.pk).route(request, remaining)
        elif cls.route is not Page.route:
            return None
        if index == len(chain) - 1:
            if remaining:  # the next page on the path does not exist
                raise Http404
            return _specific(cls, page.pk).route(request, [])
    raise Http404  # not even the first page on the path exists


def _resolves(cls, components: list[str]) -> bool:
    """Whether a RoutablePageMixin page type has a sub-URL for ``components``."""
    try:
        cls.get_resolver().resolve("/" + "/".join(components) + "/")
    except Http404:
        return False
    return True


def _specific(cls, pk):
    """The page of type ``cls``, with the relations its template always needs (``serve_select_related``)."""
    return cls.objects.select_related(*getattr(cls, "serve_select_related", ())).get(pk=pk)


def in_request_site(queryset, request):
    """``queryset`` (any page queryset, search querysets included) narrowed to the Wagtail site
    serving ``request``: its root page and the pages under it (``PageQuerySet.in_site``, a tree
    path prefix, which the search backends filter on). No pages when no site serves the request
    (no default site and an unknown host). No query once the site is remembered."""
    from wagtail.models import Site

    site = Site.find_for_request(request)
    return queryset.in_site(site) if site is not None else queryset.none()
