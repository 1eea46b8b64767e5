"""Query helpers that keep public pages at a fixed, small number of SQL queries."""

from django.contrib.contenttypes.models import ContentType
from django.db.models import Exists, OuterRef, Q
from django.db.models.functions import Substr

from wagtail.models import Page, PageViewRestriction

# Ancestors deeper than this are not checked by exclude_private (the page itself always is). The
# site's tree is four levels deep: root, home, blog index, article or topic.
MAX_CHECKED_DEPTH = 8


def exclude_private(queryset):
    """``queryset`` (any page queryset) without pages under a view restriction (password, login,
    groups), as Wagtail's ``PageQuerySet.public()``, but as a subquery of the same SQL statement:
    ``public()`` runs one extra query on every call, and a listing page calls it several times.

    A page is private when it or an ancestor has a restriction. Ancestors' tree paths are the
    prefixes of the page's own path, so the subquery looks up those exact paths (index lookups
    per row) rather than comparing every page's path with every other: PostgreSQL planned that
    form as a nested loop over the whole page table (12 s per query at 10,000 articles).
    """
    own_or_ancestor = Q(page__path=OuterRef("path"))
    for depth in range(1, MAX_CHECKED_DEPTH + 1):
        own_or_ancestor |= Q(page__path=Substr(OuterRef("path"), 1, Page.steplen * depth))
    return queryset.exclude(Exists(PageViewRestriction.objects.filter(own_or_ancestor)))


def route_in_two_queries(root, request, path_components: list[str]):
    """Route ``path_components`` (URL path segments below ``root``, the site's root page) in two
    queries at any depth: one for the pages on the path, one for the last page's specific row.

    Wagtail's ``Page.route`` costs two queries per path segment. Returns Wagtail's ``RouteResult``,
    or None to let the caller fall back to Wagtail's walk: when a page on the path is missing, or
    an ancestor routes its own sub-URLs (a ``RoutablePageMixin`` page, which must see the request).
    May raise Http404 like ``Page.route`` (the last page is not live).
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
        .filter(url_path__in=prefixes)
        .only("id", "url_path", "depth", "content_type_id")
        .order_by("depth")
    )
    if [page.url_path for page in chain] != prefixes:
        return None
    classes = [ContentType.objects.get_for_id(page.content_type_id).model_class() for page in chain]
    if any(cls is None or cls.route is not Page.route for cls in classes[:-1]):
        return None
    page = classes[-1].objects.get(pk=chain[-1].pk)
    return page.route(request, [])
