"""Add articles to the demo site until it has ``N`` of them, for benchmarking.

Usage (any settings module; point DATABASE_URL at a benchmark database, never a real one):
    python benchmarks/generate_articles.py 1000

Each new article copies a demo article's body, image, topics and authors (realistic bodies and
images without drawing thousands of pictures), with its own title, slug, summary and a date
spread over the past years. Pages are added live through Wagtail's tree API and indexed for
search; no revisions are made (a benchmark needs readers' pages, not history).
"""

import os
import random
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")

import django  # noqa: E402

django.setup()

from django.db import transaction  # noqa: E402
from django.utils import timezone  # noqa: E402

from blog.models import ArticlePage, BlogIndexPage  # noqa: E402

WORDS = [
    *("gpu", "inference", "token", "cache", "latency", "throughput", "cluster", "checkpoint", "memory"),
    *("bandwidth", "prefill", "decode", "scheduler", "fleet", "utilization", "kernel", "batch", "model"),
    *("serving", "cost", "power", "rack", "network", "storage"),
]


def main(target: int) -> None:
    blog = BlogIndexPage.objects.get()
    templates = list(ArticlePage.objects.child_of(blog).prefetch_related("topics", "authors"))
    if not templates:
        sys.exit("Load the demo content first (manage.py load_demo).")
    existing = ArticlePage.objects.count()
    rng = random.Random(8)
    now = timezone.now()
    started = time.monotonic()
    for number in range(existing + 1, target + 1):
        model = rng.choice(templates)
        title = f"{' '.join(rng.sample(WORDS, 5)).capitalize()} ({number})"
        published = now - timedelta(hours=number * 7)
        with transaction.atomic():
            page = ArticlePage(
                title=title,
                slug=f"bench-article-{number}",
                summary=f"{title}: what we measured and what it means for the fleet.",
                image_id=model.image_id,
                body=model.body.raw_data,
                date_published=published,
                first_published_at=published,
                last_published_at=published,
            )
            # modelcluster keeps these until the page is saved: one save for the page and both.
            page.topics.set(model.topics.all())
            page.authors.set(model.authors.all())
            blog.add_child(instance=page)
        if number % 500 == 0:
            print(f"{number} articles ({time.monotonic() - started:.0f} s)", flush=True)
    print(f"{ArticlePage.objects.count()} articles in the database")


if __name__ == "__main__":
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        sys.exit(__doc__)
    main(int(sys.argv[1]))
