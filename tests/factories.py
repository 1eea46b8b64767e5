"""factory-boy factories for every page type and snippet, with lazily faked values."""

from django.utils import timezone

import factory
import wagtail_factories

from blog.models import ArticlePage, Author, BlogIndexPage, TopicPage
from home.models import HomePage, SiteImage


class SiteImageFactory(wagtail_factories.ImageFactory):
    title = factory.Faker("sentence", nb_words=3)
    description = factory.Faker("sentence", nb_words=12)
    file = factory.django.ImageField(width=1200, height=675, color="blue")

    class Meta:
        model = SiteImage


class AuthorFactory(factory.django.DjangoModelFactory):
    name = factory.Sequence(lambda n: f"Author {n}")
    slug = factory.Sequence(lambda n: f"author-{n}")
    role = factory.Faker("job")
    bio = factory.Faker("paragraph")

    class Meta:
        model = Author


class HomePageFactory(wagtail_factories.PageFactory):
    title = "Home"
    hero_heading = factory.Faker("sentence", nb_words=6)

    class Meta:
        model = HomePage


class BlogIndexPageFactory(wagtail_factories.PageFactory):
    title = "Blog"
    slug = "blog"

    class Meta:
        model = BlogIndexPage


class TopicPageFactory(wagtail_factories.PageFactory):
    title = factory.Faker("word")
    intro = factory.Faker("sentence")

    class Meta:
        model = TopicPage


def shared_card_image() -> SiteImage:
    """The demo's first image, whose renditions the prepared database already holds: a new
    image per article would have its card renditions (AVIF, WebP and JPEG at every width) made
    the first time a listing or search shows it, most of the CPU of a test that lists a few new
    articles. Where the demo is not loaded (a flushed database), a new image."""
    return SiteImage.objects.order_by("pk").first() or SiteImageFactory()


class ArticlePageFactory(wagtail_factories.PageFactory):
    """An article; pass ``topics=[...]`` and ``authors=[...]`` (defaults: none and one new
    author) and ``image=SiteImageFactory()`` where the article needs an image of its own (the
    default is the demo image every test shares, ``shared_card_image``)."""

    title = factory.Faker("sentence", nb_words=6)
    summary = factory.Faker("text", max_nb_chars=160)
    image = factory.LazyFunction(shared_card_image)
    date_published = factory.LazyFunction(timezone.now)
    body = factory.LazyFunction(
        lambda: [
            {"type": "heading", "value": {"text": "Background", "level": "h2", "anchor": ""}},
            {"type": "paragraph", "value": "<p>Some words about GPUs.</p>"},
        ]
    )
    # Parental many-to-many relations (modelcluster), given to the constructor so that the
    # page's first save writes them: one save per article, so one search indexing and one
    # reference-index update, where setting them afterwards took a second save of each.
    topics = factory.LazyFunction(list)
    authors = factory.LazyFunction(lambda: [AuthorFactory()])

    class Params:
        # ``publishable=True``: what the editor's publish gates ask beyond the defaults
        # (``blog.forms.article_problems``), a topic (the demo's first) and a meta description,
        # for an article that must pass them later, as the scheduler checks at go-live.
        publishable = factory.Trait(
            topics=factory.LazyFunction(lambda: [TopicPage.objects.order_by("pk").first()]),
            search_description=factory.Faker("sentence"),
        )

    class Meta:
        model = ArticlePage
