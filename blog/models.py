"""The blog's content model: the blog index, topic pages, article pages and authors."""

import math

from django import forms
from django.conf import settings
from django.contrib.contenttypes.fields import GenericRelation
from django.core.validators import MaxLengthValidator
from django.db import models
from django.db.models import Exists, F, Max, OuterRef, Q
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.functional import cached_property

from modelcluster.fields import ParentalManyToManyField
from wagtail.admin.panels import FieldPanel, MultiFieldPanel
from wagtail.api import APIField
from wagtail.contrib.routable_page.models import RoutablePageMixin, path, re_path
from wagtail.fields import StreamField
from wagtail.images import get_image_model
from wagtail.images.api.fields import ImageRenditionField
from wagtail.models import (
    DraftStateMixin,
    LockableMixin,
    Page,
    PageManager,
    PageQuerySet,
    PreviewableMixin,
    RevisionMixin,
    Site,
    WorkflowMixin,
)
from wagtail.search import index
from wagtail.search.backends import get_search_backends
from wagtail.search.tasks import insert_or_update_object_task

from home.caching import memo
from home.models import SOCIAL_IMAGE_SPEC, BasePage
from home.public_pages import exclude_private, in_request_site
from home.publish_checks import described, model_problems

from .api import AuthorsField, TopicsField
from .blocks import ArticleBodyBlock, unique_anchors
from .forms import TITLE_MAX_LENGTH, ArticlePageForm, AuthorForm, article_page_problems, validate_visible_name
from .fragments import PAGE_CODE_VERSION, article_card_row, article_state
from .listings import (
    CARD_FIELDS,
    CARD_PREFETCHES,
    add_card_relations,
    card_rows,
    listed_count,
    page_of_rows,
    paginate_listing,
    prefetch_cards,
    recall_listing_page,
    remember_card_rows,
    remember_listing_page,
    remembered_card_rows,
    requested_page_number,
)

# The longest summary a card shows in full at the seed's layout (three lines on desktop);
# the longest seed summary is 176 characters.
SUMMARY_MAX_LENGTH = 240

# Reading speed for "N min read": 230 words a minute, the commonly cited average for adults
# reading non-fiction on screen (Brysbaert, 2019, "How many words do we read per minute?").
WORDS_PER_MINUTE = 230


class Author(
    WorkflowMixin, DraftStateMixin, LockableMixin, RevisionMixin, PreviewableMixin, index.Indexed, models.Model
):
    """A person or team credited in bylines (the seed's byline is "Cedana Editorial").

    A snippet: registered with its listing (``AuthorViewSet``) in ``blog/wagtail_hooks.py``. Like
    pages, authors have drafts, revisions, preview, locking and the "Editorial review" workflow
    (the pattern of wagtail/bakerydemo's ``Person``): the row holds the live version, an editor's
    change is a draft revision until a moderator approves it, and readers see only live authors
    (``live_authors``).

    Its editor form removes control characters from the text fields (``home.text_cleaning``).
    """

    name = models.CharField(
        max_length=100,
        unique=True,
        validators=[validate_visible_name],
        help_text="As it appears in bylines, e.g. 'Ada Lovelace'.",
    )
    # Unicode allowed here; the form applies WAGTAIL_ALLOW_UNICODE_SLUGS (blog.forms.AuthorForm).
    slug = models.SlugField(
        max_length=100, unique=True, allow_unicode=True, help_text="Used in the author's page URL."
    )
    role = models.CharField(max_length=100, blank=True, help_text="e.g. 'Staff engineer, runtime'.")
    photo = models.ForeignKey(
        get_image_model(),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Optional square head shot, cropped to a circle at 96x96 around the focal point.",
    )
    bio = models.TextField(max_length=600, blank=True, help_text="Two or three sentences.")

    # Wagtail's docs name these relations so that deleting an author deletes its revisions and
    # workflow states too ("Snippets: saving revisions" / "enabling workflows").
    revisions = GenericRelation(
        "wagtailcore.Revision",
        content_type_field="base_content_type",
        object_id_field="object_id",
        related_query_name="author",
        for_concrete_model=False,
    )
    workflow_states = GenericRelation(
        "wagtailcore.WorkflowState",
        content_type_field="base_content_type",
        object_id_field="object_id",
        related_query_name="author",
        for_concrete_model=False,
    )

    # Name and slug say who the author is and are unique: required for drafts too (Wagtail defers
    # a text field's required check for drafts, and a deferred empty value skips Django's
    # uniqueness check, so a second blank draft was an IntegrityError).
    panels = [
        FieldPanel("name", required_on_save=True),
        FieldPanel("slug", required_on_save=True),
        FieldPanel("role"),
        FieldPanel("photo"),
        FieldPanel("bio"),
    ]
    base_form_class = AuthorForm
    # What the Authors listing (admin search box, as-you-type) and the snippet chooser match.
    search_fields = [
        index.SearchField("name"),
        index.AutocompleteField("name"),
        index.SearchField("role"),
        index.AutocompleteField("role"),
    ]

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def get_preview_template(self, request, mode_name):
        """The author as readers meet them: the card under an article (previews/author_card.html)."""
        return "previews/author_card.html"

    def get_preview_context(self, request, mode_name):
        return {**super().get_preview_context(request, mode_name), "author": self}


def live_authors():
    """Authors readers may see (approved at least once): bylines, author cards and author pages."""
    return Author.objects.filter(live=True)


class ArticlePageQuerySet(PageQuerySet):
    def listed(self):
        """Live, public, unexpired articles, newest first, with the card image joined; bodies
        are not read (``defer_streamfields``: cards, feeds and the sitemap never show them, and
        decoding a body's JSON costs more than the rest of the row)."""
        return (
            exclude_private(self.live())
            .exclude(expire_at__lte=timezone.now())
            .defer_streamfields()
            .select_related("image")
            .order_by(F("date_published").desc(nulls_last=True), "-pk")
        )

    def for_listing(self):
        """``listed()`` with what a card needs prefetched."""
        return self.listed().prefetch_related(*CARD_PREFETCHES)


ArticlePageManager = PageManager.from_queryset(ArticlePageQuerySet)


def blog_index_at(path: str):
    """The blog index whose tree path is ``path`` (a page's parent), or None; remembered."""
    return memo.memoized(("blog-index-at", path), lambda: BlogIndexPage.objects.filter(path=path).first())


def featured_card_row(pk: int) -> dict | None:
    """The card row of the featured article ``pk`` (``blog.listings.card_rows``, without its
    topics and authors: the listing adds them with its cards' in one query), a copy, or None if
    it is not listed; remembered for the cache generation (``home.caching.memo``): every page of
    a listing shows it, and anything its card shows (the article, its image, topics and authors)
    starts a new generation when it changes. Its expiry time is remembered with it: an article
    whose ``expire_at`` passes leaves the listings at once, before ``publish_scheduled``
    unpublishes it (which starts the next generation)."""

    def build():
        row = card_rows(ArticlePage.objects.listed().filter(pk=pk)).values(*CARD_FIELDS, "expire_at").first()
        if row is None:
            return None, None
        expire_at = row.pop("expire_at")
        return row, expire_at

    row, expire_at = memo.memoized(("featured-card-row", pk), build)
    if row is None or (expire_at is not None and expire_at <= timezone.now()):
        return None
    return dict(row)


class ListingMixin:
    """Shared context for pages that list article cards (the blog index and topic pages).

    A listing page defines ``listed_articles()``: the ``ArticlePage.objects.listed()`` queryset
    of the articles it shows.
    """

    # The heading level of the listing's cards (``pages/blog_listing.html``), below the page's own
    # headings: the blog index's listing heading is an h2, a topic page's title its h1.
    card_heading_level = 3

    def listed_articles(self):
        raise NotImplementedError

    def get_cached_paths(self):
        """The listing's own path and each of its ``?page=N`` pages (Wagtail's
        ``Page.get_cached_paths``), which the CDN purge on every publish uses
        (``home.caching.invalidation.register_listings``); one ``COUNT`` query."""
        pages = math.ceil(self.listed_articles().count() / settings.BLOG_PAGE_SIZE)
        return ["/", *(f"/?page={number}" for number in range(1, pages + 1))]

    def listing_context(self, request, blog_index, articles):
        """Context for a listing of ``articles``, a function returning the listing's
        ``ArticlePage.objects.listed()`` queryset: a fixed number of queries however many articles
        exist, and none for the cards once this page of the listing was read in the cache
        generation.

        The featured article is shown above the cards on page 1, so the cards leave it out on
        every page (it is never shown twice). ``listing_offset`` (0 or 1: the featured article,
        when it belongs to this listing) and ``listing_total`` (every article of the listing)
        make "Showing N of M posts" count what the reader sees, featured article included.

        What the page shows (its articles' primary keys, the featured one, the counts) is
        remembered for the generation (``blog.listings.remember_listing_page``) and the cards'
        rows by article (``remember_card_rows``): anything that changes them starts a new
        generation, and an expiry time passing stops the remembered page from being used."""
        featured_pk, featured_is_newest = blog_index.featured_article_key() if blog_index else (None, False)
        number = requested_page_number(request)
        site = Site.find_for_request(request)  # no query: Wagtail found it to route the request
        key = (type(self).__name__, self.pk, site.pk if site else None, featured_pk, number)
        shown = recall_listing_page(key)
        if shown is memo.MISSING:
            context = self._read_listing(request, blog_index, articles(), featured_pk, featured_is_newest)
            posts, featured = context["posts"], context["featured_article"]
            remember_card_rows([*posts.object_list, *([featured] if featured else [])])
            shown = (
                tuple(row["pk"] for row in posts.object_list),
                featured["pk"] if featured else None,
                posts.paginator.count,
                context["all_posts_count"],
                context["listing_offset"],
            )
            remember_listing_page(key, shown)
            return context
        card_pks, shown_featured_pk, count, all_posts_count, listing_offset = shown
        rows = remembered_card_rows([*card_pks, *([shown_featured_pk] if shown_featured_pk else [])])
        featured = rows.pop() if shown_featured_pk and rows and rows[-1]["pk"] == shown_featured_pk else None
        page_of_posts = page_of_rows(rows, number, count)
        return self._listing_context(blog_index, page_of_posts, featured, all_posts_count, listing_offset)

    def _listing_context(self, blog_index, posts, featured, all_posts_count, listing_offset) -> dict:
        return {
            "blog_index": blog_index,
            "featured_article": featured,
            "all_posts_count": all_posts_count,
            # Called by the template only when the cached topic navigation is missing.
            "topics": blog_index.navigation_topics if blog_index else [],
            "posts": posts,
            "listing_offset": listing_offset,
            "listing_total": posts.paginator.count + listing_offset,
        }

    def _read_listing(self, request, blog_index, articles, featured_pk, featured_is_newest) -> dict:
        """``listing_context`` read from the database (``articles``: the queryset)."""
        # Cards as rows (blog.listings.card_rows): their keys need no model instances, and only the
        # cards missing from the fragment cache are loaded as ArticlePages to be rendered.
        cards = card_rows(articles.exclude(pk=featured_pk) if featured_pk else articles)
        page_of_posts = paginate_listing(
            request, cards, count_key=(type(self).__name__, self.pk, "cards", featured_pk)
        )
        featured = None
        if featured_pk and page_of_posts.number == 1 and featured_is_newest and blog_index == self:
            # The featured article is this listing's newest: one query reads it and the cards.
            rows = list(card_rows(articles)[: page_of_posts.paginator.per_page + 1])
            featured = next((row for row in rows if row["pk"] == featured_pk), None)
            page_of_posts.object_list = [row for row in rows if row["pk"] != featured_pk][
                : page_of_posts.paginator.per_page
            ]
        else:
            page_of_posts.object_list = list(page_of_posts.object_list)
        if featured_pk and page_of_posts.number == 1 and featured is None:  # shown on page 1 only
            featured = featured_card_row(featured_pk)
        # The cards' and the featured card's topics and authors in one query.
        add_card_relations([*page_of_posts.object_list, *([featured] if featured else [])])
        # Every article of the listing; without a featured article, the cards are all of them.
        listed = listed_count((type(self).__name__, self.pk), articles) if featured_pk else None
        if blog_index == self:
            all_posts_count = page_of_posts.paginator.count if listed is None else listed
        elif blog_index:
            all_posts_count = listed_count(
                (BlogIndexPage.__name__, blog_index.pk), lambda: ArticlePage.objects.listed().child_of(blog_index)
            )
        else:
            all_posts_count = 0
        listing_offset = 0 if listed is None else listed - page_of_posts.paginator.count
        return self._listing_context(blog_index, page_of_posts, featured, all_posts_count, listing_offset)


class FeedRoutesMixin(RoutablePageMixin):
    """Serves the page's RSS 2.0 and Atom feeds at ``<page url>feed/rss/`` and ``<page url>feed/atom/``.

    Routes take precedence over child pages, but children of these pages are leaf pages, so a
    child slugged ``feed`` still serves at ``<page url>feed/``.
    """

    @path("feed/rss/", name="feed_rss")
    def feed_rss(self, request):
        from .feeds import ArticleRssFeed

        return ArticleRssFeed()(request, page=self)

    @path("feed/atom/", name="feed_atom")
    def feed_atom(self, request):
        from .feeds import ArticleAtomFeed

        return ArticleAtomFeed()(request, page=self)

    def feed_links(self) -> list[dict]:
        """``[{"type": mime type, "title": str, "url": site-relative URL}]`` for autodiscovery links."""
        base = self.url or ""
        return [
            {
                "type": "application/rss+xml",
                "title": f"{self.title} (RSS)",
                "url": base + self.reverse_subpage("feed_rss"),
            },
            {
                "type": "application/atom+xml",
                "title": f"{self.title} (Atom)",
                "url": base + self.reverse_subpage("feed_atom"),
            },
        ]


class BlogIndexPage(FeedRoutesMixin, ListingMixin, BasePage):
    """The blog at ``/blog/``: hero, featured article, topic navigation and every article as cards."""

    hero_heading_lead = models.CharField(
        max_length=60, default="Writing from the", help_text="First line of the heading at the top of the blog."
    )
    hero_heading_emphasis = models.CharField(
        max_length=60, default="cedana team.", help_text="Second line of the heading, shown emphasised."
    )
    hero_intro = models.TextField(max_length=300, blank=True, help_text="Optional sentence under the heading.")
    listing_heading = models.CharField(
        max_length=80, default="insights from the team.", help_text="Heading above the list of all posts."
    )
    listing_intro = models.TextField(max_length=300, blank=True, help_text="Optional sentence above the list.")
    featured_article = models.ForeignKey(
        "blog.ArticlePage",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Shown at the top of the blog. Leave blank to feature the newest article.",
    )

    content_panels = [
        *Page.content_panels,
        MultiFieldPanel(
            [FieldPanel("hero_heading_lead"), FieldPanel("hero_heading_emphasis"), FieldPanel("hero_intro")],
            heading="Hero",
        ),
        FieldPanel("featured_article"),
        MultiFieldPanel([FieldPanel("listing_heading"), FieldPanel("listing_intro")], heading="All posts"),
    ]

    parent_page_types = ["home.HomePage"]
    subpage_types = ["blog.TopicPage", "blog.ArticlePage"]
    max_count_per_parent = 1
    template = "pages/blog_index_page.html"
    api_fields = [APIField("hero_intro"), APIField("listing_heading"), APIField("listing_intro")]
    meta_description_fallbacks = ("hero_intro", "listing_intro")

    def listed_articles(self):
        """Every article under this blog index that readers can see, newest first."""
        return ArticlePage.objects.listed().child_of(self)

    def get_featured_article(self):
        """The editors' featured article if readers can see it, else the newest article, or None.
        Cards' relations are not prefetched (see ``prefetch_cards``)."""
        articles = ArticlePage.objects.listed().child_of(self)
        if self.featured_article_id:
            chosen = articles.filter(pk=self.featured_article_id).first()
            if chosen is not None:
                return chosen
        return articles.first()

    def featured_article_key(self) -> tuple[int | None, bool]:
        """``(pk, is_newest)`` of ``get_featured_article()``: its primary key (None without
        articles) and whether it is the newest article (no editors' choice in force). Remembered
        for the cache generation (``home.caching.memo``): every listing page needs it. Keyed by
        the editors' choice too: a preview of a draft choosing another article is remembered
        apart and never reaches readers."""

        def lookup():  # get_featured_article's choice, by primary keys only (no page instances)
            articles = ArticlePage.objects.listed().child_of(self)
            if self.featured_article_id and articles.filter(pk=self.featured_article_id).exists():
                return self.featured_article_id, False
            newest = articles.values_list("pk", flat=True).first()
            return (newest, True) if newest is not None else (None, False)

        return memo.memoized(("featured-article", self.pk, self.featured_article_id), lookup)

    def get_context(self, request, *args, **kwargs):
        context = super().get_context(request, *args, **kwargs)
        context.update(self.listing_context(request, self, lambda: ArticlePage.objects.listed().child_of(self)))
        return context

    def navigation_topics(self) -> list:
        """The live, public topic pages under this index, by title (the topic navigation and the
        404 page); remembered for the cache generation (``home.caching.memo``)."""
        return memo.memoized(
            ("topic-nav", self.pk),
            lambda: list(exclude_private(TopicPage.objects.child_of(self).live()).order_by("title")),
        )

    def newest_articles(self, count: int) -> list:
        """The ``count`` newest listed articles under this index (one query, no card prefetches)."""
        return list(ArticlePage.objects.listed().child_of(self)[:count])

    def get_sitemap_urls(self, request=None):
        """The blog index, then one entry per live author with live articles (lastmod: their latest publish)."""
        urls = super().get_sitemap_urls(request)
        base = self.get_full_url(request)
        # One row per author, grouped in the database: the articles' rows never reach Python (a
        # row per article and author was 100 ms at 10,000 articles). An author waiting for their
        # first approval has no page yet.
        latest = (
            ArticlePage.objects.listed()
            .child_of(self)
            .filter(authors__live=True, last_published_at__isnull=False)
            .order_by()
            .values("authors__slug")
            .annotate(lastmod=Max("last_published_at"))
            .order_by("authors__slug")
            .values_list("authors__slug", "lastmod")
        )
        for slug, lastmod in latest:
            urls.append({"location": base + self.reverse_subpage("author", kwargs={"slug": slug}), "lastmod": lastmod})
        return urls

    def get_author_url(self, author, request=None) -> str:
        """Absolute URL of ``author``'s page under this blog index."""
        return self.get_full_url(request) + self.reverse_subpage("author", kwargs={"slug": author.slug})

    # [-\w]: the slugs Django's unicode slug validator allows (``<slug:>`` is ASCII only).
    @re_path(r"^authors/(?P<slug>[-\w]+)/$", name="author")
    def author_page(self, request, slug):
        """``/blog/authors/<slug>/``: the author's card and their live articles, 12 a page.

        An unknown slug, an author not yet approved (``live_authors``) or a bad ``?page=`` gives a
        404 (a slug that is not a slug never matches this route and falls through to Wagtail's
        own 404).
        """
        author = get_object_or_404(live_authors().select_related("photo"), slug=slug)
        articles = ArticlePage.objects.listed().child_of(self).filter(authors=author)
        posts = paginate_listing(request, card_rows(articles), count_key=("author", self.pk, author.pk))
        posts.object_list = add_card_relations(posts.object_list)
        url = (self.url or "") + self.reverse_subpage("author", kwargs={"slug": author.slug})
        return TemplateResponse(
            request,
            "pages/author_page.html",
            {
                **Page.get_context(self, request),
                "blog_index": self,
                "author": author,
                "posts": posts,
                "seo": {
                    "title": author.name,
                    "description": author.bio or f"Articles by {author.name}.",
                    "path": url,
                    "breadcrumb": author.name,
                },
            },
        )


class TopicPage(FeedRoutesMixin, ListingMixin, BasePage):
    """A topic at ``/blog/<topic-slug>/`` listing its articles newest first."""

    intro = models.TextField(max_length=400, blank=True, help_text="One or two sentences about the topic.")

    content_panels = [*Page.content_panels, FieldPanel("intro")]
    search_fields = [*Page.search_fields, index.SearchField("intro")]

    parent_page_types = ["blog.BlogIndexPage"]
    subpage_types = []
    template = "pages/topic_page.html"
    api_fields = [APIField("intro")]
    meta_description_fallbacks = ("intro",)

    card_heading_level = 2

    def listed_articles(self):
        """Every article on this topic that readers can see, newest first."""
        return ArticlePage.objects.listed().filter(topics=self)

    def get_context(self, request, *args, **kwargs):
        context = super().get_context(request, *args, **kwargs)
        blog_index = blog_index_at(self.path[: -self.steplen])
        context.update(
            # This site's articles with the topic (another site's articles may carry it too).
            self.listing_context(
                request, blog_index, lambda: in_request_site(ArticlePage.objects.listed().filter(topics=self), request)
            )
        )
        return context


def _backends_store_filter_fields() -> bool:
    """Whether an auto-updating search backend keeps filter fields in its documents
    (Elasticsearch and OpenSearch do). Wagtail's database backends (modelsearch's
    ``backends.database``, ours among them: ``search.backends``) index only the text and filter
    on the model's own table."""
    return not all(
        any(klass.__module__.startswith("modelsearch.backends.database.") for klass in type(backend).__mro__)
        for backend in get_search_backends(with_auto_update=True)
    )


class ArticlePage(BasePage):
    """An article at ``/blog/<slug>/``: summary, card image, topics, authors and a StreamField body."""

    title_max_length = TITLE_MAX_LENGTH  # the article editor's limit (blog.forms.FIELD_LIMITS)

    summary = models.TextField(
        max_length=SUMMARY_MAX_LENGTH,
        validators=[MaxLengthValidator(SUMMARY_MAX_LENGTH)],
        help_text=f"Plain text shown on cards and as the standfirst (at most {SUMMARY_MAX_LENGTH} characters).",
    )
    # Optional to the model, required to publish (the publish gates, ``blog.forms``): deleting the
    # image from the library sets this to null on live articles too, and a required field would
    # then make every later save of such a page (lock, alias, move, copy) a ValidationError.
    image = models.ForeignKey(
        get_image_model(),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Card and hero image (at least 1200x675); needed to publish.",
    )
    image_alt = models.CharField(
        "image alt text",
        max_length=500,
        blank=True,
        help_text="What the image shows, for readers who cannot see it. Blank uses the image's description.",
    )
    image_decorative = models.BooleanField(
        "decorative image",
        default=False,
        help_text="Tick only if the image carries no information: readers of screen readers then skip it.",
    )
    topics = ParentalManyToManyField(
        "blog.TopicPage",
        related_name="articles",
        blank=False,
        help_text="At least one. The article is listed on each topic's page.",
    )
    authors = ParentalManyToManyField(
        "blog.Author",
        related_name="articles",
        blank=False,
        help_text="At least one, shown in the byline. Add people under Snippets → Authors.",
    )
    date_published = models.DateTimeField(
        "first published",
        null=True,
        blank=True,
        db_index=True,
        help_text="Shown to readers. Filled in when the article is first published.",
    )
    body = StreamField(
        ArticleBodyBlock(),
        help_text="The article. Start with a paragraph; use section headings to build the table of contents.",
    )

    content_panels = [
        *Page.content_panels,
        FieldPanel("summary"),
        MultiFieldPanel(
            [FieldPanel("image"), FieldPanel("image_alt"), FieldPanel("image_decorative")], heading="Card image"
        ),
        # Drafts may be saved without topics or authors; publishing needs them (publish_gates).
        FieldPanel("topics", widget=forms.CheckboxSelectMultiple, required_on_save=False),
        FieldPanel("authors", widget=forms.CheckboxSelectMultiple, required_on_save=False),
        FieldPanel("body"),
    ]
    settings_panels = [*Page.settings_panels, FieldPanel("date_published")]

    search_fields = [
        *Page.search_fields,
        index.SearchField("summary", boost=1.5),  # below the title (boost 2 on Page)
        index.SearchField("body"),
        # Topic names as one text field, not RelatedFields("topics", [SearchField("title")]):
        # SQLite's index files every field named "title" as the page title, which would give
        # topic names the title's weight.
        index.SearchField("topic_names"),
        index.RelatedFields("authors", [index.SearchField("name")]),
        index.FilterField("date_published"),
        # The site search filters on these (unexpired, by topic); backends refuse unindexed filters.
        index.FilterField("expire_at"),
        index.FilterField("topics"),
    ]

    parent_page_types = ["blog.BlogIndexPage"]
    subpage_types = []
    template = "pages/article_page.html"

    # The headless API (/api/v2/pages/?type=blog.ArticlePage&fields=*): renditions are the card
    # size (16:9, WebP) and the social size (1200x630), with the alt text readers get. Both are
    # specs that publishing makes (blog.renditions.ARTICLE_RENDITION_SPECS): a spec of the API's
    # own was made on the first request, about 0.15 s an article (3.9 s for a page of 20).
    api_fields = [
        APIField("summary"),
        APIField("date_published"),
        APIField("updated_at"),
        APIField("reading_time_minutes"),
        APIField("topics", serializer=TopicsField()),
        APIField("authors", serializer=AuthorsField()),
        APIField("image"),
        APIField("card_alt_text"),
        APIField("image_card", serializer=ImageRenditionField("fill-800x450|format-webp", source="image")),
        APIField("image_social", serializer=ImageRenditionField(SOCIAL_IMAGE_SPEC, source="image")),
        APIField("body"),
        APIField("markdown"),
    ]

    objects = ArticlePageManager()
    # Publish gates: publishing, scheduling and submitting need a complete card (drafts do not).
    base_form_class = ArticlePageForm

    # Editors preview the article, its card as listings show it, and its link preview when shared.
    PREVIEW_TEMPLATES = {
        "card": "previews/article_card.html",
        "social": "previews/article_social_card.html",
    }

    class Meta:
        verbose_name = "article"

    # A copy is a new article (issue 15): it is dated when it is itself first published, and
    # starts with no schedule; reviewer links belong to the original (they are not child
    # relations, so Wagtail never copies them).
    exclude_fields_in_copy = ["date_published", "first_published_at", "go_live_at", "expire_at", "expired"]

    def save(self, *args, **kwargs):
        # The reader-facing date is set once, on first publication (Wagtail sets
        # first_published_at just before saving the published revision). Wagtail's create view
        # saves a page scheduled for later as live before its publish action takes it offline:
        # such a page is dated when it goes live, not when Schedule was pressed.
        going_live_later = self.go_live_at is not None and self.go_live_at > timezone.now()
        if self.live and self.date_published is None and not going_live_later:
            self.date_published = self.first_published_at or timezone.now()
        result = super().save(*args, **kwargs)
        if self._saves_indexed_fields(kwargs.get("update_fields")):
            insert_or_update_object_task.enqueue(self._meta.app_label, self._meta.model_name, str(self.pk))
        return result

    # The article indexes itself in ``save``, once, after modelcluster has written its topics and
    # authors. Wagtail's automatic indexing runs on post_save, which modelcluster sends before it
    # writes them: it would file a newly added topic or author late, and with a second indexing
    # here every save cost two. Deleted articles leave the index through search/freshness.py.
    search_auto_update = False

    def publish_problems(self) -> list[str]:
        """The publish gates' advice (``blog.forms.article_page_problems``), then what else the
        model refuses (``BasePage.publish_problems``; a blank or over-long field the gates
        already advise on is not said twice)."""
        gates = article_page_problems(self)
        advised = {problem.field for problem in gates}
        return [problem.message for problem in gates] + described(self, model_problems(self), advised)

    @classmethod
    def _saves_indexed_fields(cls, update_fields) -> bool:
        """Whether a save with ``update_fields`` (None: every field and relation) can change the
        article's search document: Wagtail's bookkeeping saves (a lock, a revision pointer) leave
        it alone. A new revision (an autosave among them) writes only filter fields of the live
        page (``latest_revision_created_at``): it changes the document only where a backend
        stores filter fields (``_backends_store_filter_fields``)."""
        if update_fields is None:
            return True
        fields = cls.get_search_fields()
        if not _backends_store_filter_fields():
            fields = [field for field in fields if not isinstance(field, index.FilterField)]
        return not {field.field_name for field in fields}.isdisjoint(update_fields)

    @property
    def markdown(self) -> str:
        """The article as Markdown with YAML front matter (``blog.markdown_export``), images as
        their file URLs and only published topics and authors, as readers see them (the public
        API's ``markdown`` field); the admin's "Download as Markdown" gives a zip with the images."""
        from blog.markdown_export import article_markdown

        return article_markdown(self, image_path=lambda image: image.file.url, live_relations_only=True)

    def topic_names(self) -> str:
        """The names of the article's topics, space-separated (indexed for search)."""
        return " ".join(topic.title for topic in self.topics.all())

    @property
    def preview_modes(self):
        return [("", "Article page"), ("card", "Card in listings"), ("social", "Social card")]

    def get_preview_template(self, request, mode_name):
        """The article's own template, or the card/social-card preview template for those modes.

        ``mode_name`` comes from the preview URL's ``?mode=``: an unknown one is a 404. None (what
        ``make_preview_request()`` passes when its caller names no mode) is the default mode.
        """
        if mode_name is None:
            mode_name = self.default_preview_mode
        if mode_name not in dict(self.preview_modes):
            raise Http404("No such preview mode.")
        return self.PREVIEW_TEMPLATES.get(mode_name) or super().get_preview_template(request, mode_name)

    @property
    def social_card_image(self):
        """The image shown when the article is shared: the social image, else the card image."""
        return self.social_image or self.image

    @property
    def card_alt_text(self) -> str:
        """Alt text for the card and hero image: empty if decorative, else the page's own, else the
        image's description."""
        if self.image_decorative:
            return ""
        if self.image_alt:
            return self.image_alt
        return getattr(self.image, "description", "") or ""

    @property
    def updated_at(self):
        """When readers last saw a change: the last publish, never a draft save."""
        return self.last_published_at or self.date_published

    @cached_property
    def body_outline(self) -> dict:
        """What the page prints about its body outside the body's own fragment:
        ``{"word_count": int, "table_of_contents": [...], "has_call_to_action": bool}``, computed
        by walking the body. ``get_context`` replaces it with the copy cached for the live revision
        (``blog.fragments.article_state``), so a page whose body fragment is cached does not decode
        and walk the StreamField for them."""
        blocks = list(self.body)
        return {
            # Words in the body's text, as Wagtail's search indexing extracts it from each block.
            "word_count": sum(
                len(text.split()) for block in blocks for text in block.block.get_searchable_content(block.value)
            ),
            "table_of_contents": [
                {"anchor": anchor, "text": block.value["text"], "level": block.value["level"]}
                for block, anchor in self.body_with_anchors
                if anchor is not None
            ],
            "has_call_to_action": any(block.block_type == "cta" for block in blocks),
        }

    @property
    def word_count(self) -> int:
        """Words in the body's text (``body_outline``)."""
        return self.body_outline["word_count"]

    @property
    def reading_time_minutes(self) -> int:
        """Minutes to read the body at WORDS_PER_MINUTE, at least 1."""
        return max(1, round(self.word_count / WORDS_PER_MINUTE))

    @cached_property
    def body_with_anchors(self) -> list[tuple]:
        """``[(body block, anchor or None), ...]``: each heading's id, unique within the article
        (``blog.blocks.unique_anchors``), so the contents links and the headings agree."""
        blocks = list(self.body)
        headings = [index for index, block in enumerate(blocks) if block.block_type == "heading"]
        anchors = dict(zip(headings, unique_anchors(blocks[index].value for index in headings), strict=True))
        return [(block, anchors.get(index)) for index, block in enumerate(blocks)]

    @property
    def table_of_contents(self) -> list[dict]:
        """``[{"anchor": str, "text": str, "level": "h2" | "h3"}, ...]`` from the body's headings
        (``body_outline``)."""
        return self.body_outline["table_of_contents"]

    def get_structured_data(self, request, canonical: str, image: dict | None) -> dict:
        """schema.org ``BlogPosting`` for the page's JSON-LD (Google's Article structured data).

        ``canonical`` is the page's absolute URL and ``image`` the social rendition
        (``{"url", "width", "height", ...}``) from ``{% seo_head %}``. Authors link to their author
        page; the publisher is the site (name from SiteChromeSettings' brand, else the site name).
        """
        from home.models import SiteChromeSettings
        from home.seo import absolute_url, site_name

        blog_index = blog_index_at(self.path[: -self.steplen])
        authors = []
        for author in self.authors.all():
            person = {"@type": "Person", "name": author.name}
            if blog_index is not None:
                person["url"] = blog_index.get_author_url(author, request)
            authors.append(person)
        chrome = SiteChromeSettings.for_request(request)
        data = {
            "@context": "https://schema.org",
            "@type": "BlogPosting",
            "headline": self.title[:110],
            "description": self.summary,
            "url": canonical,
            "mainEntityOfPage": {"@type": "WebPage", "@id": canonical},
            "datePublished": self.date_published,
            "dateModified": self.updated_at,
            "author": authors,
            "publisher": {
                "@type": "Organization",
                "name": chrome.brand_name or site_name(request),
                "url": absolute_url(request, "/"),
            },
            "articleSection": [topic.title for topic in self.topics.all() if topic.live],
            "wordCount": self.word_count,
            "inLanguage": settings.LANGUAGE_CODE,
        }
        if image:
            data["image"] = [
                {"@type": "ImageObject", "url": image["url"], "width": image["width"], "height": image["height"]}
            ]
        return data

    @property
    def has_call_to_action(self) -> bool:
        """Whether the body has a call-to-action block (else the page shows the site's own;
        ``body_outline``)."""
        return self.body_outline["has_call_to_action"]

    def get_adjacent_articles(self):
        """``(older, newer)``: the live articles just before and after this one in its blog's
        listing order (newest first, ties by id), each None at either end or for an unpublished
        article. Two queries; bodies are not loaded."""
        if self.date_published is None:
            return None, None
        published, pk = self.date_published, self.pk
        siblings = ArticlePage.objects.listed().sibling_of(self, inclusive=False).defer_streamfields()
        older = siblings.filter(Q(date_published__lt=published) | Q(date_published=published, pk__lt=pk)).first()
        newer = (
            siblings.filter(Q(date_published__gt=published) | Q(date_published=published, pk__gt=pk))
            .order_by("date_published", "pk")
            .first()
        )
        return older, newer

    def get_related_articles(self, limit: int = 3):
        """Up to ``limit`` other live articles sharing a topic, newest first (one query; the
        cards' relations are not prefetched, see ``prefetch_cards``)."""
        through = ArticlePage.topics.through
        topic_ids = through.objects.filter(articlepage_id=self.pk).values("topicpage_id")
        # EXISTS rather than a join and DISTINCT: the database walks the listing index newest
        # first and stops at ``limit`` matches, where DISTINCT had to sort every article sharing
        # a topic (0.1-0.8 s at 10,000 articles).
        shares_a_topic = Exists(through.objects.filter(articlepage_id=OuterRef("pk"), topicpage_id__in=topic_ids))
        return ArticlePage.objects.listed().filter(shares_a_topic).exclude(pk=self.pk)[:limit]

    # What ``get_context`` sets for a page served to readers (``blog.fragments.article_state``);
    # None in previews and reviewer links, which render every fragment afresh.
    fragment_state = None

    def get_cache_key_components(self):
        """Wagtail's (id, URL path, last publish), the live revision, ``PAGE_CODE_VERSION`` and the
        version tokens of everything the page's own fragments show (``fragment_state``: the article,
        its images, topics, authors with their photos, body references, URLs, sites) and what its
        breadcrumbs show of its ancestors (their titles and URLs),
        for ``{% wagtailpagecache %}`` in ``pages/article_page.html``. No query and no cache round
        trip once ``get_context`` has run; without ``fragment_state`` only Wagtail's own parts."""
        components = [*super().get_cache_key_components(), self.live_revision_id, PAGE_CODE_VERSION]
        if self.fragment_state is not None:
            components.append(sorted(self.fragment_state.tokens.items()))
            components.append(self.fragment_state.crumbs)
        return components

    def prefetch_shown(self, request) -> None:
        """Fetch what the page's own fragments show (topics, live authors with their photos, the
        image and the renditions of it and of the photos) in four queries, once per instance; the
        template calls it only inside those fragments, so a page whose fragments are cached runs
        none of them. Nothing in previews and reviewer links: their topics and authors are the
        draft's, in memory."""
        if getattr(request, "is_preview", False) or getattr(self, "shown_prefetched", False):
            return
        prefetch_cards([self], author_photos=True, renditions_for=[self])
        self.shown_prefetched = True

    def get_context(self, request, *args, **kwargs):
        """The template context, plus ``related_articles`` (a list of up to three cards, their
        relations prefetched) and ``adjacent_articles`` (``(older, newer)``, either None). Both are
        callables the template calls only when its cached fragment of them is missing
        (``pages/article_page.html``): they depend on other articles, so they are cached for the
        page-cache generation, and a page the full-page cache misses runs none of their queries.
        For readers (not previews) it sets ``fragment_state``: the outline and version tokens that
        key the page's fragments (two cache round trips, no query once cached)."""
        context = super().get_context(request, *args, **kwargs)
        if not getattr(request, "is_preview", False):
            self.fragment_state = article_state(self, request)
            # The live revision's outline from the cache: no walk over the body (blog/fragments.py).
            self.body_outline = self.fragment_state.outline

        def related_articles():
            # Card rows with the instances (rendered if their fragment is missing) and their
            # topics and authors (remembered for the generation, else one query).
            return add_card_relations(
                article_card_row(article, relations=False) for article in self.get_related_articles()
            )

        context["related_articles"] = related_articles
        context["adjacent_articles"] = self.get_adjacent_articles
        return context


class ReviewerLink(models.Model):
    """A share link that shows one revision of a page to a reviewer without an account.

    The URL carries a signed token naming this row (``blog.reviewer_links``). It works until
    ``expires_at``, until revoked, and until that revision or a newer one of the page is
    published; each view is logged in the page's history.
    """

    page = models.ForeignKey("wagtailcore.Page", on_delete=models.CASCADE, related_name="reviewer_links")
    revision = models.ForeignKey("wagtailcore.Revision", on_delete=models.CASCADE, related_name="+")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"Reviewer link {self.pk} to revision {self.revision_id} of page {self.page_id}"

    @property
    def revision_published(self) -> bool:
        """Whether this revision, or any newer revision of the page, has been published.

        In the usual flow the linked draft is never published itself: submitting for review
        saves a newer revision and approving publishes a newer one still. Revision ids only
        grow, so a publish of revision ``>= self.revision_id`` (the page's live revision now,
        or any publish in its history, even if later unpublished) means the draft is public
        or superseded.
        """
        from wagtail.models import Page, PageLogEntry

        live_revision_id = Page.objects.filter(pk=self.page_id).values_list("live_revision_id", flat=True).first()
        if live_revision_id is not None and live_revision_id >= self.revision_id:
            return True
        return PageLogEntry.objects.filter(
            page_id=self.page_id, revision_id__gte=self.revision_id, action__startswith="wagtail.publish"
        ).exists()

    def refusal(self) -> str:
        """Why the link no longer works ("" if it works): revoked, expired or published."""
        if self.revoked_at is not None:
            return "This review link was revoked."
        if self.expires_at <= timezone.now():
            return "This review link has expired."
        if self.revision_published:
            return "This version has been published: read it on the site."
        return ""
