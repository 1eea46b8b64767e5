"""Search latency benchmark: generate N articles in a separate database, time /search/.

Not part of the test run. Usage (from the project root, with the project's virtualenv)::

    .venv/bin/python benchmarks/search_latency.py --articles 1000                 # SQLite, temp file
    .venv/bin/python benchmarks/search_latency.py --articles 10000 \\
        --database-url postgres://postgres@127.0.0.1:5432/cedana_bench --reset   # PostgreSQL
    .venv/bin/python benchmarks/search_latency.py --existing \
        --database-url postgres://postgres@127.0.0.1:5432/cedana_i4_bench        # as generated

It migrates the database, loads the demo site (20 articles, 3 topics), adds generated articles
(seeded random text from a Zipf-like vocabulary, 3-8 paragraphs, a code block, 1-2 of 8 topics)
until there are ``--articles`` in all, builds the search index with ``update_index``, then sends
each kind of query ``--repeat`` times through Django's test client (URL routing, the view, the
search backend, facets, highlighting and the template: what a reader waits for, minus the
network) and prints p50/p95 in milliseconds. ``--reset`` drops and recreates a PostgreSQL
database first (it refuses to touch one that holds pages otherwise); SQLite uses a new file.
``--existing`` skips generation and indexing and times a database made by
``benchmarks/generate_articles.py`` (much faster to build: bulk inserts).
Generated cards share one image, so image renditions are made once and then reused.
"""

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

COMMON = [
    "gpu",
    "memory",
    "inference",
    "latency",
    "throughput",
    "cost",
    "token",
    "model",
    "batch",
    "cluster",
    "node",
    "kernel",
    "checkpoint",
    "restore",
    "state",
    "cache",
    "bandwidth",
    "utilization",
    "scheduler",
    "queue",
    "request",
    "fleet",
    "power",
    "cooling",
    "capacity",
    "compute",
    "training",
    "serving",
    "runtime",
    "container",
    "snapshot",
    "migration",
]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--articles", type=int, default=1000, help="articles in all (default 1000)")
    parser.add_argument("--repeat", type=int, default=30, help="timed requests per query kind (default 30)")
    parser.add_argument("--database-url", default="", help="PostgreSQL URL; default: a new SQLite file in /tmp")
    parser.add_argument("--reset", action="store_true", help="drop and recreate the PostgreSQL database first")
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument(
        "--existing",
        action="store_true",
        help="time the database at --database-url (or sqlite:///path) as it is: no generation or "
        "indexing, only migrations (e.g. one made by benchmarks/generate_articles.py)",
    )
    return parser.parse_args()


def prepare_database(args) -> str:
    """The DATABASE_URL to use: a fresh SQLite file, or the PostgreSQL URL (reset if asked), or
    with ``--existing`` the given URL untouched."""
    if args.existing:
        if not args.database_url:
            sys.exit("--existing needs --database-url.")
        return args.database_url
    if not args.database_url:
        path = Path(tempfile.mkdtemp(prefix="cedana-bench-")) / "bench.sqlite3"
        return f"sqlite:///{path}"
    import dj_database_url
    import psycopg

    config = dj_database_url.parse(args.database_url)
    name = config["NAME"]
    admin = psycopg.connect(
        host=config["HOST"], port=config["PORT"] or 5432, user=config["USER"], dbname="postgres", autocommit=True
    )
    exists = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
    if exists and args.reset:
        admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        exists = None
    if not exists:
        admin.execute(f'CREATE DATABASE "{name}"')
    else:
        with psycopg.connect(args.database_url) as conn:
            has_pages = conn.execute("SELECT to_regclass('wagtailcore_page')").fetchone()[0]
            if has_pages:
                sys.exit(f"{name} already holds a site; pass --reset to drop and recreate it.")
    return args.database_url


def words(rng, vocabulary, weights, count):
    return " ".join(rng.choices(vocabulary, weights=weights, k=count))


def generate(count, rng):
    """Create ``count`` live articles under the blog; no search indexing (done afterwards)."""
    from django.test import override_settings
    from django.utils import timezone

    from blog.models import ArticlePage, Author, BlogIndexPage, TopicPage

    blog = BlogIndexPage.objects.get()
    topics = list(TopicPage.objects.all())
    for number in range(len(topics), 8):
        topic = TopicPage(title=f"Topic {number}", slug=f"topic-{number}", intro="Generated topic.")
        blog.add_child(instance=topic)
        topics.append(topic)
    authors = list(Author.objects.all())
    image = ArticlePage.objects.first().image  # one shared card image: its renditions are made once
    # A Zipf-like vocabulary: common engineering words, then a long tail of made-up words.
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "qui", "dor"]
    tail = sorted({"".join(rng.choices(syllables, k=rng.randint(2, 4))) for _ in range(6000)})
    vocabulary = COMMON + tail
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    now = timezone.now()
    no_auto_update = {"default": {"BACKEND": "search.backends", "SEARCH_CONFIG": "english", "AUTO_UPDATE": False}}
    with override_settings(WAGTAILSEARCH_BACKENDS=no_auto_update):
        for number in range(count):
            body = [{"type": "heading", "value": {"text": words(rng, vocabulary, weights, 4), "level": "h2"}}]
            for _ in range(rng.randint(3, 8)):
                body.append({"type": "paragraph", "value": f"<p>{words(rng, vocabulary, weights, 80)}</p>"})
            body.append(
                {"type": "code", "value": {"language": "python", "filename": "", "source": "def f():\n    pass\n"}}
            )
            title = f"{words(rng, vocabulary, weights, 6).capitalize()} {number}"
            article = ArticlePage(
                title=title,
                slug=f"generated-{number}",
                summary=words(rng, vocabulary, weights, 25)[:240],
                body=body,
                image=image,
                date_published=now - timezone.timedelta(minutes=rng.randint(0, 3 * 365 * 24 * 60)),
            )
            article.topics = rng.sample(topics, rng.randint(1, 2))
            article.authors = [rng.choice(authors)]
            blog.add_child(instance=article)
            if number and number % 1000 == 0:
                print(f"  {number} articles generated", flush=True)
    return vocabulary


def percentile(samples, fraction):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def main():
    args = parse_args()
    os.environ["DATABASE_URL"] = prepare_database(args)
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    os.environ.setdefault("MEDIA_ROOT", tempfile.mkdtemp(prefix="cedana-bench-media-"))
    import io

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client, override_settings

    from blog.models import ArticlePage

    rng = random.Random(args.seed)
    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    if args.existing:
        # generate_articles.py titles end in "(<number>)": a number is a word in one article.
        numbered = ArticlePage.objects.filter(slug__startswith="bench-article-").order_by("-pk").first()
        vocabulary = [numbered.slug.rsplit("-", 1)[1] if numbered else "zzqxv"]
        generated = time.perf_counter()
    else:
        call_command("load_demo", "--no-users", stdout=io.StringIO())
        existing = ArticlePage.objects.count()
        vocabulary = generate(max(0, args.articles - existing), rng)
        generated = time.perf_counter()
        call_command("update_index", stdout=io.StringIO(), stderr=io.StringIO())
    if connection.vendor == "postgresql":
        # Fresh tables have no planner statistics until autovacuum gets to them; without them
        # PostgreSQL picks nested loops over the whole index. A deployed site has statistics.
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    indexed = time.perf_counter()
    total = ArticlePage.objects.live().count()
    print(
        f"{connection.vendor}: {total} live articles; generated in {generated - started:.0f} s, "
        f"indexed in {indexed - generated:.0f} s; load average {os.getloadavg()}"
    )

    title_words = " ".join(ArticlePage.objects.order_by("-pk").values_list("title", flat=True)[0].split()[:4])
    rare = vocabulary[len(vocabulary) // 2]
    kinds = [
        ("common word", "/search/", {"query": "gpu"}),
        ("two words", "/search/", {"query": "memory bandwidth"}),
        ("four words", "/search/", {"query": "gpu inference token cache"}),
        ("rare word", "/search/", {"query": rare}),
        ("title words", "/search/", {"query": title_words}),
        ("stemmed word", "/search/", {"query": "checkpointing"}),
        ("no match", "/search/", {"query": "zzqxv"}),
        ("topic + newest", "/search/", {"query": "gpu", "topic": "gpu-costs", "sort": "newest"}),
        ("page 3", "/search/", {"query": "gpu", "page": "3"}),
        ("autocomplete", "/search/autocomplete/", {"q": "che"}),
    ]
    client = Client()
    print(f"{'query kind':<16} {'results':>7} {'first p50':>9} {'first p95':>9} {'repeat p50':>10} {'repeat p95':>10}")
    for label, path, params in kinds:
        for _ in range(3):  # warm caches and connections
            response = client.get(path, params)
            if response.status_code != 200:
                sys.exit(f"{label}: HTTP {response.status_code}")
        # "first": every request computes its results, as the first search for a query after a
        # content change does (SEARCH_RESULTS_CACHE_SECONDS=0); "repeat": from the results cache.
        with override_settings(SEARCH_RESULTS_CACHE_SECONDS=0):
            first = timed(client, path, params, args.repeat)
        repeated = timed(client, path, params, args.repeat)
        response = client.get(path, params)
        content = response.content.decode()
        if path == "/search/":
            marker = content.split('id="result-count">', 1)
            found = marker[1].split(" ", 1)[0] if len(marker) == 2 else "0"
        else:
            found = str(len(response.json()["results"]))
        print(
            f"{label:<16} {found:>7} {statistics.median(first):>9.1f} {percentile(first, 0.95):>9.1f} "
            f"{statistics.median(repeated):>10.1f} {percentile(repeated, 0.95):>10.1f}",
            flush=True,
        )


def timed(client, path, params, repeat) -> list[float]:
    """Wall times in milliseconds of ``repeat`` GET requests."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        client.get(path, params)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


if __name__ == "__main__":
    main()
