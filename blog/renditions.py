"""Make an article's image renditions when it is published, so the first reader does not wait.

The filter specs are the ones the templates ask for: cards and the featured card
(components/article_card.html, components/featured_article.html), the article hero
(pages/article_page.html), images in the body (components/streamfield/blocks/figure_block.html)
and the 1200x630 social sharing crop. Keep them in step with the templates' ``{% picture %}`` tags.

``BLOG_RENDITIONS_ON_PUBLISH = False`` (config/settings/test.py) leaves them to be made on demand:
the suite publishes the demo's 98 articles at start-up and most tests never show an image.
"""

from django.conf import settings
from django.db import transaction

from wagtail.images import get_image_model
from wagtail.images.models import Filter
from wagtail.signals import page_published

from django_tasks import task

from home.models import SOCIAL_IMAGE_SPEC

# The browser takes the first format it supports; PNG is the fallback (the site's images are
# flat-colour illustrations, where PNG beats JPEG).
FORMATS = "format-{avif,webp,png}"
CARD = f"fill-{{480x270,800x450,1200x675}}|{FORMATS}"  # cards and the featured card
# Card images are at least 1200x675 (home.image_uploads.sizes), so no size is larger than every image:
# a larger one would repeat the 1200 rendition and give srcset two candidates of one width.
HERO = f"fill-{{800x450,1200x675}}|{FORMATS}"
FIGURE = f"width-{{480,800,1200}}|{FORMATS}"  # images in the body: their own proportions
SOCIAL = SOCIAL_IMAGE_SPEC  # Open Graph, feeds and the API: exactly 1200x630
# The hero's sizes are also card sizes; each spec once.
ARTICLE_RENDITION_SPECS = list(
    dict.fromkeys(spec for pattern in (CARD, HERO, SOCIAL) for spec in Filter.expand_spec(pattern))
)
FIGURE_RENDITION_SPECS = Filter.expand_spec(FIGURE)


@task()
def make_article_renditions(image_ids: list[int], figure_ids: list[int] | None = None) -> int:
    """Create the card, hero and social renditions of the images with ``image_ids`` and the body
    renditions of those with ``figure_ids`` (missing ones are skipped). Returns how many
    images were processed. Runs on Wagtail's django-tasks backend (``TASKS``; immediate unless a
    worker backend is configured)."""
    wanted = {pk: list(ARTICLE_RENDITION_SPECS) for pk in image_ids}
    for pk in figure_ids or ():
        wanted.setdefault(pk, []).extend(FIGURE_RENDITION_SPECS)
    images = get_image_model().objects.filter(pk__in=wanted).prefetch_related("renditions")
    count = 0
    for image in images:
        image.get_renditions(*dict.fromkeys(wanted[image.pk]))
        count += 1
    return count


def figure_image_ids(body) -> list[int]:
    """Ids of the images in a StreamField ``body``'s image blocks, in order, each once."""
    return list(
        dict.fromkeys(
            block.value["image"].pk for block in body if block.block_type == "image" and block.value.get("image")
        )
    )


def _on_article_published(sender, instance, **kwargs):
    if not settings.BLOG_RENDITIONS_ON_PUBLISH:
        return  # made on demand by the first page that shows them (the test settings' choice)
    image_ids = [pk for pk in (instance.image_id, instance.social_image_id) if pk]
    figures = figure_image_ids(instance.body)
    if image_ids or figures:
        transaction.on_commit(lambda: make_article_renditions.enqueue(image_ids, figures))


def connect():
    """Connect the publish receiver (called from BlogConfig.ready)."""
    from .models import ArticlePage

    page_published.connect(_on_article_published, sender=ArticlePage, dispatch_uid="article-renditions")
