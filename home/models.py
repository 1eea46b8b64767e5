"""Site-wide models: the image model, the shared page base, the home page and site settings."""

import copy

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, router

from wagtail.admin.panels import FieldPanel, MultiFieldPanel
from wagtail.contrib.settings.models import BaseSiteSetting, register_setting
from wagtail.images.models import AbstractImage, AbstractRendition, Image
from wagtail.models import Page, PageViewRestriction

from .caching import memo
from .links import points_at_cms_admin, validate_link
from .page_forms import INVISIBLE_TITLE, SiteCopyForm, SiteModelForm, SitePageForm
from .public_pages import restricted_paths
from .publish_checks import described, model_problems
from .text_cleaning import has_visible_character


def validate_not_cms_admin(value: str) -> None:
    """Refuse a link into this site's CMS admin (``home.links.points_at_cms_admin``: a site path or
    a full URL on any of this site's hosts, in any spelling that leads there): the header's Login
    is for the product's customers, and readers have no business in the admin."""
    if points_at_cms_admin(value):
        raise ValidationError(
            "Enter the product's login address (e.g. https://app.example.com/login), not the CMS admin."
        )


# Open Graph and Twitter cards, feed enclosures and JSON-LD share one rendition: 1200x630 is the
# size Facebook, LinkedIn and X recommend for large link previews (1.91:1), cropped around the
# image's focal point. The original format is kept (PNG for the demo's line drawings).
SOCIAL_IMAGE_SPEC = "fill-1200x630|exact-1200x630"


class SiteImage(AbstractImage):
    """The image library's model. Its ``description`` is the default alt text for renditions."""

    # Wagtail's 255 characters cut the seed's image descriptions (up to 408 characters), which
    # PostgreSQL refuses; the description is the default alt text, so it must fit whole.
    description = models.CharField(
        "description",
        blank=True,
        max_length=500,
        default="",
        help_text="What the image shows, for readers who cannot see it (the default alt text).",
    )

    # Frames in the file (1 for a still image), counted at upload by home.image_uploads: an
    # animated image is served as uploaded, since Willow's Pillow backend keeps only the first
    # frame in renditions (docs/images.md).
    frame_count = models.PositiveIntegerField(default=1, editable=False)

    admin_form_fields = Image.admin_form_fields

    @property
    def is_animated(self) -> bool:
        """Whether the file has more than one frame (animated GIF, WebP or PNG)."""
        return self.frame_count > 1

    @property
    def renditions_in_request(self) -> bool:
        """Whether a page may make this image's missing renditions while a reader waits: not for
        one of more than ``settings.IMAGE_RENDITIONS_IN_REQUEST_MAX_PIXELS`` pixels, whose
        renditions the background worker makes (home.image_renditions)."""
        limit = getattr(settings, "IMAGE_RENDITIONS_IN_REQUEST_MAX_PIXELS", None)
        return not limit or (self.width or 0) * (self.height or 0) <= limit

    class Meta(AbstractImage.Meta):
        verbose_name = "image"
        verbose_name_plural = "images"


class SiteRendition(AbstractRendition):
    image = models.ForeignKey(SiteImage, on_delete=models.CASCADE, related_name="renditions")

    class Meta:
        unique_together = (("image", "filter_spec", "focal_point_key"),)


class BasePage(Page):
    """Abstract base for every page type: the social sharing fields live here once.

    Its editor form removes control characters from every text field, refuses slugs that make no
    URL or that the parent page keeps for its own addresses (so does its copy form), and clears
    an expiry already carried out instead of refusing it (``home.page_forms``).
    """

    base_form_class = SitePageForm
    copy_form_class = SiteCopyForm  # refuses a slug the new parent keeps for its own addresses

    social_image = models.ForeignKey(
        SiteImage,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Image shown when the page is shared (1200x630 crop). Defaults to the page's own image.",
    )

    promote_panels = [
        *Page.promote_panels,
        MultiFieldPanel([FieldPanel("social_image")], heading="Social sharing"),
    ]

    class Meta:
        abstract = True

    # The longest title (characters) this page type's editor accepts: Wagtail's field's unless a
    # page type's form sets less. The copy form holds a copy's new title to it (``SiteCopyForm``).
    title_max_length: int = Page._meta.get_field("title").max_length

    # Fields that stand in for the meta description when editors leave it blank, first non-empty wins.
    meta_description_fallbacks: tuple[str, ...] = ("summary",)

    def clean(self):
        """Wagtail's checks (a slug free among the siblings), then a title that shows something
        (``home.text_cleaning.has_visible_character``): "\\u200b" or "\\u3164" alone would be a
        blank headline, card link and browser tab. On the model rather than the form, so a
        revision made without the editor is refused where it is checked before publishing
        (``home.publish_checks``, the scheduler). Raises ``ValidationError`` on ``title``, code
        ``invisible``."""
        errors = {}
        try:
            super().clean()
        except ValidationError as error:
            errors = error.update_error_dict(errors)
        if self.title and not has_visible_character(self.title):
            errors.setdefault("title", []).append(ValidationError(INVISIBLE_TITLE, code="invisible"))
        if errors:
            raise ValidationError(errors)

    def publish_problems(self) -> list[str]:
        """What stops this page's values (a revision's ``as_object()``, or the page's row) from
        going live, each in words that say what to fix; ``[]`` if they may.

        The model's own validation here (``home.publish_checks``); a page type with rules of its
        own extends it (``ArticlePage``: the publish gates). The admin paths that publish without
        the editor's form ask this first.
        """
        return described(self, model_problems(self))

    def get_view_restrictions(self):
        """The view restrictions on this page and its ancestors, in one query (Wagtail's own
        method costs two): the ancestors' tree paths are the prefixes of this page's path. The
        site uses no alias pages; an alias falls back to Wagtail's alias-aware lookup."""
        if self.alias_of_id:
            return super().get_view_restrictions()
        paths = [self.path[:end] for end in range(self.steplen, len(self.path) + 1, self.steplen)]
        if restricted_paths().isdisjoint(paths):
            return PageViewRestriction.objects.none()  # no query once remembered (home.caching.memo)
        return PageViewRestriction.objects.filter(page__path__in=paths)

    def get_meta_description(self) -> str:
        """The meta description: the editor's search description, else the page type's fallback fields."""
        if self.search_description:
            return self.search_description
        for field in self.meta_description_fallbacks:
            value = getattr(self, field, "")
            if value:
                return value
        return ""

    def get_sitemap_urls(self, request=None):
        """Wagtail's sitemap entry, with ``lastmod`` falling back to the first publication.

        Pages created in code without a revision (imports, fixtures) have no ``last_published_at``;
        the sitemap still gets a date for them.
        """
        urls = super().get_sitemap_urls(request)
        fallback = self.first_published_at or getattr(self, "date_published", None)
        for url in urls:
            url["lastmod"] = url.get("lastmod") or fallback
        return urls

    def get_social_image(self):
        """The image for social cards and JSON-LD: ``social_image``, else the page's own ``image``, else None."""
        return self.social_image or getattr(self, "image", None)


class HomePage(BasePage):
    """The site's front page at ``/``: a hero that leads into the blog and its latest articles."""

    hero_heading = models.CharField(max_length=120, help_text="Large heading at the top of the page.")
    hero_intro = models.TextField(max_length=400, blank=True, help_text="One or two sentences under the heading.")
    latest_count = models.PositiveSmallIntegerField(
        default=6, help_text="How many of the newest articles to show (0 hides the list)."
    )

    content_panels = [
        *Page.content_panels,
        FieldPanel("hero_heading"),
        FieldPanel("hero_intro"),
        FieldPanel("latest_count"),
    ]

    parent_page_types = ["wagtailcore.Page"]
    subpage_types = ["blog.BlogIndexPage"]
    max_count = 1
    template = "pages/home_page.html"
    meta_description_fallbacks = ("hero_intro",)

    # The blog index and the latest articles come from blog's template tags
    # (``home_blog_index``, ``latest_articles``): home imports nothing from blog.

    def route(self, request, path_components):
        """Wagtail's ``Page.route`` from this site root, with the page it ends at remembered for the
        cache generation (``home.caching.memo``) when that page's own URL is the whole path.

        Wagtail routes a path one segment at a time, two queries each (the child by slug, its
        specific row). Which page a path names, and that page's row, change only with a save,
        publish, unpublish, move or delete of a page, and each of those starts a new generation;
        so the page's row as Wagtail's route read it is kept (its StreamFields left out), and
        the next request builds a fresh instance from it (Django's ``Model.from_db``, no query)
        and calls that page's own ``route`` with no segments left (its live check; a routable
        page's own index route). A path that ends inside a page's own routes (feeds, author
        pages) or matches nothing (404) is routed by Wagtail every time and remembers nothing.
        StreamFields are loaded when first used (one query): a page whose fragments are cached
        never reads its body.
        """
        if not path_components:  # this page itself: no query to save
            return super().route(request, path_components)
        key = (self.pk, tuple(path_components))
        found = memo.recall(key, group="routes")
        if found is not memo.MISSING:
            model, values = found
            return model.from_db(router.db_for_read(model), None, values).route(request, [])
        result = super().route(request, path_components)
        page = result[0]
        if page.url_path == self.url_path + "".join(f"{component}/" for component in path_components):
            values = memo.immutable_row(page)
            if values is not None:
                memo.remember(key, (type(page), values), group="routes")
        return result


@register_setting(icon="site")
class SiteChromeSettings(BaseSiteSetting):
    """Header and footer text and links shown on every page of a site."""

    base_form_class = SiteModelForm  # control characters removed (home.page_forms)

    brand_name = models.CharField(max_length=40, default="cedana", help_text="Word mark in the header.")
    brand_tagline = models.CharField(
        max_length=120,
        default="field reports & engineering deep-dives",
        blank=True,
        help_text="Shown after the word mark.",
    )
    login_label = models.CharField(max_length=40, default="Login", help_text="Text of the header's login link.")
    login_url = models.CharField(
        max_length=255,
        default="https://app.cedana.ai/login",
        validators=[validate_link, validate_not_cms_admin],
        help_text="Where customers sign in to the product (a full URL); not the CMS admin.",
    )
    demo_label = models.CharField(
        max_length=40, default="Schedule demo", help_text="Text of the 'Schedule demo' buttons."
    )
    demo_url = models.CharField(
        max_length=255,
        default="https://cedana.ai/",
        validators=[validate_link],
        help_text="Where 'Schedule demo' buttons lead.",
    )
    footer_text = models.CharField(
        max_length=255,
        default="Cedana builds the automation layer for AI factories.",
        blank=True,
        help_text="One line at the bottom of every page.",
    )

    panels = [
        MultiFieldPanel([FieldPanel("brand_name"), FieldPanel("brand_tagline")], heading="Brand"),
        MultiFieldPanel(
            [FieldPanel("login_label"), FieldPanel("login_url"), FieldPanel("demo_label"), FieldPanel("demo_url")],
            heading="Header links",
        ),
        FieldPanel("footer_text"),
    ]

    class Meta:
        verbose_name = "header and footer"

    @classmethod
    def for_site(cls, site):
        """Wagtail's lookup, remembered per cache generation (``home.caching.memo``): every page
        shows these. A copy, so Wagtail's per-request attributes stay on this request's object."""
        chrome = memo.memoized(
            ("chrome-settings", cls.__name__, site.pk), lambda: super(SiteChromeSettings, cls).for_site(site)
        )
        return copy.copy(chrome)
