"""Where a search request's time goes, on an existing benchmark database (not part of the tests).

Usage (from the project root; point DATABASE_URL at a database made by
``benchmarks/generate_articles.py``, never a real one)::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cedana_i4_bench \\
        .venv/bin/python benchmarks/search_profile.py [--repeat 20] [--explain]

For each query kind it sends ``--repeat`` requests to ``/search/`` through Django's test client
(after 2 warm-ups) and prints, in milliseconds, the median and 95th percentile of the wall time,
the median CPU time of this process (Python: the view, the ORM, templates; it excludes the
database server's work, so it is less disturbed by other jobs on a shared machine), the
median SQL time (as seen by the client), and the number of queries. ``--explain`` also prints
PostgreSQL's own execution time (``EXPLAIN ANALYZE``, median of 3 runs) of the request's
slowest statement and of all its SELECT statements together: what the database spends,
whatever the machine's load does to the client.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

KINDS = [
    ("common word", {"query": "gpu"}),
    ("two words", {"query": "memory bandwidth"}),
    ("four words", {"query": "gpu inference token cache"}),
    ("rare word", {"query": "prefill"}),
    ("stemmed word", {"query": "checkpointing"}),
    ("no match", {"query": "zzqxv"}),
    ("topic + newest", {"query": "gpu", "topic": "gpu-costs", "sort": "newest"}),
    ("page 3", {"query": "gpu", "page": "3"}),
]


def percentile(samples, fraction):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def explain(connection, sql: str, runs: int = 3) -> tuple[float, int] | None:
    """PostgreSQL's execution time for ``sql`` (EXPLAIN ANALYZE), median of ``runs``, and the
    8 KB buffers it read or found in cache (the work done, which the machine's load does not
    change)."""
    if connection.vendor != "postgresql" or not sql.lstrip().upper().startswith("SELECT"):
        return None
    from django.db import transaction

    times = []
    with transaction.atomic(), connection.cursor() as cursor:
        if "@@" in sql:
            # As search.postgres_backend runs its full-text query.
            cursor.execute("SET LOCAL enable_seqscan = off")
        for _ in range(runs):
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql)
            result = cursor.fetchone()[0][0]
            times.append(result["Execution Time"])
            buffers = result["Plan"]["Shared Hit Blocks"] + result["Plan"]["Shared Read Blocks"]
    return statistics.median(times), buffers


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--explain", action="store_true")
    args = parser.parse_args()

    import django

    django.setup()
    from django.db import connection
    from django.test import Client, override_settings
    from django.test.utils import CaptureQueriesContext

    from blog.models import ArticlePage

    client = Client()
    # Every request computes its results (the results cache would answer all but the first).
    override_settings(SEARCH_RESULTS_CACHE_SECONDS=0).enable()
    print(f"{connection.vendor}: {ArticlePage.objects.live().count()} live articles; load average {os.getloadavg()}")
    header = f"{'query kind':<16} {'wall p50':>8} {'wall p95':>8} {'cpu p50':>8} {'sql p50':>8} {'queries':>7}"
    explained = f" {'EXPLAIN: slowest':>16} {'all SELECTs':>11} {'buffers':>8}"
    print(header + (explained if args.explain else ""))
    for label, params in KINDS:
        for _ in range(2):
            status = client.get("/search/", params).status_code
            if status != 200:
                sys.exit(f"{label}: HTTP {status}")
        walls, cpus, sqls = [], [], []
        for _ in range(args.repeat):
            with CaptureQueriesContext(connection) as captured:
                wall, cpu = time.perf_counter(), time.process_time()
                client.get("/search/", params)
                walls.append((time.perf_counter() - wall) * 1000)
                cpus.append((time.process_time() - cpu) * 1000)
            sqls.append(sum(float(query["time"]) for query in captured.captured_queries) * 1000)
        line = (
            f"{label:<16} {statistics.median(walls):>8.1f} {percentile(walls, 0.95):>8.1f} "
            f"{statistics.median(cpus):>8.1f} {statistics.median(sqls):>8.1f} {len(captured.captured_queries):>7}"
        )
        if args.explain and connection.vendor == "postgresql":
            statements = [query["sql"] for query in captured.captured_queries]
            servers = [result for result in (explain(connection, sql) for sql in statements) if result]
            line += f" {max((ms for ms, _ in servers), default=0):>16.1f}"
            line += f" {sum(ms for ms, _ in servers):>11.1f} {sum(blocks for _, blocks in servers):>8}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
