"""Make an article's image renditions when it is published, so the first reader does not wait.

The filter specs are the ones the templates ask for: cards (components/article_card.html), the
featured card (components/featured_article.html), the article hero (pages/article_page.html)
and the 1200x630 social sharing crop. Keep them in step with the templates' ``{% picture %}`` tags.
"""

from django.db import transaction

from wagtail.images import get_image_model
from wagtail.images.models import Filter
from wagtail.signals import page_published

from django_tasks import task

from home.models import SOCIAL_IMAGE_SPEC

FORMATS = "format-{webp,png}"
CARD = f"fill-{{480x270,800x450,1200x675}}|{FORMATS}"
FEATURED = f"fill-{{640x360,960x540,1440x810}}|{FORMATS}"
HERO = f"fill-{{800x450,1200x675,1600x900}}|{FORMATS}"
SOCIAL = SOCIAL_IMAGE_SPEC  # Open Graph, feeds and the API: exactly 1200x630
# Hero and card share sizes; each spec once.
ARTICLE_RENDITION_SPECS = list(
    dict.fromkeys(spec for pattern in (CARD, FEATURED, HERO, SOCIAL) for spec in Filter.expand_spec(pattern))
)


@task()
def make_article_renditions(image_ids: list[int]) -> int:
    """Create the card, featured, hero and social renditions of the images with ``image_ids``
    (missing ones are skipped). Returns how many images were processed. Runs on Wagtail's
    django-tasks backend (``TASKS``; immediate unless a worker backend is configured)."""
    images = get_image_model().objects.filter(pk__in=image_ids).prefetch_related("renditions")
    count = 0
    for image in images:
        image.get_renditions(*ARTICLE_RENDITION_SPECS)
        count += 1
    return count


def _on_article_published(sender, instance, **kwargs):
    image_ids = [pk for pk in (instance.image_id, instance.social_image_id) if pk]
    if image_ids:
        transaction.on_commit(lambda: make_article_renditions.enqueue(image_ids))


def connect():
    """Connect the publish receiver (called from BlogConfig.ready)."""
    from .models import ArticlePage

    page_published.connect(_on_article_published, sender=ArticlePage, dispatch_uid="article-renditions")
