"""One test per upstream workaround in home/upstream/: each asserts that the upstream defect or
missing setting still exists, so that an upgrade that fixes it fails here and the workaround is
deleted (docs/upstream.md has the issue texts)."""

import inspect
import io
import runpy
from pathlib import Path

from django.core.exceptions import ValidationError

import pytest
from PIL import ExifTags, Image
from willow.plugins.pillow import PillowImage

from home.upstream import wagtail as upstream_wagtail
from home.upstream import willow


def test_willow_save_as_avif_still_has_no_speed_parameter():
    """Willow saves AVIF at Pillow's default encoder speed with no way to choose it; once its
    ``save_as_avif`` accepts ``speed``, drop home/upstream/willow.py and pass the setting."""
    assert "speed" not in inspect.signature(willow.WILLOW_SAVE_AS_AVIF).parameters


def test_our_avif_operation_is_installed():
    assert PillowImage.save_as_avif is willow.save_as_avif


def test_willow_still_copies_the_source_exif_into_renditions():
    """Willow's ``get_exif_data`` feeds the source's EXIF to its JPEG and PNG writers; once it no
    longer does, drop ``no_exif_data`` from home/upstream/willow.py."""
    exif = Image.Exif()
    exif[ExifTags.Base.Model] = "Camera"
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8)).save(buffer, "JPEG", exif=exif.tobytes())
    buffer.seek(0)
    with Image.open(buffer) as source:
        assert willow.WILLOW_GET_EXIF_DATA(PillowImage(source))
    assert PillowImage.get_exif_data is willow.no_exif_data


def test_wagtail_streamfield_post_without_its_count_still_raises():
    """Wagtail's StreamField widget still fails on a post without ``<name>-count`` (KeyError) or
    with a count that is not a number (ValueError); once it gives a form error instead, drop
    home/upstream/wagtail.py."""
    from wagtail.blocks import BlockWidget, CharBlock, StreamBlock

    from home.upstream import wagtail

    widget = BlockWidget(StreamBlock([("text", CharBlock())]))
    with pytest.raises(KeyError):
        wagtail.WAGTAIL_VALUE_FROM_DATADICT(widget, {}, {}, "body")
    with pytest.raises(ValueError):
        wagtail.WAGTAIL_VALUE_FROM_DATADICT(widget, {"body-count": "abc"}, {}, "body")


def test_our_streamfield_post_reader_is_installed():
    from django.core.exceptions import BadRequest

    from wagtail.blocks import BlockWidget, CharBlock, StreamBlock

    from home.upstream import wagtail

    assert BlockWidget.value_from_datadict is wagtail.value_from_datadict
    with pytest.raises(BadRequest):
        BlockWidget(StreamBlock([("text", CharBlock())])).value_from_datadict({}, {}, "body")


@pytest.mark.django_db
def test_wagtail_chooser_lookup_still_fails_on_an_id_that_is_not_one():
    """Wagtail's ``BaseChooser.get_instance`` raises for ``"abc"``; once it returns None, delete
    ``chooser_get_instance`` from home/upstream/wagtail.py."""
    from wagtail.images.widgets import AdminImageChooser

    with pytest.raises((ValueError, ValidationError)):
        upstream_wagtail.WAGTAIL_CHOOSER_GET_INSTANCE(AdminImageChooser(), "abc")


def test_our_chooser_lookup_is_installed():
    from wagtail.admin.widgets.chooser import BaseChooser

    assert BaseChooser.get_instance is upstream_wagtail.chooser_get_instance


def test_wagtail_still_loads_workflow_action_data_unchecked():
    """Wagtail's page and snippet editors pass the posted JSON to ``json.loads`` with no error
    handling; once they answer bad data with a 400 themselves, delete the workflow workaround."""
    for action in (upstream_wagtail.WAGTAIL_PAGE_WORKFLOW_ACTION, upstream_wagtail.WAGTAIL_SNIPPET_WORKFLOW_ACTION):
        source = inspect.getsource(action)
        assert "json.loads(" in source
        assert "JSONDecodeError" not in source and "BadRequest" not in source and "except" not in source


def test_wagtail_dismissibles_update_still_raises_on_deeply_nested_json(rf):
    """Wagtail's ``DismissiblesView.patch`` catches only JSONDecodeError; once a nested body is a
    400 there too, delete the dismissibles workaround."""
    from wagtail.admin.views.dismissibles import DismissiblesView

    request = rf.patch("/admin/dismissibles/", "[" * 100_000 + "]" * 100_000, content_type="application/json")
    with pytest.raises(RecursionError):
        upstream_wagtail.WAGTAIL_DISMISSIBLES_PATCH(DismissiblesView(), request)


def test_our_dismissibles_check_is_installed():
    from wagtail.admin.views.dismissibles import DismissiblesView

    assert DismissiblesView.patch is upstream_wagtail.dismissibles_patch


@pytest.mark.django_db
def test_wagtail_still_looks_up_the_site_with_a_query_on_every_call(demo, django_assert_num_queries):
    """Wagtail's ``get_site_for_hostname`` queries on every call (a request keeps its site, the
    next request asks again); once it caches the lookup (wagtail/wagtail#8937), delete
    ``remembered_site_for_hostname``."""
    upstream_wagtail.WAGTAIL_GET_SITE_FOR_HOSTNAME("localhost", 80)
    with django_assert_num_queries(1):
        upstream_wagtail.WAGTAIL_GET_SITE_FOR_HOSTNAME("localhost", 80)


def test_our_site_lookup_is_installed():
    from wagtail.models import sites

    assert sites.get_site_for_hostname is upstream_wagtail.remembered_site_for_hostname


def renamed(page, slug: str):
    """``page`` with ``slug`` saved, and the page as it was: what ``page_slug_changed`` hands its
    receivers (Wagtail sends it when the transaction commits, which a test's does not)."""
    before = type(page).objects.get(pk=page.pk)
    page.slug = slug
    page.save()
    return before, page


@pytest.mark.django_db
def test_wagtail_still_makes_redirects_for_a_page_that_was_never_live(demo):
    """Wagtail's ``autocreate_redirects_on_slug_change`` makes a redirect from a draft's old
    address (wagtail/wagtail#12582); once it makes none (#14507), delete
    ``redirects_on_slug_change``'s check (and its docs/upstream.md section's first half)."""
    from wagtail.contrib.redirects.models import Redirect

    from .factories import ArticlePageFactory

    draft = ArticlePageFactory(parent=demo.blog, slug="never-live-a", live=False)
    before, draft = renamed(draft, "never-live-b")
    upstream_wagtail.WAGTAIL_REDIRECTS_ON_SLUG_CHANGE(instance_before=before, instance=draft)
    assert Redirect.objects.get(old_path="/blog/never-live-a").redirect_page_id == draft.pk


@pytest.mark.django_db
def test_wagtail_still_keeps_a_redirect_from_a_pages_own_address(demo):
    """A live page renamed and renamed back keeps Wagtail's redirect from the address it has
    again (a loop once it is not live); once Wagtail drops it, delete ``drop_pointless_redirects``'
    loop check."""
    from wagtail.contrib.redirects.models import Redirect

    from .factories import ArticlePageFactory

    page = ArticlePageFactory(parent=demo.blog, slug="back-and-forth")
    for slug in ("back-and-forth-2", "back-and-forth"):
        before, page = renamed(page, slug)
        upstream_wagtail.WAGTAIL_REDIRECTS_ON_SLUG_CHANGE(instance_before=before, instance=page)
    assert page.url == "/blog/back-and-forth/"
    assert Redirect.objects.get(old_path="/blog/back-and-forth").redirect_page_id == page.pk


@pytest.mark.django_db
def test_wagtail_redirect_middleware_still_follows_a_redirect_to_a_page_that_is_not_live(rf, demo):
    """Wagtail's ``RedirectMiddleware`` answers a 404 with the redirect to a draft (its URL told,
    or a loop from its own address); once it keeps the 404, drop our ``RedirectMiddleware``."""
    from django.http import HttpResponseNotFound

    from wagtail.contrib.redirects.middleware import RedirectMiddleware
    from wagtail.contrib.redirects.models import Redirect

    from .factories import ArticlePageFactory

    draft = ArticlePageFactory(parent=demo.blog, slug="a-secret-draft", live=False)
    Redirect.objects.create(old_path="/blog/old-name", redirect_page=draft)
    not_found = HttpResponseNotFound()
    response = RedirectMiddleware(lambda request: not_found)(rf.get("/blog/old-name/"))
    assert (response.status_code, response["Location"]) == (301, "/blog/a-secret-draft/")
    ours = upstream_wagtail.RedirectMiddleware(lambda request: not_found)(rf.get("/blog/old-name/"))
    assert ours is not_found


def test_our_redirect_receivers_and_middleware_are_installed(settings):
    from wagtail.contrib.redirects import signal_handlers
    from wagtail.signals import page_slug_changed, post_page_move

    assert signal_handlers.autocreate_redirects_on_slug_change is upstream_wagtail.redirects_on_slug_change
    assert signal_handlers.autocreate_redirects_on_page_move is upstream_wagtail.redirects_on_page_move
    # Disconnecting what is not connected changes nothing and answers False.
    assert not page_slug_changed.disconnect(upstream_wagtail.WAGTAIL_REDIRECTS_ON_SLUG_CHANGE)
    assert not post_page_move.disconnect(upstream_wagtail.WAGTAIL_REDIRECTS_ON_PAGE_MOVE)
    assert "home.upstream.wagtail.RedirectMiddleware" in settings.MIDDLEWARE
    assert "wagtail.contrib.redirects.middleware.RedirectMiddleware" not in settings.MIDDLEWARE


def test_our_workflow_action_checks_are_installed():
    from wagtail.admin.views.generic.mixins import CreateEditViewOptionalFeaturesMixin
    from wagtail.admin.views.pages.edit import EditView

    assert EditView.perform_workflow_action is upstream_wagtail.perform_page_workflow_action
    assert CreateEditViewOptionalFeaturesMixin.workflow_action_action is upstream_wagtail.snippet_workflow_action


@pytest.mark.django_db
def test_django_multiple_choice_field_still_overflows_on_sqlite():
    """Django's ``ModelMultipleChoiceField.clean`` still raises OverflowError on SQLite for an id
    past a 64-bit integer (its ``in`` lookup lacks ticket #27397's overflow handling); once it
    gives "Select a valid choice", delete home/upstream/django.py."""
    from django.contrib.auth.models import Group
    from django.db import connection
    from django.forms import ModelMultipleChoiceField

    from home.upstream import django as upstream_django

    if connection.vendor != "sqlite":
        pytest.skip("the overflow is SQLite's")
    field = ModelMultipleChoiceField(Group.objects.all())
    with pytest.raises(OverflowError):
        upstream_django.DJANGO_MODEL_MULTIPLE_CHOICE_CLEAN(field, ["9" * 20])


@pytest.mark.django_db
def test_our_multiple_choice_range_check_is_installed():
    from django.contrib.auth.models import Group
    from django.forms import ModelMultipleChoiceField

    from home.upstream import django as upstream_django

    assert ModelMultipleChoiceField.clean is upstream_django.model_multiple_choice_clean
    field = ModelMultipleChoiceField(Group.objects.all())
    for value in ("9" * 20, "-" + "9" * 20):
        with pytest.raises(ValidationError, match="Select a valid choice"):
            field.clean([value])
    group = Group.objects.create(name="kept")
    assert list(field.clean([str(group.pk)])) == [group]


def _picture_node(library: str):
    from django.template import engines

    template = engines["django"].from_string(
        "{% load " + library + " %}{% picture image fill-{80x45,160x90} format-{webp,png} %}"
    )
    return next(node for node in template.template.nodelist if "PictureNode" in type(node).__name__)


def test_wagtail_picture_tag_still_parses_its_filters_on_every_render():
    """Wagtail's ``{% picture %}`` node makes new ``Filter`` objects each time it asks for them
    (each render); once it reuses them, drop ``FiltersParsedOnce`` from home/upstream/wagtail.py."""
    node = _picture_node("wagtailimages_tags")
    first, second = node.get_filters(), node.get_filters()
    assert len(first) == 4
    assert all(a is not b for a, b in zip(first, second, strict=True))


def test_our_picture_tag_parses_its_filters_once():
    node = _picture_node("image_tags")
    first = node.get_filters()
    operations = [f.operations for f in first]
    second = node.get_filters()
    assert [f.spec for f in first] == [
        "fill-80x45|format-webp",
        "fill-80x45|format-png",
        "fill-160x90|format-webp",
        "fill-160x90|format-png",
    ]
    assert all(a is b for a, b in zip(first, second, strict=True))
    assert all(f.operations is ops for f, ops in zip(second, operations, strict=True))


def count_folder_listings(monkeypatch) -> list:
    """Every directory listing from now on (``os.scandir``, which ``glob`` and ``os.listdir``'s
    callers in the cache use), as the listed paths."""
    import os

    listed = []
    scandir = os.scandir

    def counted(path="."):
        listed.append(str(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", counted)
    return listed


def test_django_file_cache_still_lists_its_folder_on_every_write(tmp_path, monkeypatch):
    """Django's ``FileBasedCache.set`` still lists the whole folder each time (ticket #29994);
    once it does not, delete ``SparselyCulledFileBasedCache`` and use Django's backend."""
    from django.core.cache.backends.filebased import FileBasedCache

    cache = FileBasedCache(str(tmp_path), {"OPTIONS": {"MAX_ENTRIES": 1000}})
    cache.set("first", 1)
    listed = count_folder_listings(monkeypatch)
    for number in range(20):
        cache.set(f"key-{number}", number)
    assert listed.count(str(tmp_path)) >= 20


@pytest.mark.parametrize("check_every", [1, 7, 50])
def test_our_file_cache_lists_its_folder_once_every_n_writes_and_still_culls(tmp_path, monkeypatch, check_every):
    """The folder is listed once per ``CULL_CHECK_WRITES`` writes (1: on every write, as Django
    does), and the number of files stays within ``MAX_ENTRIES`` plus the writes between checks."""
    from home.upstream.django import SparselyCulledFileBasedCache

    options = {"MAX_ENTRIES": 300, "CULL_CHECK_WRITES": check_every}
    cache = SparselyCulledFileBasedCache(str(tmp_path), {"OPTIONS": options})
    listed = count_folder_listings(monkeypatch)
    most = 0
    for number in range(1000):
        cache.set(f"key-{number}", number)
        most = max(most, sum(1 for _ in tmp_path.glob("*.djcache")))
    checks = listed.count(str(tmp_path)) - 1000  # less this test's own listings
    assert 1000 // check_every <= checks <= 1000 // check_every + 1
    assert 300 <= most <= 300 + check_every  # culled, and never far past the bound
    assert cache.get("key-999") == 999  # the last write is kept


def test_our_file_cache_refuses_a_check_interval_below_one(tmp_path):
    from home.upstream.django import SparselyCulledFileBasedCache

    for bad in (0, -5):
        with pytest.raises(ValueError, match="CULL_CHECK_WRITES"):
            SparselyCulledFileBasedCache(str(tmp_path), {"OPTIONS": {"CULL_CHECK_WRITES": bad}})


def _stock_database_backend():
    """modelsearch's own database backend for the test database (ours subclasses it)."""
    from wagtail.search.backends.database import SearchBackend

    return SearchBackend({})


@pytest.mark.django_db
def test_modelsearch_still_recurses_a_level_per_query_word():
    """docs/upstream.md, "modelsearch: long queries exceed the recursion limit"."""
    from blog.models import ArticlePage

    with pytest.raises(RecursionError):
        list(_stock_database_backend().search(" ".join(["gpu"] * 1000), ArticlePage)[:10])


@pytest.mark.django_db
def test_our_backends_bound_long_queries():
    from wagtail.search.backends import get_search_backend

    from blog.models import ArticlePage
    from home.upstream.modelsearch import BoundedQueryMixin

    backend = get_search_backend()
    assert isinstance(backend, BoundedQueryMixin)
    for method in (backend.search, backend.autocomplete):
        list(method(" ".join(["gpu"] * 1000), ArticlePage)[:10])


@pytest.mark.django_db
def test_modelsearch_still_sends_nul_bytes_to_the_database():
    """docs/upstream.md, "modelsearch: NUL bytes in a query reach the database": PostgreSQL
    refuses NUL in text; SQLite's FTS5 stops reading the MATCH text at it, so the closing quote of
    the term is lost. Once modelsearch's own backend answers, delete ``NulFreeQueryMixin``."""
    from django.db import DataError, OperationalError, connection

    from blog.models import ArticlePage

    error, message = {
        "postgresql": (DataError, "cannot contain NUL"),
        "sqlite": (OperationalError, "unterminated string"),
    }[connection.vendor]
    with pytest.raises(error, match=message):
        list(_stock_database_backend().search("a\x00b", ArticlePage)[:10])


def test_nul_free_query_makes_each_nul_a_space_in_the_same_structure():
    from wagtail.search.query import And, Boost, Fuzzy, MatchAll, Not, Or, Phrase, PlainText

    from home.upstream.modelsearch import nul_free_query

    assert nul_free_query("\x00gpu\x00costs\x00") == "gpu costs"
    assert nul_free_query("\x00 \x00") == ""  # modelsearch's empty result, nothing compiled
    clean = And([PlainText("gpu", operator="or", boost=2), Not(Phrase("a b")), MatchAll()])
    assert nul_free_query(clean) is clean
    query = nul_free_query(
        Or([Boost(PlainText("a\x00b", operator="or", boost=2), 3), Phrase("c\x00d"), Fuzzy("e\x00")])
    )
    boost, phrase, fuzzy = query.subqueries
    assert isinstance(query, Or) and isinstance(boost, Boost) and boost.boost == 3
    assert (boost.subquery.query_string, boost.subquery.operator, boost.subquery.boost) == ("a b", "or", 2)
    assert isinstance(phrase, Phrase) and phrase.query_string == "c d"
    assert isinstance(fuzzy, Fuzzy) and fuzzy.query_string == "e "


@pytest.mark.django_db
def test_our_backends_take_nul_bytes_out_before_bounding_the_query():
    from wagtail.search.backends import get_search_backend

    from blog.models import ArticlePage
    from home.upstream.modelsearch import BoundedQueryMixin, NulFreeQueryMixin

    backend = get_search_backend()
    bases = type(backend).__mro__
    assert bases.index(NulFreeQueryMixin) < bases.index(BoundedQueryMixin)
    for method in (backend.search, backend.autocomplete):
        assert list(method("\x00", ArticlePage)) == []
        list(method("a\x00b", ArticlePage)[:10])
        # NULs separate words: a thousand of them are a thousand words, which are bounded too.
        list(method("gpu\x00" * 1000, ArticlePage)[:10])


def _skip_unless_sqlite():
    from django.db import connection

    if connection.vendor != "sqlite":
        pytest.skip("defects of modelsearch's SQLite FTS5 query compiler; on PostgreSQL the query is a tsquery")


@pytest.mark.django_db
def test_modelsearch_sqlite_still_leaves_a_quote_inside_a_term_unescaped():
    """docs/upstream.md, "modelsearch: SQLite FTS5 queries from user text and fields="
    (wagtail/wagtail#13227): once modelsearch's compiler escapes ``"``, drop the escaping from
    ``SQLiteSafeQueryMixin``."""
    from django.db import OperationalError

    from blog.models import ArticlePage

    _skip_unless_sqlite()
    for query in ('a"b', '"'):
        with pytest.raises(OperationalError, match="unterminated string"):
            list(_stock_database_backend().search(query, ArticlePage)[:10])


@pytest.mark.django_db
def test_modelsearch_sqlite_still_takes_fields_for_fts_columns():
    """The same section (wagtail/django-modelsearch#47): ``fields=`` names model fields, the FTS
    table has three columns; once modelsearch maps them, drop ``fts_columns``."""
    from django.db import OperationalError

    from blog.models import Author

    _skip_unless_sqlite()
    with pytest.raises(OperationalError, match="no such column: role"):
        list(_stock_database_backend().search("compiler", Author, fields=["role"])[:10])


@pytest.mark.django_db
def test_our_sqlite_compilers_escape_quotes_and_match_fields_on_columns():
    from wagtail.search.backends import get_search_backend

    from blog.models import ArticlePage, Author
    from home.upstream.modelsearch import SQLiteSafeQueryMixin

    _skip_unless_sqlite()
    backend = get_search_backend()
    assert issubclass(backend.query_compiler_class, SQLiteSafeQueryMixin)
    assert issubclass(backend.autocomplete_query_compiler_class, SQLiteSafeQueryMixin)
    Author.objects.create(name="Grace Hopper", slug="grace-hopper", role="Compiler lead")
    for method in (backend.search, backend.autocomplete):
        list(method('a"b', ArticlePage)[:10])
        list(method('"', ArticlePage)[:10])
    assert [author.name for author in backend.search("compiler", Author, fields=["role"])] == ["Grace Hopper"]


def _without_our_hook(monkeypatch, hook_name, ours):
    """Wagtail's ``hook_name`` hooks, ``ours`` left out, for the rest of the test."""
    from wagtail import hooks

    get_hooks = hooks.get_hooks
    assert ours in get_hooks(hook_name)
    monkeypatch.setattr(hooks, "get_hooks", lambda name: [hook for hook in get_hooks(name) if hook is not ours])


@pytest.mark.django_db
def test_wagtail_copy_view_still_reads_the_parent_before_validating(admin_client, demo, monkeypatch):
    """docs/upstream.md, "Wagtail: the copy view reads the new parent before validating": without
    our hook, a copy form posted without ``new_parent_page``, with one that is not a number or with
    one no page has still raises in Wagtail's ``CopyView.post``; once it gives the form's error,
    delete ``refuse_copy_without_a_parent`` from home/wagtail_hooks.py."""
    from django.utils.datastructures import MultiValueDictKeyError

    from wagtail.models import Page

    from home.wagtail_hooks import refuse_copy_without_a_parent

    _without_our_hook(monkeypatch, "before_copy_page", refuse_copy_without_a_parent)
    article = demo.articles[0]
    url = f"/admin/pages/{article.pk}/copy/"
    form = {"new_title": "Copy", "new_slug": f"{article.slug}-copy"}
    for parent, error in [(None, MultiValueDictKeyError), ("abc", ValueError), ("99999999", Page.DoesNotExist)]:
        with pytest.raises(error):
            admin_client.post(url, form if parent is None else {**form, "new_parent_page": parent})


def _article_the_model_refuses(demo, *, live: bool):
    """An article without the summary the model requires: a draft revision saved without one
    (Wagtail defers required fields for drafts), or a live page whose row lost it (as a required
    foreign key does when its object is deleted with ``SET_NULL``; the card image was one, until
    it became optional to the model and required by the publish gates only)."""
    from blog.models import ArticlePage

    from .factories import ArticlePageFactory

    article = ArticlePageFactory(parent=demo.blog, live=False, topics=[demo.topics["gpu-costs"]])
    if live:
        article.save_revision().publish()
        ArticlePage.objects.filter(pk=article.pk).update(summary="")
    else:
        article.summary = ""
        article.save_revision(clean=False)
    return article


@pytest.mark.django_db
def test_wagtail_still_publishes_without_validating_outside_the_editor(admin_client, admin_user, demo, monkeypatch):
    """docs/upstream.md, "Wagtail: publishing without the editor validates nothing": with our
    hooks and middleware left out, the bulk Publish, an Approve in the workflow action view and a
    copy with "Publish copies" of content the model refuses each still raise ``ValidationError``
    (a 500), and an author's Approve still publishes a draft with a blank name. Once Wagtail
    refuses such content itself, ``home.publish_checks`` keeps only the page types' own rules (the
    article gates and the required relations and body)."""
    from django.conf import settings
    from django.test import Client, override_settings
    from django.urls import reverse

    from home.wagtail_hooks import (
        refuse_bulk_publish_of_pages_that_fail_the_checks,
        refuse_publishing_copies_that_fail_the_checks,
    )

    _without_our_hook(monkeypatch, "before_bulk_action", refuse_bulk_publish_of_pages_that_fail_the_checks)
    draft = _article_the_model_refuses(demo, live=False)
    url = reverse("wagtail_bulk_action", args=("wagtailcore", "page", "publish")) + f"?id={draft.pk}"
    with pytest.raises(ValidationError, match="summary"):
        admin_client.post(url)

    draft.get_workflow().start(draft, admin_user)
    draft.refresh_from_db()
    approve = reverse(
        "wagtailadmin_pages:workflow_action", args=(draft.pk, "approve", draft.current_workflow_task_state.pk)
    )
    stock = [name for name in settings.MIDDLEWARE if name != "home.publish_checks.ApprovalChecksMiddleware"]
    assert len(stock) == len(settings.MIDDLEWARE) - 1
    with override_settings(MIDDLEWARE=stock), pytest.raises(ValidationError, match="summary"):
        client = Client()  # a new client loads the middleware as overridden
        client.force_login(admin_user)
        client.post(approve)

    # A snippet's Approve (the same view, for authors) publishes its draft as it is: a blank name.
    from blog.models import Author

    author = Author.objects.create(name="Unchecked", slug="unchecked", live=False)
    author.name = ""
    author.save_revision(user=admin_user, clean=False)
    author.get_workflow().start(author, admin_user)
    task_state = Author.objects.get(pk=author.pk).current_workflow_task_state
    approve = reverse("wagtailsnippets_blog_author:workflow_action", args=(author.pk, "approve", task_state.pk))
    with override_settings(MIDDLEWARE=stock):
        client = Client()
        client.force_login(admin_user)
        assert client.post(approve).status_code == 302
    author = Author.objects.get(pk=author.pk)
    assert (author.live, author.name) == (True, "")

    _without_our_hook(monkeypatch, "before_copy_page", refuse_publishing_copies_that_fail_the_checks)
    live = _article_the_model_refuses(demo, live=True)
    form = {"new_title": "Copy", "new_slug": "a-live-copy", "new_parent_page": demo.blog.pk, "publish_copies": "on"}
    with pytest.raises(ValidationError, match="summary"):
        admin_client.post(reverse("wagtailadmin_pages:copy", args=(live.pk,)), form)


def _stock_modeladmin_listing(request):
    """wagtail-modeladmin's own listing of topic pages (``ModelAdmin``'s defaults: its
    ``IndexView`` and ORM search handler; our Topics section, ``blog.wagtail_hooks.TopicAdmin``,
    replaces both), searching their titles."""
    from wagtail_modeladmin.options import ModelAdmin

    from blog.models import TopicPage

    model_admin = type("StockTopicAdmin", (ModelAdmin,), {"model": TopicPage, "search_fields": ("title",)})()
    return model_admin.index_view(request)


@pytest.mark.django_db
def test_modeladmin_listing_still_reads_any_parameter_as_a_filter(rf, admin_user, demo):
    """docs/upstream.md, "wagtail-modeladmin: every query parameter is a filter"
    (wagtail-nest/wagtail-modeladmin#20): a parameter that names no field raises (a 500), and one
    that names a lookup through a relation is applied, so the rows shown tell a page owner's
    password hash apart. Once either changes, revisit ``GuardedIndexView``."""
    from django.contrib.admin.options import IncorrectLookupParameters

    from wagtail.models import Page

    def listing(**params):
        request = rf.get("/admin/blog/topicpage/", params)
        request.user = admin_user
        return _stock_modeladmin_listing(request)

    with pytest.raises(IncorrectLookupParameters):
        listing(x="1")
    Page.objects.filter(pk=demo.topics["gpu-costs"].pk).update(owner=admin_user)
    assert listing(owner__password__startswith=admin_user.password[:6]).context_data["result_count"] == 1
    assert listing(owner__password__startswith="no-hash").context_data["result_count"] == 0


@pytest.mark.django_db
def test_modeladmin_search_still_sends_nul_bytes_to_postgresql(rf, admin_user):
    """docs/upstream.md, "wagtail-modeladmin: a NUL byte in the search box": modeladmin's listing
    passes ``?q=`` to its ORM search unchecked; once it answers, delete ``NulFreeSearchHandler``."""
    from django.db import DataError, connection

    if connection.vendor != "postgresql":
        pytest.skip("SQLite text can hold a NUL byte; PostgreSQL's cannot (DataError)")
    request = rf.get("/admin/blog/topicpage/", {"q": "a\x00b"})
    request.user = admin_user
    with pytest.raises(DataError, match="cannot contain NUL"):
        _stock_modeladmin_listing(request)


def test_our_modeladmin_listings_are_guarded():
    from blog.wagtail_hooks import ArticleAdmin, GuardedIndexView, NulFreeSearchHandler, TopicAdmin

    for model_admin in (ArticleAdmin, TopicAdmin):
        assert issubclass(model_admin.index_view_class, GuardedIndexView)
        assert issubclass(model_admin.search_handler_class, NulFreeSearchHandler)


def _faults_of_crossings(run=None, rounds: int = 300) -> int:
    """Minor page faults of a thread that calls down 10 and then 250 frames ``rounds`` times,
    which crosses the end of its first frame-stack chunk (16 KiB) on each deep call; ``run``
    (``call_in_one_stack_chunk`` or a worker's loop) runs the calls if given. A new thread, so
    that the frame stack starts empty (each test of this session runs in one large chunk)."""
    import resource
    import threading

    def down(depth):
        return down(depth - 1) if depth else 0

    def calls():
        before = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
        for _ in range(rounds):
            for depth in (10, 250):
                down(depth)
        faults.append(resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - before)

    faults = []
    thread = threading.Thread(target=(lambda: run(calls)) if run else calls)
    thread.start()
    thread.join()
    return faults[0]


def test_cpython_still_maps_a_frame_stack_chunk_on_every_crossing():
    """docs/upstream.md, "CPython: frame-stack chunks mapped and unmapped on every crossing":
    each deep call faults a new chunk's pages in (3.13 and 3.14 keep one chunk: no faults)."""
    assert _faults_of_crossings() >= 300


def test_our_calls_and_gunicorn_workers_keep_one_chunk(monkeypatch):
    from gunicorn.workers.sync import SyncWorker

    from home.upstream.cpython import OneStackChunkSyncWorker, call_in_one_stack_chunk

    assert _faults_of_crossings(call_in_one_stack_chunk) < 30
    assert call_in_one_stack_chunk(divmod, 7, 2) == (3, 1)
    with pytest.raises(ZeroDivisionError):
        call_in_one_stack_chunk(divmod, 1, 0)

    # The worker's request loop (SyncWorker.run) runs inside the chunk; gunicorn.conf.py names it.
    monkeypatch.setattr(SyncWorker, "run", lambda worker: worker.loop())
    worker = object.__new__(OneStackChunkSyncWorker)
    worker.loop = lambda: None
    assert _faults_of_crossings(lambda calls: (setattr(worker, "loop", calls), worker.run())) < 30
    config = runpy.run_path(str(Path(__file__).resolve().parent.parent / "gunicorn.conf.py"))
    assert config["worker_class"] == f"{OneStackChunkSyncWorker.__module__}.{OneStackChunkSyncWorker.__name__}"


# A Redis that is not there (nothing listens on port 1), read with production's options.
DOWN_REDIS_PARAMS = {"OPTIONS": {"IGNORE_EXCEPTIONS": True, "SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 1.0}}


def test_django_redis_still_answers_every_failed_get_many_with_one_dict():
    """django-redis's ``get_many`` still returns one shared dict for every failed read; once two
    failed reads return different objects, delete home/upstream/django_redis.py and configure
    ``django_redis.cache.RedisCache`` in config/settings/production.py."""
    from django_redis.cache import RedisCache

    first = RedisCache("redis://127.0.0.1:1/0", DOWN_REDIS_PARAMS)
    second = RedisCache("redis://127.0.0.1:1/1", DOWN_REDIS_PARAMS)
    assert first.get_many(["a"]) is second.get_many(["b"])


def test_our_redis_cache_gives_each_failed_get_many_a_dict_of_its_own():
    from home.upstream.django_redis import RedisCache

    first = RedisCache("redis://127.0.0.1:1/0", DOWN_REDIS_PARAMS)
    second = RedisCache("redis://127.0.0.1:1/1", DOWN_REDIS_PARAMS)
    found = first.get_many(["a"])
    found["a"] = "added by a caller"
    assert second.get_many(["b"]) == {}
    assert first.get_many(["a"]) == {}


def test_wagtail_copy_form_still_takes_a_title_or_slug_of_any_length(demo, admin_user):
    """docs/upstream.md, "Wagtail: the copy form has no length limits": Wagtail's own copy form
    still accepts a title and a slug longer than the page's fields; once it refuses them, the
    limits part of ``home.page_forms.SiteCopyForm.clean`` can keep only our own (100 for titles)."""
    from wagtail.admin.forms.pages import CopyForm

    data = {"new_title": "A" * 300, "new_slug": "a" * 300, "new_parent_page": demo.blog.pk}
    assert CopyForm(data, page=demo.topics["gpu-costs"], user=admin_user).is_valid()


BULK_ACTION_URLS = [
    "/admin/bulk/wagtailcore/page/publish/",
    "/admin/bulk/wagtailcore/page/unpublish/",
    "/admin/bulk/wagtailcore/page/delete/",
    "/admin/bulk/blog/author/delete/",
    "/admin/bulk/home/siteimage/delete/",
    "/admin/bulk/auth/user/delete/",
]
NOT_AN_ID = [
    {"id": "abc"},
    {"id": "\x00"},
    {"id": "1.5"},
    {"id": ["1", "x"]},
    {"id": "all", "childOf": "abc"},
    {"id": "all", "childOf": "99999999"},
    {"id": "99999999999999999999"},
    {"id": "9223372036854775808"},
    {"id": "-9223372036854775809"},
    {"id": "all", "childOf": "99999999999999999999"},
]
# Images and documents: ``childOf`` is a collection's id.
COLLECTION_BULK_ACTION_URLS = [
    "/admin/bulk/home/siteimage/delete/",
    "/admin/bulk/home/siteimage/add_to_collection/",
    "/admin/bulk/home/siteimage/add_tags/",
    "/admin/bulk/wagtaildocs/document/delete/",
    "/admin/bulk/wagtaildocs/document/add_tags/",
    "/admin/bulk/wagtaildocs/document/add_to_collection/",
]


@pytest.mark.parametrize("url", COLLECTION_BULK_ACTION_URLS)
@pytest.mark.parametrize("child_of", ["99999999999999999999", "9223372036854775808", "-9223372036854775809", "x"])
def test_an_image_or_document_bulk_action_with_a_collection_that_is_not_one_is_a_404(
    admin_client, demo, url, child_of
):
    """Was a 500 on SQLite past 64 bits (``OverflowError``)."""
    assert admin_client.get(url, {"id": "all", "childOf": child_of}).status_code == 404


def test_wagtail_bulk_actions_still_take_any_id(admin_client, demo, monkeypatch):
    """docs/upstream.md, "Wagtail: bulk actions and an id that is not one": Wagtail's own
    ``get_actionable_objects`` still raises for an id the primary key cannot take and for a
    ``childOf`` that is not a page; once these are 404s, delete ``checked_actionable_objects``."""
    from wagtail.admin.views.bulk_action.base_bulk_action import BulkAction
    from wagtail.models import Page

    monkeypatch.setattr(BulkAction, "get_actionable_objects", upstream_wagtail.WAGTAIL_GET_ACTIONABLE_OBJECTS)
    for query, error in [({"id": "abc"}, ValueError), ({"id": "all", "childOf": "99999999"}, Page.DoesNotExist)]:
        with pytest.raises(error):
            admin_client.get("/admin/bulk/wagtailcore/page/publish/", query)


@pytest.mark.parametrize("url", BULK_ACTION_URLS)
@pytest.mark.parametrize(
    "query",
    NOT_AN_ID,
    ids=[
        "text",
        "nul",
        "decimal",
        "one-of-two",
        "parent-text",
        "no-parent",
        "huge",
        "int64+1",
        "-int64-1",
        "huge-parent",
    ],
)
def test_a_bulk_action_with_an_id_that_is_not_one_is_a_404(admin_client, demo, url, query):
    if "childOf" in query and "/page/" not in url:
        pytest.skip("only the page listing has a parent page")
    assert admin_client.get(url, query).status_code == 404


def test_a_bulk_action_with_real_ids_still_works(admin_client, demo):
    article = demo.articles[0]
    response = admin_client.get("/admin/bulk/wagtailcore/page/unpublish/", {"id": article.pk})
    assert response.status_code == 200
    assert article.title in response.content.decode()


def test_wagtail_tag_autocomplete_still_sends_nul_bytes_to_postgresql(rf, admin_user):
    """docs/upstream.md, "Wagtail: a NUL byte in the tag autocomplete": Wagtail's view still
    queries with the term as given; once it answers, delete ``nul_free_tag_autocomplete`` and its
    routes in config/urls.py."""
    from django.db import DataError, connection

    from wagtail.admin.views import tags

    if connection.vendor != "postgresql":
        pytest.skip("SQLite text can hold a NUL byte; PostgreSQL's cannot (DataError)")
    request = rf.get("/admin/tag-autocomplete/", {"term": "a\x00"})
    request.user = admin_user
    with pytest.raises(DataError):
        tags.autocomplete(request)


@pytest.mark.parametrize("term", ["\x00", "gpu\x00", "\x00gpu", "g\x00p\x00u"])
def test_the_tag_autocomplete_answers_a_term_with_a_nul_byte(admin_client, demo, term):
    response = admin_client.get("/admin/tag-autocomplete/", {"term": term})
    assert response.status_code == 200
    assert response.json() == []


def test_the_tag_autocomplete_still_finds_tags(admin_client, demo):
    from taggit.models import Tag

    Tag.objects.create(name="gpu-scheduling", slug="gpu-scheduling")
    assert admin_client.get("/admin/tag-autocomplete/", {"term": "gpu"}).json() == ["gpu-scheduling"]
