"""Wagtail: hand-made admin posts that Wagtail answers with a 500 are a 400 or a form error,
responsive image tags that parse their filter specs again on every render, a site lookup
query on every request, and automatic redirects that loop or reveal drafts.

Ten defects, each in docs/upstream.md under its heading, each with a test in
tests/test_home_upstream.py that fails once Wagtail fixes it:

1. "Wagtail: malformed StreamField form data" (below).
2. "Wagtail: chooser widgets and a non-numeric id": a page, image or document chooser field
   posted as ``image=abc`` fails validation ("Select a valid choice"), but redisplaying the
   form asks the widget for the instance, and ``BaseChooser.get_instance`` runs
   ``objects.get(pk="abc")``, which raises ValueError: 500. Here such a value shows as empty.
3. "Wagtail: malformed workflow action data": the page and snippet editors pass the posted
   ``workflow-action-extra-data`` to ``json.loads`` and then as keyword arguments to the task:
   invalid JSON (a raw control character), or JSON that is not an object of strings, is a 500,
   after the page edit was already saved. Here it is a 400 before anything is saved.
4. "Wagtail: picture and srcset_image parse their filters on every render": see
   ``FiltersParsedOnce`` (not installed globally: our ``{% picture %}`` node uses it).
5. "Wagtail: malformed dismissibles updates": the admin's ``PATCH /admin/dismissibles/`` (a
   signed-in user's "seen it" flags) catches only ``JSONDecodeError``: a body nested past the
   recursion limit (RecursionError), or JSON that is not an object (``[1]``, ``"x"``), is a 500,
   and an object's values are stored whatever their shape. Here it is a 400 unless the body is a
   JSON object of strings to strings, numbers, booleans or null, as Wagtail's sidebar sends.
6. "Wagtail: a site lookup query on every request": see ``remembered_site_for_hostname``.
7. "Wagtail: automatic redirects for pages that were never live, and to a page's own address":
   see ``redirects_on_slug_change`` and ``install_redirect_receivers``.
8. "Wagtail: redirects followed to a page that is not live": see ``RedirectMiddleware``.
9. "Wagtail: bulk actions and an id that is not one": see ``checked_actionable_objects``.
10. "Wagtail: a NUL byte in the tag autocomplete": see ``nul_free_tag_autocomplete``.

1. Malformed StreamField form data.

The StreamField form widget (``wagtail.blocks.BlockWidget``) reads the post with
``StreamBlock.value_from_datadict`` and ``ListBlock.value_from_datadict``, which index the data
directly: a hand-made page edit or preview POST without ``body-count``, with a count that is not
a whole number (``"abc"``, ``"1e3"``) or larger than the blocks sent, or without a block's
``-type``, ``-deleted`` or ``-order`` field raises KeyError or ValueError, and the editor answers
500. A count that ``int()`` takes but the editor never sends (``-5``, ``+4``, ``٤``) or one
smaller than the blocks sent makes Wagtail drop blocks without a word: the draft saved loses
them. A browser using Wagtail's own editor always sends consistent management fields, so such
a post is a bad request: ``install()`` wraps the widget's ``value_from_datadict`` to raise
Django's ``BadRequest`` (a 400 response) instead. The page and its revisions are left as they were.
"""

import json
import re
from urllib.parse import urlparse

from django.core.exceptions import BadRequest, ObjectDoesNotExist, ValidationError
from django.db import models, router
from django.http import Http404, HttpResponseBadRequest, HttpResponsePermanentRedirect, HttpResponseRedirect

from wagtail.admin.views import tags
from wagtail.admin.views.bulk_action.base_bulk_action import BulkAction
from wagtail.admin.views.dismissibles import DismissiblesView
from wagtail.admin.views.generic.mixins import CreateEditViewOptionalFeaturesMixin
from wagtail.admin.views.pages.edit import EditView
from wagtail.admin.widgets.chooser import BaseChooser
from wagtail.blocks import BlockWidget
from wagtail.contrib.redirects import middleware as redirect_middleware
from wagtail.contrib.redirects import signal_handlers as redirect_handlers
from wagtail.contrib.redirects.models import Redirect
from wagtail.coreutils import get_dummy_request
from wagtail.models import Site, sites
from wagtail.signals import page_slug_changed, post_page_move

from home.caching import memo

# Wagtail's own method, kept before ``install`` wraps it (tests/test_home_upstream.py checks that
# it still fails on a post without the count).
WAGTAIL_VALUE_FROM_DATADICT = BlockWidget.value_from_datadict

# What Wagtail's block readers raise on missing or non-numeric management fields
# (MultiValueDictKeyError is a KeyError).
MALFORMED_POST_ERRORS = (KeyError, ValueError, TypeError, OverflowError)


# What Wagtail's editor sends as a block count: plain ASCII digits.
_COUNT = re.compile(r"[0-9]{1,6}", re.ASCII)


def check_block_counts(data, name: str) -> None:
    """Raise ``BadRequest`` unless every ``<prefix>-count`` field of the StreamField ``name``
    (its own and its nested lists' and streams') is plain digits and at least the number of
    blocks sent under that prefix (``<prefix>-<n>-deleted`` fields, which every block has)."""
    counts = [key for key in data if key.startswith(f"{name}-") and key.endswith("-count")]
    for key in counts:
        raw = data.get(key)
        if not isinstance(raw, str) or not _COUNT.fullmatch(raw):
            raise BadRequest(f"Malformed form data for the {name!r} field.")
        child = re.compile(re.escape(key[: -len("count")]) + r"([0-9]+)-deleted")
        if any((match := child.fullmatch(other)) and int(match[1]) >= int(raw) for other in data):
            raise BadRequest(f"Malformed form data for the {name!r} field.")


def value_from_datadict(widget: BlockWidget, data, files, name: str):
    """Wagtail's ``BlockWidget.value_from_datadict``; raises ``BadRequest`` (400) when the post
    lacks a StreamField management field, has one that is not a whole number, or has a count
    that would drop blocks it sent (``check_block_counts``)."""
    check_block_counts(data, name)
    try:
        return WAGTAIL_VALUE_FROM_DATADICT(widget, data, files, name)
    except MALFORMED_POST_ERRORS as error:
        raise BadRequest(f"Malformed form data for the {name!r} field.") from error


# 2. Wagtail's own chooser lookup (tests/test_home_upstream.py checks it still raises on "abc").
WAGTAIL_CHOOSER_GET_INSTANCE = BaseChooser.get_instance


def chooser_get_instance(widget: BaseChooser, value):
    """Wagtail's ``BaseChooser.get_instance``; None for an id that is not one (``"abc"``), as for
    an id that matches nothing, so the form redisplays with its "Select a valid choice" error."""
    try:
        return WAGTAIL_CHOOSER_GET_INSTANCE(widget, value)
    except (ValueError, TypeError, OverflowError, ValidationError):
        return None


# 3. Wagtail's own workflow actions of the page and snippet editors.
WAGTAIL_PAGE_WORKFLOW_ACTION = EditView.perform_workflow_action
WAGTAIL_SNIPPET_WORKFLOW_ACTION = CreateEditViewOptionalFeaturesMixin.workflow_action_action


def check_workflow_action_data(request) -> None:
    """Raise ``BadRequest`` (400) unless the post's ``workflow-action-extra-data`` (default
    ``{}``) is a JSON object whose values are strings, as Wagtail's editor sends
    (``{"comment": "..."}``)."""
    raw = request.POST.get("workflow-action-extra-data", "{}")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as error:  # not JSON, or nested past the recursion limit
        raise BadRequest("Malformed workflow action data.") from error
    if not isinstance(data, dict) or not all(
        isinstance(key, str) and isinstance(value, str) for key, value in data.items()
    ):
        raise BadRequest("Malformed workflow action data.")


def perform_page_workflow_action(view: EditView):
    """Wagtail's page-editor workflow action, after ``check_workflow_action_data``."""
    check_workflow_action_data(view.request)
    return WAGTAIL_PAGE_WORKFLOW_ACTION(view)


def snippet_workflow_action(view):
    """Wagtail's snippet-editor workflow action, after ``check_workflow_action_data``."""
    check_workflow_action_data(view.request)
    return WAGTAIL_SNIPPET_WORKFLOW_ACTION(view)


# 5. Wagtail's own dismissibles update (tests/test_home_upstream.py checks it still raises).
WAGTAIL_DISMISSIBLES_PATCH = DismissiblesView.patch


def dismissibles_patch(view: DismissiblesView, request, *args, **kwargs):
    """Wagtail's dismissibles update, or a 400 unless the body is a JSON object whose values are
    strings, numbers, booleans or null (Wagtail's sidebar sends ``{"<id>": true}`` or the
    dismissible's value)."""
    try:
        updates = json.loads(request.body)
    except (ValueError, RecursionError):  # not JSON (or not UTF-8), or nested past the limit
        return HttpResponseBadRequest()
    if not isinstance(updates, dict) or not all(
        isinstance(value, str | int | float | bool) or value is None for value in updates.values()
    ):
        return HttpResponseBadRequest()
    return WAGTAIL_DISMISSIBLES_PATCH(view, request, *args, **kwargs)


def install():
    """Install the workarounds above (called from ``home.upstream.install``)."""
    BlockWidget.value_from_datadict = value_from_datadict
    BaseChooser.get_instance = chooser_get_instance
    EditView.perform_workflow_action = perform_page_workflow_action
    CreateEditViewOptionalFeaturesMixin.workflow_action_action = snippet_workflow_action
    DismissiblesView.patch = dismissibles_patch
    sites.get_site_for_hostname = remembered_site_for_hostname
    BulkAction.get_actionable_objects = checked_actionable_objects
    install_redirect_receivers()


# Wagtail's own, kept before ``install`` replaces it.
WAGTAIL_GET_ACTIONABLE_OBJECTS = BulkAction.get_actionable_objects


def checked_actionable_objects(self):
    """Wagtail's ``BulkAction.get_actionable_objects``, with a 404 for an ``id`` the model's primary
    key cannot take (``abc``, a NUL, ``1.5``, an integer outside the column's range, which SQLite
    refused with ``OverflowError``), for a ``childOf`` that is not an integer, and for a
    ``childOf`` page that does not exist.

    Upstream (wagtail 8.0.1, ``wagtail/admin/views/bulk_action/base_bulk_action.py``): the ids of
    ``/admin/bulk/<app>/<model>/<action>/?id=...`` go straight into ``pk__in`` and ``childOf``
    into the page listing's ``get(id=...)``: a ``ValueError`` or ``DoesNotExist``, a 500 on the
    confirmation page of every bulk action (pages, snippets, images, documents, users). An id no
    object has is already Wagtail's 404. docs/upstream.md, "Wagtail: bulk actions and an id that
    is not one"; tests/test_home_upstream.py shows Wagtail still fails.
    """
    primary_key = self.model._meta.pk
    object_ids = self.request.GET.getlist("id")
    try:
        for object_id in object_ids:
            if object_id != "all":
                # The field's validators hold the database's integer range for the column.
                primary_key.run_validators(primary_key.to_python(object_id))
        if "all" in object_ids and self.request.GET.get("childOf") is not None:
            # A page's id, or a collection's for images and documents: a 64-bit integer either way.
            models.BigIntegerField().run_validators(int(self.request.GET["childOf"]))
        return WAGTAIL_GET_ACTIONABLE_OBJECTS(self)
    except (ValidationError, ValueError, ObjectDoesNotExist) as error:
        raise Http404("No such objects.") from error


def nul_free_tag_autocomplete(request, *args, **kwargs):
    """Wagtail's tag autocomplete view (``wagtail.admin.views.tags.autocomplete``), answering a
    ``term`` with a NUL byte as it answers no term (an empty list): no tag name holds a NUL
    (forms refuse it), and PostgreSQL text cannot hold one, so Wagtail's ``istartswith`` query was
    a ``DataError``, a 500 (docs/upstream.md, "Wagtail: a NUL byte in the tag autocomplete").
    Routed before Wagtail's admin URLs in config/urls.py, under Wagtail's paths."""
    if "\x00" in request.GET.get("term", ""):
        request.GET = request.GET.copy()
        request.GET["term"] = ""
    return tags.autocomplete(request, *args, **kwargs)


# Wagtail's own lookup, kept before ``install`` replaces it (tests/test_home_upstream.py checks
# that it still runs a query on every call).
WAGTAIL_GET_SITE_FOR_HOSTNAME = sites.get_site_for_hostname


def remembered_site_for_hostname(hostname: str, port: str):
    """Wagtail's ``get_site_for_hostname(hostname, port)`` (a ``Site``, its ``root_page`` loaded;
    raises ``Site.DoesNotExist``), remembered per cache generation (``home.caching.memo``, group
    "sites", keyed by host and port).

    Upstream: ``Site.find_for_request`` keeps the site on the request only, so every request runs
    Wagtail's site query (hostname and port matched with a ``CASE``, the root page joined), and
    routing then reads the root page's specific row (``root_page.localized.specific``): two
    queries, about 1.4 ms of ORM CPU, a quarter of a page whose fragments are all cached
    (``benchmarks/profile_page.py``, 3 December 2026). wagtail/wagtail#8937 (open since 2022)
    caches the lookup; until Wagtail does, the site's row and its root page's specific row are
    remembered for the generation, which any saved, published or deleted page or ``Site``
    replaces (``home.caching.invalidation``), and each call builds fresh instances from them
    (``Model.from_db``, no query): nothing is shared between requests. Hosts no site serves
    are not remembered (Wagtail answers them again each time). Outside a request (no
    generation) this is Wagtail's lookup alone.
    """
    key = (hostname, port)
    found = memo.recall(key, group="sites")
    if found is not memo.MISSING:
        site_values, root_model, root_values = found
        site = Site.from_db(router.db_for_read(Site), None, site_values)
        site.root_page = root_model.from_db(router.db_for_read(root_model), None, root_values)
        return site
    site = WAGTAIL_GET_SITE_FOR_HOSTNAME(hostname, port)
    if memo.current_generation() is not None:
        root = site.root_page.specific  # the query routing makes next; kept on this instance too
        site_values, root_values = memo.immutable_row(site), memo.immutable_row(root)
        if site_values is not None and root_values is not None:
            memo.remember(key, (site_values, type(root), root_values), group="sites")
    return site


class FiltersParsedOnce:
    """Mixin for a subclass of Wagtail's ``SrcsetImageNode`` (``{% srcset_image %}``,
    ``{% picture %}``): the node's ``Filter`` objects are made on its first render and reused.

    Wagtail's ``SrcsetImageNode.get_filters`` builds new ``Filter`` objects on every render, so
    each render parses every spec again (``Filter.operations``: one ``ImageOperation`` per
    operation, each checking its arguments with ``inspect.getcallargs``). A card with
    ``fill-{480x270,800x450,1200x675} format-{avif,webp,png}`` parses 9 specs, 18 operations; on
    a listing whose card fragments are not cached yet this was about 8% of the request's CPU
    (docs/performance.md). A node's specs are fixed when the template is compiled, and a
    ``Filter`` keeps no state between renders (its operations only read their arguments), so
    the parsed filters can be shared by every render of the node. Delete once Wagtail's
    ``get_filters`` stops building new filters per render (tests/test_home_upstream.py).
    """

    def get_filters(self, *args, **kwargs):
        key = (args, tuple(sorted(kwargs.items())))
        parsed = self.__dict__.setdefault("parsed_filters", {})
        if key not in parsed:
            parsed[key] = super().get_filters(*args, **kwargs)
        return parsed[key]


# 7. Wagtail's own receivers of ``page_slug_changed`` and ``post_page_move``, kept before
# ``install_redirect_receivers`` replaces them (tests/test_home_upstream.py checks that they still
# make a redirect for a page that was never live, and leave one from a page's own address).
WAGTAIL_REDIRECTS_ON_SLUG_CHANGE = redirect_handlers.autocreate_redirects_on_slug_change
WAGTAIL_REDIRECTS_ON_PAGE_MOVE = redirect_handlers.autocreate_redirects_on_page_move


def has_been_public(page) -> bool:
    """Whether readers may have had an address of ``page`` or of a page below it: it is live,
    or was published once (Wagtail keeps ``first_published_at`` after an unpublish or expiry),
    or a page below it is live (Wagtail routes through a parent that is not live)."""
    return page.live or page.first_published_at is not None or page.get_descendants().live().exists()


def is_own_address(redirect: Redirect) -> bool:
    """Whether ``redirect`` (to a page) leads from the address its page has now, on the
    redirect's site (on any site for a redirect of every site): a loop when that page is not
    live, and nothing at all while it is (the page answers first)."""
    page = redirect.redirect_page
    for site in [redirect.site] if redirect.site_id else Site.objects.all():
        parts = page.get_url_parts(get_dummy_request(site=site))
        if parts and parts[0] == site.pk and parts[2]:
            own = parts[2].rstrip("/") + (redirect.redirect_page_route_path or "/")
            if Redirect.normalise_path(own) == redirect.old_path:
                return True
    return False


def drop_pointless_redirects(page) -> None:
    """Delete the redirects to ``page`` and the pages below it that lead readers nowhere: the
    automatically created ones to a page that has never been live (its old address was never
    public), and every one from its target's own address (``is_own_address``)."""
    to_pages = Redirect.objects.filter(redirect_page__path__startswith=page.path)
    to_pages.filter(
        automatically_created=True, redirect_page__live=False, redirect_page__first_published_at__isnull=True
    ).delete()
    loops = [redirect.pk for redirect in to_pages.select_related("redirect_page", "site") if is_own_address(redirect)]
    if loops:
        Redirect.objects.filter(pk__in=loops).delete()


def redirects_on_slug_change(instance_before, instance, **kwargs) -> None:
    """Wagtail's ``autocreate_redirects_on_slug_change`` for a page readers may have seen
    (``has_been_public``), then ``drop_pointless_redirects``.

    Upstream (Wagtail 8.0.1, ``wagtail/contrib/redirects/signal_handlers.py``): every slug change
    makes a permanent redirect from the old address, whether or not the page was ever live, and
    none is removed when the slug goes back to an old value. A draft renamed ``loop-a`` ->
    ``loop-b`` -> ``loop-a`` left ``/blog/loop-a/`` -> page (a 301 to itself: "too many
    redirects" instead of the 404) and ``/blog/loop-b/`` -> page (a 301 that tells anyone the
    draft's slug). wagtail/wagtail#12582, fixed by #14507 (after 8.0: only live pages); loops
    are not reported (#11659 asks for their detection).
    """
    if has_been_public(instance):
        WAGTAIL_REDIRECTS_ON_SLUG_CHANGE(instance_before=instance_before, instance=instance, **kwargs)
    drop_pointless_redirects(instance)


def redirects_on_page_move(instance, **kwargs) -> None:
    """Wagtail's ``autocreate_redirects_on_page_move`` for a page readers may have seen, then
    ``drop_pointless_redirects`` (a page moved back where it was loses its redirect from there)."""
    if has_been_public(instance):
        WAGTAIL_REDIRECTS_ON_PAGE_MOVE(instance=instance, **kwargs)
    drop_pointless_redirects(instance)


def install_redirect_receivers() -> None:
    """Put ``redirects_on_slug_change`` and ``redirects_on_page_move`` in the place of Wagtail's
    receivers, whichever app is ready first.

    Wagtail's redirects app connects its receivers in its ``ready()``, by the names of its
    ``signal_handlers`` module at that moment; ``home`` comes before it in ``INSTALLED_APPS``, so
    those names are pointed at ours here and Wagtail connects ours. Were the order reversed,
    Wagtail's receivers are connected already: they are disconnected (Django's signal API) and
    ours connected. A receiver is connected once however often this runs (Django keys receivers
    by function), so it is idempotent.
    """
    for signal, name, wagtail_receiver, ours in (
        (
            page_slug_changed,
            "autocreate_redirects_on_slug_change",
            WAGTAIL_REDIRECTS_ON_SLUG_CHANGE,
            redirects_on_slug_change,
        ),
        (post_page_move, "autocreate_redirects_on_page_move", WAGTAIL_REDIRECTS_ON_PAGE_MOVE, redirects_on_page_move),
    ):
        setattr(redirect_handlers, name, ours)
        signal.disconnect(wagtail_receiver)
        signal.connect(ours)


class RedirectMiddleware(redirect_middleware.RedirectMiddleware):
    """Wagtail's redirect middleware (``MIDDLEWARE`` names this class in its place), except that a
    redirect to a page that is not live is not followed: the 404 stays a 404.

    Upstream (Wagtail 8.0.1, ``wagtail/contrib/redirects/middleware.py``): a 404 whose path has a
    redirect answers with the redirect to its page's URL whether or not that page is live: a
    redirect from a page's own address loops while the page is a draft, scheduled, unpublished
    or expired, and a redirect to a draft tells readers its URL (its slug, usually its title).
    Such redirects made before ``redirects_on_slug_change`` (or by hand) stay harmless here, and
    work again once their page is published. The lookup is Wagtail's (``get_redirect``, the path
    with its query string, then without).
    """

    def process_response(self, request, response):
        if response.status_code != 404:
            return response
        path = Redirect.normalise_path(request.get_full_path(), decode_unicode=False)
        found = redirect_middleware.get_redirect(request, path)
        path_without_query = urlparse(path).path
        if found is None and path != path_without_query:
            found = redirect_middleware.get_redirect(request, path_without_query)
        if found is None or (found.redirect_page_id is not None and not found.redirect_page.live):
            return response
        link = found.link
        if link is None:
            return response
        return HttpResponsePermanentRedirect(link) if found.is_permanent else HttpResponseRedirect(link)
