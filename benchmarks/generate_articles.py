"""Add articles to the demo site until it has ``N`` of them, for benchmarking.

Usage (any settings module; point DATABASE_URL at a benchmark database, never a real one):
    python benchmarks/generate_articles.py 1000

Each new article copies a demo article's body, image, topics and authors (realistic bodies and
images without drawing thousands of pictures), with its own title, slug, summary and a date
spread over the past years. No revisions are made (a benchmark needs readers' pages, not
history). Articles are bulk-inserted in batches of 1,000 (Wagtail's tree API takes 0.2 s or
more per page, an hour for 10,000): the tree paths are computed as treebeard would, and each
batch is added to the search index in bulk.
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

import uuid  # noqa: E402

from django.contrib.contenttypes.models import ContentType  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.utils import timezone  # noqa: E402

from wagtail.models import Page  # noqa: E402
from wagtail.search.backends import get_search_backend  # noqa: E402

from blog.models import ArticlePage, BlogIndexPage  # noqa: E402

WORDS = [
    *("gpu", "inference", "token", "cache", "latency", "throughput", "cluster", "checkpoint", "memory"),
    *("bandwidth", "prefill", "decode", "scheduler", "fleet", "utilization", "kernel", "batch", "model"),
    *("serving", "cost", "power", "rack", "network", "storage"),
]


ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"  # treebeard's MP_Node path alphabet
BATCH = 1000


def tree_step(number: int, steplen: int) -> str:
    """Treebeard's path segment for the ``number``-th child: base 36, zero-padded."""
    digits = ""
    while number:
        number, rest = divmod(number, 36)
        digits = ALPHABET[rest] + digits
    return digits.rjust(steplen, "0")


def add_batch(blog, templates, numbers, rng, now) -> None:
    """Insert articles numbered ``numbers`` under ``blog`` in one transaction."""
    content_type = ContentType.objects.get_for_model(ArticlePage)
    last_child = Page.objects.filter(path__startswith=blog.path, depth=blog.depth + 1).order_by("-path").first()
    next_step = int(last_child.path[-blog.steplen :], 36) + 1 if last_child else 1
    rows, models = [], []
    for offset, number in enumerate(numbers):
        model = rng.choice(templates)
        title = f"{' '.join(rng.sample(WORDS, 5)).capitalize()} ({number})"
        published = now - timedelta(hours=number * 7)
        slug = f"bench-article-{number}"
        rows.append(
            Page(
                title=title,
                draft_title=title,
                slug=slug,
                content_type=content_type,
                live=True,
                has_unpublished_changes=False,
                url_path=f"{blog.url_path}{slug}/",
                path=blog.path + tree_step(next_step + offset, blog.steplen),
                depth=blog.depth + 1,
                numchild=0,
                translation_key=uuid.uuid4(),
                locale_id=blog.locale_id,
                first_published_at=published,
                last_published_at=published,
            )
        )
        models.append((model, title, published))
    with transaction.atomic(), connection.cursor() as cursor:
        pages = Page.objects.bulk_create(rows)
        # Every other column is copied from the model article, so fields added later need no change here.
        copied = ", ".join(
            connection.ops.quote_name(field.column)
            for field in ArticlePage._meta.local_concrete_fields
            if field.column not in ("page_ptr_id", "summary", "date_published")
        )
        cursor.executemany(
            f"INSERT INTO blog_articlepage (page_ptr_id, summary, date_published, {copied}) "  # noqa: S608 - column names from the model
            f"SELECT %s, %s, %s, {copied} FROM blog_articlepage WHERE page_ptr_id = %s",
            [
                (page.pk, f"{title}: what we measured and what it means for the fleet.", published, model.pk)
                for page, (model, title, published) in zip(pages, models, strict=True)
            ],
        )
        through_topics, through_authors = ArticlePage.topics.through, ArticlePage.authors.through
        through_topics.objects.bulk_create(
            through_topics(articlepage_id=page.pk, topicpage_id=topic.pk)
            for page, (model, _, _) in zip(pages, models, strict=True)
            for topic in model.topics.all()
        )
        through_authors.objects.bulk_create(
            through_authors(articlepage_id=page.pk, author_id=author.pk)
            for page, (model, _, _) in zip(pages, models, strict=True)
            for author in model.authors.all()
        )
        Page.objects.filter(pk=blog.pk).update(numchild=Page.objects.filter(path__startswith=blog.path).count() - 1)


def main(target: int) -> None:
    blog = BlogIndexPage.objects.get()
    templates = list(
        ArticlePage.objects.child_of(blog).exclude(slug__startswith="bench-").prefetch_related("topics", "authors")
    )
    if not templates:
        sys.exit("Load the demo content first (manage.py load_demo).")
    search_backend = get_search_backend()
    rng = random.Random(8)
    now = timezone.now()
    started = time.monotonic()
    existing = ArticlePage.objects.count()
    numbers = list(range(existing + 1, target + 1))
    for start in range(0, len(numbers), BATCH):
        blog.refresh_from_db()
        batch = numbers[start : start + BATCH]
        add_batch(blog, templates, batch, rng, now)
        slugs = [f"bench-article-{number}" for number in batch]
        search_backend.add_bulk(ArticlePage, list(ArticlePage.objects.filter(slug__in=slugs)))
        print(
            f"{numbers[min(start + BATCH, len(numbers)) - 1]} articles ({time.monotonic() - started:.0f} s)",
            flush=True,
        )
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            # As autovacuum would on a live site: planner statistics for the new rows, the GIN
            # indexes' pending lists merged (bulk inserts leave them there, and every search
            # then scans them: 360 ms instead of 100 for a rare word at 10,000 articles) and the
            # visibility map set for index-only scans.
            cursor.execute("VACUUM ANALYZE")
    print(f"{ArticlePage.objects.count()} articles in the database ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        sys.exit(__doc__)
    main(int(sys.argv[1]))
