"""The blog's content model: the blog index, topic pages, article pages and authors."""

import re

from django import forms
from django.conf import settings
from django.core.paginator import EmptyPage, Paginator
from django.core.validators import MaxLengthValidator
from django.db import models
from django.db.models import F
from django.http import Http404
from django.utils import timezone
from django.utils.functional import cached_property

from modelcluster.fields import ParentalManyToManyField
from wagtail.admin.panels import FieldPanel, MultiFieldPanel
from wagtail.fields import StreamField
from wagtail.images import get_image_model
from wagtail.models import Page, PageManager, PageQuerySet
from wagtail.search import index
from wagtail.search.tasks import insert_or_update_object_task
from wagtail.snippets.models import register_snippet

from home.models import BasePage

from .blocks import ArticleBodyBlock, heading_anchor

# The longest summary a card shows in full at the seed's layout (three lines on desktop);
# the longest seed summary is 176 characters.
SUMMARY_MAX_LENGTH = 240

# Reading speed for "N min read": 230 words a minute, the commonly cited average for adults
# reading non-fiction on screen (Brysbaert, 2019, "How many words do we read per minute?").
WORDS_PER_MINUTE = 230

_PAGE_NUMBER = re.compile(r"^[1-9][0-9]{0,5}$")


def paginate_listing(request, queryset, per_page: int | None = None):
    """Return the Django ``Page`` of ``queryset`` that ``?page=`` asks for.

    ``?page`` is hostile input: it must be a positive integer of at most six digits naming an
    existing page; anything else (``abc``, ``0``, ``-1``, ``1.5``, past the last page) raises
    Http404. A missing parameter means page 1. ``per_page`` defaults to ``BLOG_PAGE_SIZE``.
    """
    raw = request.GET.get("page", "1")
    if not _PAGE_NUMBER.match(raw):
        raise Http404("No such page of posts.")
    paginator = Paginator(queryset, per_page or settings.BLOG_PAGE_SIZE, allow_empty_first_page=True)
    try:
        return paginator.page(int(raw))
    except EmptyPage as error:
        raise Http404("No such page of posts.") from error


@register_snippet
class Author(index.Indexed, models.Model):
    """A person or team credited in bylines (the seed's byline is "Cedana Editorial")."""

    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=100, unique=True, help_text="Used in the author's page URL.")
    role = models.CharField(max_length=100, blank=True, help_text="e.g. 'Staff engineer, runtime'.")
    photo = models.ForeignKey(get_image_model(), null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    bio = models.TextField(max_length=600, blank=True, help_text="Two or three sentences.")

    panels = [FieldPanel("name"), FieldPanel("slug"), FieldPanel("role"), FieldPanel("photo"), FieldPanel("bio")]
    search_fields = [index.SearchField("name"), index.AutocompleteField("name"), index.SearchField("role")]

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ArticlePageQuerySet(PageQuerySet):
    def for_listing(self):
        """Live, public, unexpired articles, newest first, with what a card needs prefetched."""
        return (
            self.live()
            .public()
            .exclude(expire_at__lte=timezone.now())
            .select_related("image")
            .prefetch_related("topics", "authors", "image__renditions")
            .order_by(F("date_published").desc(nulls_last=True), "-pk")
        )


ArticlePageManager = PageManager.from_queryset(ArticlePageQuerySet)


class ListingMixin:
    """Shared context for pages that list article cards (the blog index and topic pages)."""

    def listing_context(self, request, blog_index, articles):
        page_of_posts = paginate_listing(request, articles)
        return {
            "blog_index": blog_index,
            "featured_article": blog_index.get_featured_article() if blog_index else None,
            "all_posts_count": ArticlePage.objects.for_listing().child_of(blog_index).count() if blog_index else 0,
            "topics": TopicPage.objects.child_of(blog_index).live().public().order_by("title") if blog_index else [],
            "posts": page_of_posts,
        }


class BlogIndexPage(ListingMixin, BasePage):
    """The blog at ``/blog/``: hero, featured article, topic navigation and every article as cards."""

    hero_heading_lead = models.CharField(max_length=60, default="Writing from the")
    hero_heading_emphasis = models.CharField(
        max_length=60, default="cedana team.", help_text="Second line of the heading, shown emphasised."
    )
    hero_intro = models.TextField(max_length=300, blank=True)
    listing_heading = models.CharField(max_length=80, default="insights from the team.")
    listing_intro = models.TextField(max_length=300, blank=True)
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

    def get_featured_article(self):
        """The editors' featured article if readers can see it, else the newest article."""
        articles = ArticlePage.objects.for_listing().child_of(self)
        if self.featured_article_id:
            chosen = articles.filter(pk=self.featured_article_id).first()
            if chosen is not None:
                return chosen
        return articles.first()

    def get_context(self, request, *args, **kwargs):
        context = super().get_context(request, *args, **kwargs)
        context.update(self.listing_context(request, self, ArticlePage.objects.for_listing().child_of(self)))
        return context


class TopicPage(ListingMixin, BasePage):
    """A topic at ``/blog/<topic-slug>/`` listing its articles newest first."""

    intro = models.TextField(max_length=400, blank=True, help_text="One or two sentences about the topic.")

    content_panels = [*Page.content_panels, FieldPanel("intro")]
    search_fields = [*Page.search_fields, index.SearchField("intro")]

    parent_page_types = ["blog.BlogIndexPage"]
    subpage_types = []
    template = "pages/topic_page.html"

    def get_context(self, request, *args, **kwargs):
        context = super().get_context(request, *args, **kwargs)
        blog_index = BlogIndexPage.objects.filter(pk=self.get_parent().pk).first()
        articles = ArticlePage.objects.for_listing().filter(topics=self)
        context.update(self.listing_context(request, blog_index, articles))
        return context


class ArticlePage(BasePage):
    """An article at ``/blog/<slug>/``: summary, card image, topics, authors and a StreamField body."""

    summary = models.TextField(
        max_length=SUMMARY_MAX_LENGTH,
        validators=[MaxLengthValidator(SUMMARY_MAX_LENGTH)],
        help_text=f"Plain text shown on cards and as the standfirst (at most {SUMMARY_MAX_LENGTH} characters).",
    )
    image = models.ForeignKey(
        get_image_model(),
        null=True,
        blank=False,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Card and hero image (at least 1200x675).",
    )
    image_alt = models.CharField(
        "image alt text",
        max_length=500,
        blank=True,
        help_text="What the image shows, for readers who cannot see it. Blank uses the image's description.",
    )
    topics = ParentalManyToManyField("blog.TopicPage", related_name="articles", blank=False)
    authors = ParentalManyToManyField("blog.Author", related_name="articles", blank=False)
    date_published = models.DateTimeField(
        "first published",
        null=True,
        blank=True,
        db_index=True,
        help_text="Shown to readers. Filled in when the article is first published.",
    )
    body = StreamField(ArticleBodyBlock())

    content_panels = [
        *Page.content_panels,
        FieldPanel("summary"),
        MultiFieldPanel([FieldPanel("image"), FieldPanel("image_alt")], heading="Card image"),
        FieldPanel("topics", widget=forms.CheckboxSelectMultiple),
        FieldPanel("authors", widget=forms.CheckboxSelectMultiple),
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

    objects = ArticlePageManager()

    class Meta:
        verbose_name = "article"

    def save(self, *args, **kwargs):
        # The reader-facing date is set once, on first publication (Wagtail sets
        # first_published_at just before saving the published revision).
        if self.live and self.date_published is None:
            self.date_published = self.first_published_at or timezone.now()
        result = super().save(*args, **kwargs)
        # The search index is updated on post_save, which modelcluster sends before it writes
        # topics and authors: index the article again now that they are saved, or a newly
        # added topic or author would be missing from the index until the next save.
        insert_or_update_object_task.enqueue(self._meta.app_label, self._meta.model_name, str(self.pk))
        return result

    def topic_names(self) -> str:
        """The names of the article's topics, space-separated (indexed for search)."""
        return " ".join(topic.title for topic in self.topics.all())

    @property
    def card_alt_text(self) -> str:
        """Alt text for the card and hero image: the page's own, else the image's description."""
        if self.image_alt:
            return self.image_alt
        return getattr(self.image, "description", "") or ""

    @property
    def updated_at(self):
        """When readers last saw a change: the last publish, never a draft save."""
        return self.last_published_at or self.date_published

    @cached_property
    def word_count(self) -> int:
        """Words in the body's text, as Wagtail's search indexing extracts it from each block."""
        return sum(
            len(text.split()) for block in self.body for text in block.block.get_searchable_content(block.value)
        )

    @property
    def reading_time_minutes(self) -> int:
        """Minutes to read the body at WORDS_PER_MINUTE, at least 1."""
        return max(1, round(self.word_count / WORDS_PER_MINUTE))

    @cached_property
    def table_of_contents(self) -> list[dict]:
        """``[{"anchor": str, "text": str, "level": "h2" | "h3"}, ...]`` from the body's headings."""
        return [
            {"anchor": heading_anchor(block.value), "text": block.value["text"], "level": block.value["level"]}
            for block in self.body
            if block.block_type == "heading"
        ]

    def get_related_articles(self, limit: int = 3):
        """Up to ``limit`` other live articles sharing a topic, newest first."""
        topic_ids = [topic.pk for topic in self.topics.all()]
        return ArticlePage.objects.for_listing().filter(topics__in=topic_ids).exclude(pk=self.pk).distinct()[:limit]
