"""Cold time of every sitemap page, in process: the index and each section page, with every
cache emptied before each request (the first request after a publish, or a crawler's visit to
a page nobody asked for in the generation).

Usage (settings and database from the environment; point DATABASE_URL at a benchmark database,
e.g. one filled by ``benchmarks/generate_articles.py 10000``):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cedana_bench PAGE_CACHE_SECONDS=0 \
        python benchmarks/sitemap_latency.py [--repeat 5] [--pages 20]

Prints, per sitemap page, its size, the number of URLs, and the median and worst wall and CPU
milliseconds over ``--repeat`` requests; ``--pages`` bounds how many section pages are timed
(the index lists them all). Not part of the tests: a figure for docs/performance.md.
"""

import argparse
import os
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")

import django  # noqa: E402

django.setup()

from django.core.cache import caches  # noqa: E402
from django.test import Client  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="cold requests per sitemap page (default 5)")
    parser.add_argument("--pages", type=int, default=20, help="section pages to time at most (default 20)")
    parser.add_argument("--host", default="localhost", help="Host header (a Wagtail site's hostname)")
    args = parser.parse_args()
    client = Client(HTTP_HOST=args.host)
    index = client.get("/sitemap.xml")
    if index.status_code != 200:
        sys.exit(f"/sitemap.xml answered {index.status_code}")
    sections = [url.split(args.host, 1)[-1] for url in re.findall(r"<loc>([^<]+)</loc>", index.content.decode())]
    print(f"{len(sections)} section pages in the index; load average {os.getloadavg()}")
    print(f"{'page':50s} {'bytes':>8s} {'URLs':>5s} {'wall p50':>9s} {'wall max':>9s} {'CPU p50':>8s}")
    for path in ["/sitemap.xml", *sections[: args.pages]]:
        wall, cpu = [], []
        for _ in range(args.repeat):
            for alias in caches:
                caches[alias].clear()
            started, started_cpu = time.perf_counter(), time.process_time()
            response = client.get(path)
            wall.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - started_cpu) * 1000)
            if response.status_code != 200:
                sys.exit(f"{path} answered {response.status_code}")
        urls = response.content.count(b"<loc>")
        print(
            f"{path:50s} {len(response.content):8d} {urls:5d} {statistics.median(wall):9.1f}"
            f" {max(wall):9.1f} {statistics.median(cpu):8.1f}"
        )


if __name__ == "__main__":
    main()
