"""The blog's admin: the Articles listing (wagtail-modeladmin), dashboard panels and the editorial calendar.

wagtail-modeladmin code stays in this module (the project's rule); the dashboard panels live in
``blog/dashboard_panels.py`` and the calendar view in ``blog/admin_views.py``.
"""

import datetime
import zoneinfo

from django.conf import settings
from django.contrib.admin import SimpleListFilter
from django.db.models import Count
from django.templatetags.static import static
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from wagtail import hooks
from wagtail.admin.menu import MenuItem
from wagtail.admin.ui.tables import Column, LiveStatusTagColumn, UpdatedAtColumn
from wagtail.admin.userbar import ContentCheckerItem
from wagtail.admin.utils import get_admin_base_url
from wagtail.admin.widgets import Button
from wagtail.snippets.models import register_snippet
from wagtail.snippets.views.snippets import SnippetViewSet
from wagtail_modeladmin.helpers import DjangoORMSearchHandler, PageButtonHelper
from wagtail_modeladmin.options import ModelAdmin, modeladmin_register
from wagtail_modeladmin.views import IndexView

from blog import admin_listing_query, markdown_admin, reviewer_links

from . import admin_views, calendar_scheduling, dashboard_panels, editorial_status, review_messages
from .models import ArticlePage, Author, BlogIndexPage, TopicPage

# Query-string parameters the Articles listing understands; anything else is dropped (with a
# warning, blog/admin_listing_query.py), so no one can filter on arbitrary lookups
# (``?owner__password__startswith=``) through the listing.
_LISTING_PARAMS = {"o", "ot", "p", "q", "export", "status", "topic", "author"}

# CSV cells starting with these are read as formulas by spreadsheet apps (OWASP "CSV injection").
_FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(value):
    """A CSV cell value that spreadsheet apps will not run as a formula (prefixed with a quote)."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA_PREFIXES) else text


# The list filters' ``value_check`` (blog/admin_listing_query.py) says which values they take;
# GuardedIndexView drops any other with a warning before a filter sees it.


class IntegerChoiceFilter(SimpleListFilter):
    """A list filter on the id of a row (``value_check`` has made sure it is one)."""

    def value_as_int(self):
        raw = self.value()
        return None if raw is None else int(raw)


class StatusFilter(SimpleListFilter):
    title = "status"
    parameter_name = "status"
    value_check = staticmethod(
        admin_listing_query.choice("status", {slug: label for _rank, slug, label in editorial_status.STATUSES})
    )

    def lookups(self, request, model_admin):
        return [(slug, label) for _rank, slug, label in editorial_status.STATUSES]

    def queryset(self, request, queryset):
        value = self.value()
        if value is None:
            return queryset
        return queryset.filter(status_rank=editorial_status.RANK_BY_SLUG[value])


class TopicFilter(IntegerChoiceFilter):
    title = "topic"
    parameter_name = "topic"
    value_check = staticmethod(admin_listing_query.row_id(TopicPage, "topic"))

    def lookups(self, request, model_admin):
        return [(str(pk), title) for pk, title in TopicPage.objects.order_by("title").values_list("pk", "title")]

    def queryset(self, request, queryset):
        topic_id = self.value_as_int()
        return queryset if topic_id is None else queryset.filter(topics=topic_id)


class AuthorFilter(IntegerChoiceFilter):
    title = "author"
    parameter_name = "author"
    value_check = staticmethod(admin_listing_query.row_id(Author, "author"))

    def lookups(self, request, model_admin):
        return [(str(pk), name) for pk, name in Author.objects.order_by("name").values_list("pk", "name")]

    def queryset(self, request, queryset):
        author_id = self.value_as_int()
        return queryset if author_id is None else queryset.filter(authors=author_id)


class EditOnlyButtonHelper(PageButtonHelper):
    """Only the Edit button per row: copy, delete and unpublish live in the page editor, and their
    permission checks cost queries per row."""

    def get_buttons_for_obj(self, obj, exclude=None, classnames_add=None, classnames_exclude=None):
        exclude = [*(exclude or []), "copy", "delete", "unpublish", "inspect"]
        return super().get_buttons_for_obj(obj, exclude, classnames_add, classnames_exclude)


def export_time(value: datetime.datetime) -> datetime.datetime:
    """``value`` in the site's time zone (``settings.TIME_ZONE``) without microseconds."""
    site_zone = zoneinfo.ZoneInfo(settings.TIME_ZONE)
    if timezone.is_naive(value):
        value = timezone.make_aware(value, site_zone)
    return value.astimezone(site_zone).replace(microsecond=0)


class GuardedIndexView(IndexView):
    """modeladmin's listing, with unknown parameters and unusable values dropped with a warning
    (``blog.admin_listing_query``) instead of a 500: modeladmin reads every parameter it does not
    know as a filter on the model, and one that names no field (``?x=1``) raised ``FieldError``,
    while one through a relation (``?owner__password__startswith=``) was applied. A workaround
    for wagtail-modeladmin#20 (docs/upstream.md, "wagtail-modeladmin: every query parameter is a filter";
    tests/test_home_upstream.py shows modeladmin's own view still does both)."""

    listing_params = frozenset({"o", "ot", "p", "q"})
    search_max_length = admin_listing_query.SEARCH_MAX_LENGTH  # the search box's maxlength

    def dispatch(self, request, *args, **kwargs):
        """The listing without the parameters it does not know or cannot use, each named in a
        warning above it (``blog.admin_listing_query``), for users who may see it."""
        if request.user.is_authenticated and self.permission_helper.user_can_list(request.user):
            admin_listing_query.apply(self, request)
        return super().dispatch(request, *args, **kwargs)


class ArticleIndexView(GuardedIndexView):
    """The Articles listing (``GuardedIndexView``), with its filters and exports."""

    listing_params = _LISTING_PARAMS

    # Times in the site's time zone (settings.TIME_ZONE, not the viewer's profile zone) to the
    # second: CSV as "2026-11-03 09:30:00+01:00", XLSX as a naive local datetime (spreadsheets
    # hold no zone; the headings name it).
    custom_value_preprocess = {
        **IndexView.custom_value_preprocess,
        datetime.datetime: {
            IndexView.FORMAT_CSV: lambda value: export_time(value).isoformat(sep=" "),
            IndexView.FORMAT_XLSX: lambda value: export_time(value).replace(tzinfo=None),
        },
        str: {IndexView.FORMAT_CSV: csv_safe},
    }

    @property
    def export_headings(self):
        """The export's column headings; times name the site's zone (read per request: tests change it)."""
        zone = settings.TIME_ZONE
        return {
            "pk": "ID",
            "title": "Title",
            "status_text": "Status",
            "topic_names": "Topics",
            "author_names": "Authors",
            "go_live": f"Go live ({zone})",
            "expire_at": f"Expiry ({zone})",
            "last_updated": f"Last updated ({zone})",
            "date_published": f"First published ({zone})",
            "editor_url": "Editor URL",
        }

    def to_row_dict(self, item):
        # Empty cells stay empty in exports (the HTML listing shows "-").
        row = {}
        for field in self.list_export:
            source = getattr(self.model_admin, field, None)
            value = source(item) if callable(source) else getattr(item, field)
            row[field] = "" if value is None else value
        return row


class NulFreeSearchHandler(DjangoORMSearchHandler):
    """The listings' ORM search (``icontains`` per word) with NUL bytes taken out of the words:
    PostgreSQL text cannot hold them, so ``?q=%00`` was a 500 (``DataError``) there. A
    workaround for a modeladmin defect not yet reported (docs/upstream.md, "wagtail-modeladmin: a
    NUL byte in the search box"; tests/test_home_upstream.py shows it still happens)."""

    def search_queryset(self, queryset, search_term, **kwargs):
        return super().search_queryset(queryset, (search_term or "").replace("\x00", " "), **kwargs)


class ArticleAdmin(ModelAdmin):
    """The "Articles" section: every article the user may edit, with its editorial status."""

    model = ArticlePage
    menu_label = "Articles"
    menu_icon = "doc-full"
    menu_order = 150
    index_view_class = ArticleIndexView
    button_helper_class = EditOnlyButtonHelper
    list_display = ("title_link", "status", "topic_list", "author_list", "go_live", "expire_at", "last_updated")
    list_filter = (StatusFilter, TopicFilter, AuthorFilter)
    search_fields = ("title", "summary")
    search_handler_class = NulFreeSearchHandler
    ordering = ("-latest_revision_created_at",)
    list_per_page = 50
    list_export = (
        "pk",
        "title",
        "status_text",
        "topic_names",
        "author_names",
        "go_live",
        "expire_at",
        "last_updated",
        "date_published",
        "editor_url",
    )
    export_filename = "articles"

    def get_queryset(self, request):
        queryset = editorial_status.articles_for_user(request.user).order_by(*self.ordering)
        return editorial_status.annotate_editorial_status(queryset).prefetch_related("topics", "authors")

    # Columns (list_display) ----------------------------------------------------------------
    def title_link(self, obj):
        return format_html('<a href="{}">{}</a>', reverse("wagtailadmin_pages:edit", args=[obj.pk]), obj.draft_title)

    title_link.short_description = "Title"
    title_link.admin_order_field = "title"

    def status(self, obj):
        is_live = obj.status_rank in (editorial_status.LIVE, editorial_status.LIVE_WITH_DRAFT)
        css = "w-status--primary" if is_live else ""
        return format_html('<span class="w-status {}">{}</span>', css, editorial_status.status_label(obj))

    status.short_description = "Status"
    status.admin_order_field = "status_rank"

    def topic_list(self, obj):
        return format_html_join(", ", "{}", ((topic.title,) for topic in obj.topics.all())) or "-"

    topic_list.short_description = "Topics"

    def author_list(self, obj):
        return format_html_join(", ", "{}", ((author.name,) for author in obj.authors.all())) or "-"

    author_list.short_description = "Authors"

    def go_live(self, obj):
        """The approved go-live time of a scheduled revision, else the page's own go-live setting."""
        return obj.scheduled_at or obj.go_live_at

    go_live.short_description = "Go live"
    go_live.admin_order_field = "go_live_at"

    def last_updated(self, obj):
        return obj.latest_revision_created_at

    last_updated.short_description = "Last updated"
    last_updated.admin_order_field = "latest_revision_created_at"

    # Export-only columns (list_export): plain text ------------------------------------------
    def status_text(self, obj):
        return editorial_status.status_label(obj)

    status_text.short_description = "Status"

    def topic_names(self, obj):
        return "; ".join(topic.title for topic in obj.topics.all())

    topic_names.short_description = "Topics"

    def author_names(self, obj):
        return "; ".join(author.name for author in obj.authors.all())

    author_names.short_description = "Authors"

    def editor_url(self, obj):
        """The absolute URL of the article's editor (``WAGTAILADMIN_BASE_URL``), to open from a spreadsheet."""
        return get_admin_base_url().rstrip("/") + reverse("wagtailadmin_pages:edit", args=[obj.pk])

    editor_url.short_description = "Editor URL"


modeladmin_register(ArticleAdmin)


class TopicAdmin(ModelAdmin):
    """The "Topics" section: each topic page with how many articles it holds, linking to its editor."""

    model = TopicPage
    menu_label = "Topics"
    index_view_class = GuardedIndexView
    menu_icon = "tag"
    menu_order = 155
    button_helper_class = EditOnlyButtonHelper
    list_display = ("title_link", "slug", "article_count", "live")
    search_fields = ("title", "intro")
    search_handler_class = NulFreeSearchHandler
    ordering = ("title",)

    def get_queryset(self, request):
        return TopicPage.objects.annotate(article_count=Count("articles")).order_by("title")

    def title_link(self, obj):
        return format_html('<a href="{}">{}</a>', reverse("wagtailadmin_pages:edit", args=[obj.pk]), obj.draft_title)

    title_link.short_description = "Title"
    title_link.admin_order_field = "title"

    def article_count(self, obj):
        return obj.article_count

    article_count.short_description = "Articles"
    article_count.admin_order_field = "article_count"


modeladmin_register(TopicAdmin)


class AuthorViewSet(SnippetViewSet):
    """Authors under Snippets: name, role, how many articles credit them, status, last change.

    Author has Wagtail's draft, revision, preview, locking and workflow mixins, so the snippet
    views give editors "Save draft" and "Submit to Editorial review" and moderators "Publish".
    """

    model = Author
    icon = "user"
    list_display = [
        "name",
        "role",
        Column("article_count", label="Articles", sort_key="article_count"),
        LiveStatusTagColumn(),
        UpdatedAtColumn(),
    ]
    list_export = ["name", "slug", "role", "article_count"]
    ordering = ["name"]  # the search box uses Author.search_fields (name and role)

    def get_queryset(self, request):
        return Author.objects.annotate(article_count=Count("articles"))


register_snippet(AuthorViewSet)


@hooks.register("construct_homepage_panels")
def add_editorial_panels(request, panels):
    panels.extend(dashboard_panels.editorial_panels())


# The editor's banner when a moderator asked for changes (blog/review_messages.py).
hooks.register("before_edit_page", review_messages.show_changes_requested)
hooks.register("before_edit_snippet", review_messages.show_changes_requested)


@hooks.register("register_admin_urls")
def register_calendar_url():
    return [
        path("calendar/", admin_views.EditorialCalendarView.as_view(), name="editorial_calendar"),
        path("calendar/move/", admin_views.move_scheduled, name="editorial_calendar_move"),
    ]


# "New article" from a calendar day: ?go_live_at= pre-fills the go-live (blog/calendar_scheduling.py).
hooks.register("before_create_page", calendar_scheduling.prefill_go_live)


@hooks.register("register_admin_menu_item")
def register_calendar_menu_item():
    return MenuItem("Calendar", reverse("editorial_calendar"), icon_name="date", order=160)


@hooks.register("insert_global_admin_css")
def editor_css():
    """The editor's own styles: the code block's monospace source and its compare view."""
    return format_html('<link rel="stylesheet" href="{}">', static("css/admin/editor.css"))


@hooks.register("insert_global_admin_js")
def character_count_js():
    """Live "N / max characters" counters under every admin text field that has a maxlength."""
    return format_html('<script src="{}" defer></script>', static("js/admin/character-count.js"))


# Reviewer links (blog/reviewer_links.py): admin views, history entries and the header button.


@hooks.register("register_admin_urls")
def register_reviewer_link_urls():
    return [
        path("reviewer-links/<int:page_id>/", reviewer_links.manage, name="reviewer_links"),
        path(
            "reviewer-links/<int:page_id>/<int:link_id>/revoke/",
            reviewer_links.revoke,
            name="reviewer_links_revoke",
        ),
    ]


@hooks.register("register_log_actions")
def register_reviewer_link_actions(actions):
    actions.register_action(reviewer_links.VIEW_ACTION, "Viewed by reviewer link", "Viewed through a reviewer link")
    actions.register_action(reviewer_links.CREATE_ACTION, "Reviewer link created", "Reviewer link created")
    actions.register_action(reviewer_links.REVOKE_ACTION, "Reviewer link revoked", "Reviewer link revoked")


@hooks.register("register_page_header_buttons")
def reviewer_links_button(page, user, view_name=None, next_url=None):
    if page.depth > 1 and page.permissions_for_user(user).can_edit():
        yield Button("Reviewer links", url=reverse("reviewer_links", args=(page.pk,)), icon_name="link", priority=66)


# Markdown in and out (blog/markdown_admin.py): the import view, its menu item and the download button.


class ImportArticlesMenuItem(MenuItem):
    def is_shown(self, request):
        return markdown_admin.can_import(request.user, BlogIndexPage.objects.first())


@hooks.register("register_admin_urls")
def register_markdown_urls():
    return [
        path("articles/import/", markdown_admin.import_articles, name="import_articles"),
        path("articles/<int:page_id>/markdown/", markdown_admin.download_markdown, name="article_markdown"),
    ]


@hooks.register("register_admin_menu_item")
def register_import_menu_item():
    return ImportArticlesMenuItem("Import articles", reverse("import_articles"), icon_name="upload", order=170)


@hooks.register("register_page_header_buttons")
def markdown_download_button(page, user, view_name=None, next_url=None):
    if page.specific_class is ArticlePage and page.permissions_for_user(user).can_edit():
        yield Button(
            "Download as Markdown", url=reverse("article_markdown", args=(page.pk,)), icon_name="download", priority=67
        )


# The editor's Checks panel (Wagtail's accessibility checker, run on the preview) -------------


class SiteContentChecker(ContentCheckerItem):
    """Wagtail's checker without the preview modes' own scaffolding.

    The "Card in listings" and "Social card" previews (``templates/previews/``) show the article
    inside a mock-up: a note saying what the preview is, a card whose title level belongs to the
    listing it will sit in, and a social card whose bold title line imitates a social network
    (axe's "p-as-heading"). None of that is the editor's to fix, so it is excluded; the images
    and their alt text inside those previews are still checked.
    """

    axe_exclude = [
        *ContentCheckerItem.axe_exclude,
        ".preview-frame__note",
        ".social-card__body",
        ".preview-frame .card__title",
    ]


@hooks.register("construct_wagtail_userbar")
def use_site_content_checker(request, items, page=None):
    """Swap Wagtail's checker (in the userbar and the editor's Checks panel) for ``SiteContentChecker``."""
    items[:] = [
        SiteContentChecker(in_editor=item.in_editor)
        if isinstance(item, ContentCheckerItem) and not isinstance(item, SiteContentChecker)
        else item
        for item in items
    ]
