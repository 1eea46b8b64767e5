"""Renditions of very large images, made by the background worker instead of a reader's request.

``{% picture %}`` (home/templatetags/image_tags.py) asks for an image's renditions while it
renders. For an image of more than ``IMAGE_RENDITIONS_IN_REQUEST_MAX_PIXELS`` pixels
(config/settings/base.py gives the measurement behind the figure) whose renditions are missing,
it queues ``make_image_renditions`` on the django-tasks backend (``TASKS``; the worker is
``manage.py db_worker`` with ``TASKS_BACKEND=database``) and shows the original file, scaled by
the browser, until they exist. With the in-process ``ImmediateBackend`` (development, tests)
nothing is queued from a request, since the task would run in it: those renditions come from
publishing (blog/renditions.py) or ``manage.py wagtail_update_image_renditions``.
"""

import hashlib

from django.core.cache import cache

from wagtail.images import get_image_model

from django_tasks import task
from django_tasks.backends.immediate import ImmediateBackend

# How long a queued image is not queued again by later requests, in seconds: longer than the
# worker takes for the renditions of a 40 MP image (about 8 s of CPU), short enough that a lost
# task is queued again soon.
QUEUED_SECONDS = 300


@task()
def make_image_renditions(image_id: int, specs: list[str]) -> int:
    """Make the renditions of image ``image_id`` for the filter ``specs`` (such as
    ``"fill-800x450|format-webp"``) that do not exist yet. Returns how many specs were asked for,
    0 if the image was deleted meanwhile."""
    image = get_image_model().objects.filter(pk=image_id).first()
    if image is None:
        return 0
    image.get_renditions(*specs)
    return len(specs)


def queue_renditions(image, specs: list[str]) -> bool:
    """Queue ``make_image_renditions`` for ``image`` and ``specs`` on a background backend, at
    most once per ``QUEUED_SECONDS`` for the same image and specs. Returns whether it was queued
    (False with the in-process backend, or when it already was)."""
    if isinstance(make_image_renditions.get_backend(), ImmediateBackend):
        return False
    digest = hashlib.sha256("\n".join(specs).encode()).hexdigest()[:16]
    if not cache.add(f"image-renditions-queued:{image.pk}:{digest}", True, QUEUED_SECONDS):
        return False
    make_image_renditions.enqueue(image.pk, list(specs))
    return True
