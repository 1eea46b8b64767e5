"""Profile one page in process: time per request, each SQL query with its time and the project
line that ran it, and the functions where the time goes (cProfile).

Usage (with the benchmark's environment, e.g. DATABASE_URL of the benchmark database and
PAGE_CACHE_SECONDS=0 so every request renders):

    python benchmarks/profile_page.py PATH [--repeat N] [--top N] [--explain] [--sort cumulative]
                                           [--profile-requests N] [--cpu]

The path is requested once first (renditions, Wagtail's site cache, the site chrome cache), then
``--repeat`` times (default 50) for the timings; one more request is captured query by query,
and ``--profile-requests`` (default 1) under cProfile (``--cpu``: timed by this process's CPU
time, which a busy shared machine disturbs far less than the wall clock). ``--explain`` prints
PostgreSQL's ``EXPLAIN ANALYZE`` of each query. Output is plain text for a terminal or
docs/performance.md; nothing is written.
"""

import argparse
import cProfile
import io
import os
import pstats
import statistics
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402


def _origin() -> str:
    """The innermost stack frame in this project's code (not the venv, not this script)."""
    for frame in reversed(traceback.extract_stack()[:-2]):
        path = Path(frame.filename)
        if ROOT in path.parents and ".venv" not in path.parts and path.name != "profile_page.py":
            return f"{path.relative_to(ROOT)}:{frame.lineno} {frame.name}"
    return "(framework)"


class QueryLog:
    """A ``connection.execute_wrapper`` that records (ms, origin, sql, params) per query."""

    def __init__(self):
        self.queries = []

    def __call__(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.queries.append(((time.perf_counter() - started) * 1000, _origin(), sql, params))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--explain", action="store_true")
    parser.add_argument("--sort", default="tottime", help="cProfile order: tottime (own time) or cumulative")
    parser.add_argument(
        "--profile-requests", type=int, default=1, help="requests profiled together (more: less noise per function)"
    )
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="profile this process's CPU time instead of the wall clock (on a busy machine the wall clock "
        "charges other programs' time to whichever function was running)",
    )
    args = parser.parse_args()

    client = Client(HTTP_HOST="127.0.0.1")
    response = client.get(args.path)
    if response.status_code != 200:
        sys.exit(f"{args.path} answered {response.status_code}")

    times, cpu_times = [], []
    for _ in range(args.repeat):
        started, cpu_started = time.perf_counter(), time.process_time()
        client.get(args.path)
        times.append((time.perf_counter() - started) * 1000)
        cpu_times.append((time.process_time() - cpu_started) * 1000)
    times.sort()
    cpu_times.sort()
    # CPU time is this process's own work (Python, templates, the database driver), which other
    # programs on a shared machine slow down far less than they slow down the wall clock.
    print(
        f"{args.path}: {args.repeat} requests, wall mean {statistics.mean(times):.1f} ms, "
        f"p50 {times[len(times) // 2]:.1f} ms, min {times[0]:.1f} ms, max {times[-1]:.1f} ms; "
        f"CPU p50 {cpu_times[len(cpu_times) // 2]:.1f} ms, min {cpu_times[0]:.1f} ms"
    )

    log = QueryLog()
    with connection.execute_wrapper(log):
        started = time.perf_counter()
        client.get(args.path)
        total = (time.perf_counter() - started) * 1000
    sql_ms = sum(ms for ms, *_ in log.queries)
    print(f"\n{len(log.queries)} SQL queries, {sql_ms:.1f} ms of {total:.1f} ms ({sql_ms / total:.0%}):")
    for number, (ms, origin, sql, params) in enumerate(log.queries, start=1):
        print(f"{number:3}. {ms:7.2f} ms  {origin}\n       {sql[:400]}")
        if args.explain and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN ANALYZE " + sql, params)
                print("\n".join("         " + row[0] for row in cursor.fetchall()))

    profiler = cProfile.Profile(time.process_time) if args.cpu else cProfile.Profile()
    for _ in range(args.profile_requests):
        profiler.runcall(client.get, args.path)
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).sort_stats(args.sort)
    stats.print_stats(args.top)
    clock = "CPU time" if args.cpu else "wall clock"
    print(f"\nFunctions by {args.sort} (cProfile, {clock}, {args.profile_requests} request(s)):")
    print(out.getvalue())


if __name__ == "__main__":
    main()
