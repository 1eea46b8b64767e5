"""Fully cold pages in process: this checkout against another commit, alternating (issue 14,
section 2: "Everything cold (caches empty): no slower than today").

For each checkout a child process serves the ``make bench`` SQLite database (``bench.py
--prepare`` made it) with production settings and a cache folder of its own, and for every path
empties every cache (``django.core.cache.caches``: pages, fragments, search results, rendition
lookups, the site chrome; a new cache generation empties the per-process memo too) before each
request, then times the request in CPU milliseconds (``time.process_time``, which a busy machine
disturbs far less than the wall clock). Rounds alternate the checkouts; the median of each
round's requests is printed, per path and checkout.

``--depths N`` makes each request at N Python call depths in turn (0, 3, 6... frames deeper), and
the median is over all of them. Why: CPython 3.11 keeps its frames in 16 KB chunks and frees a
chunk as soon as the call that needed it returns (CPython issue gh-142183, fixed from 3.13/3.14
by keeping one chunk), so a render whose depth keeps crossing a chunk boundary maps and faults in
fresh memory again and again; where the boundaries fall depends on how deep the request starts
and on every template and function on the way, so any change to either moves the cost between
nothing and several milliseconds per request (the "minor faults" column shows it; measured: the
same `b41f45e` article from 24 to 1,845 faults per request by the depth it was called at). One
depth measures that alignment as much as the code; several average it out.

``--warm`` times the other state instead: the full-page cache and the search results cache off
(``PAGE_CACHE_SECONDS=0 SEARCH_RESULTS_CACHE_SECONDS=0``, as ``make bench``'s "cold" column),
every fragment and the memo warm from the requests before (``make bench``'s fragments-warm
target), to show a change to the cold path left the warm one alone.

Usage (from the project root, after ``make bench`` or ``bench.py --prepare``)::

    python benchmarks/cold_pages.py --against b41f45e [--rounds 2] [--repeat 7] [--warm] [--depths 20] [--as-served]

``--as-served`` runs each checkout's requests the way its gunicorn worker runs them: inside one
frame-stack chunk (``home.upstream.cpython.call_in_one_stack_chunk``) where the checkout's
``gunicorn.conf.py`` names ``OneStackChunkSyncWorker``, plainly otherwise (``b41f45e``'s plain
sync worker), so that the comparison is of what each commit serves.

It takes about two and a half minutes with ``--rounds 2 --depths 20`` on 2 cores (3 December 2026).
The other commit is checked out with ``git worktree add --detach`` in a temporary folder and
removed at the end; each checkout's static files are collected into a temporary folder first
(production settings read the manifest). Nothing else is written.
"""

import argparse
import json
import os
import runpy
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench import OUR_PATHS, WORK, our_env  # noqa: E402

# The pages ``make bench`` measures (its blog index, topic page, article and search).
PATHS = [OUR_PATHS[kind] for kind in ("blog index", "topic page", "article", "search")]

# Run in the child, inside the checkout: JSON {path: [cpu ms, ...]} on stdout.
CHILD = """
import json, resource, sys, time
import django
django.setup()
from django.core.cache import caches
from django.test import Client
paths, repeat, cold, depths = json.loads(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "cold", int(sys.argv[4])
in_one_chunk = sys.argv[5] == "one-chunk"
client = Client()
if in_one_chunk:  # as the checkout's gunicorn worker runs each request (home/upstream/cpython.py)
    from home.upstream.cpython import call_in_one_stack_chunk

def nested(depth, request):  # the request made ``depth`` Python frames deeper
    return request() if depth == 0 else nested(depth - 1, request)

for path in paths:  # the first request of each path: imports, templates compiled, connections
    client.get(path)
timings, faults = {}, {}
for path in paths:
    timings[path], faults[path] = [], []
    for _ in range(repeat):
        for depth in range(0, 3 * depths, 3) if depths else [0]:
            for alias in caches if cold else ():
                caches[alias].clear()
            faulted = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            started = time.process_time()
            if in_one_chunk:
                response = call_in_one_stack_chunk(nested, depth, lambda: client.get(path))
            else:
                response = nested(depth, lambda: client.get(path))
            timings[path].append((time.process_time() - started) * 1000)
            faults[path].append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faulted)
            assert response.status_code == 200, (path, response.status_code)
print(json.dumps({"timings": timings, "faults": faults}))
"""


def child_env(checkout: Path, folder: Path, warm: bool = False) -> dict:
    """Production settings on the bench's SQLite database, with this checkout's own static files
    and cache folder, every cache-related timing setting as ``make bench`` sets it (``warm``: the
    full-page and search results caches off, as its fragments-warm column)."""
    env = os.environ | our_env("sqlite")
    env |= {
        "CACHE_DIR": str(folder / "cache"),
        "STATIC_ROOT": str(folder / "static"),
        "PYTHONPATH": str(checkout),
        "ALLOWED_HOSTS": "testserver,127.0.0.1,localhost",
    }
    if warm:
        env |= {"PAGE_CACHE_SECONDS": "0", "SEARCH_RESULTS_CACHE_SECONDS": "0"}
    return env


def served_in_one_stack_chunk(checkout: Path) -> bool:
    """Whether ``checkout``'s gunicorn workers run each request in one frame-stack chunk (its
    ``gunicorn.conf.py`` names ``home.upstream.cpython.OneStackChunkSyncWorker``)."""
    conf = checkout / "gunicorn.conf.py"
    if not conf.exists():
        return False
    return runpy.run_path(str(conf)).get("worker_class") == "home.upstream.cpython.OneStackChunkSyncWorker"


def run(
    checkout: Path, folder: Path, repeat: int, warm: bool = False, depths: int = 0, as_served: bool = False
) -> dict:
    """One round in a fresh child process: ``{"timings": {path: [cpu ms, ...]}, "faults": {path:
    [minor page faults, ...]}}`` (``warm``: fragments warm, no cache emptied; ``depths``: each
    request made at that many call depths, 0 to ``3 * (depths - 1)`` frames deeper; ``as_served``:
    each request inside one frame-stack chunk where the checkout's gunicorn worker does that)."""
    chunk = "one-chunk" if as_served and served_in_one_stack_chunk(checkout) else "plain"
    output = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(PATHS), str(repeat), "warm" if warm else "cold", str(depths), chunk],
        cwd=checkout,
        env=child_env(checkout, folder, warm),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def main() -> None:
    # The whole module docstring: what is measured, the prerequisite and the temporary worktree.
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", required=True, help="the commit to compare with, e.g. b41f45e")
    parser.add_argument("--rounds", type=int, default=2, help="rounds, alternating the checkouts (default 2)")
    parser.add_argument(
        "--repeat",
        type=int,
        default=7,
        help="requests per page, call depth and round; the median is printed (default 7)",
    )
    parser.add_argument("--warm", action="store_true", help="fragments warm, full-page cache off, instead of cold")
    parser.add_argument(
        "--depths",
        type=int,
        default=0,
        help="make each request at this many Python call depths (0, 3, 6... frames deeper; 0: as called)",
    )
    parser.add_argument(
        "--as-served",
        action="store_true",
        help="run requests as each checkout's gunicorn worker does (one frame-stack chunk where it names that worker)",
    )
    args = parser.parse_args()
    if not (WORK / "ours.sqlite3").exists():
        sys.exit(f"{WORK / 'ours.sqlite3'} is missing: run `python benchmarks/bench.py --prepare` first")
    with tempfile.TemporaryDirectory(prefix="cold-pages-") as temporary:
        temporary = Path(temporary)
        other = temporary / "other"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(other), args.against], cwd=ROOT, check=True)
        try:
            checkouts = {"this checkout": (ROOT, temporary / "this"), args.against: (other, temporary / "against")}
            for checkout, folder in checkouts.values():
                folder.mkdir()
                subprocess.run(
                    [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
                    cwd=checkout,
                    env=child_env(checkout, folder),
                    check=True,
                )
            medians = {name: {path: [] for path in PATHS} for name in checkouts}
            faults = {name: {path: [] for path in PATHS} for name in checkouts}
            for _ in range(args.rounds):
                for name, (checkout, folder) in checkouts.items():
                    measured = run(checkout, folder, args.repeat, args.warm, args.depths, args.as_served)
                    for path in PATHS:
                        medians[name][path].append(statistics.median(measured["timings"][path]))
                        faults[name][path] += measured["faults"][path]
            load = os.getloadavg()[0]
            state = "Fragments warm, full-page cache off" if args.warm else "Fully cold"
            per_round = args.repeat * max(args.depths, 1)
            depths = f", at {args.depths} call depths" if args.depths else ""
            if args.as_served:
                depths += ", each checkout as its gunicorn worker runs a request"
            print(f"{state}, CPU ms per request, median of {per_round} per round{depths}, {args.rounds} rounds")
            print(f"(alternating; 1-minute load average at the end {load:.1f}):\n")
            print(f"| page | this checkout | {args.against} | ratio | minor faults (median) |")
            print("|---|---:|---:|---:|---:|")
            for path in PATHS:
                ours, theirs = medians["this checkout"][path], medians[args.against][path]
                ratio = statistics.median(o / t for o, t in zip(ours, theirs, strict=True))
                cells = [f"{min(v):.1f}-{max(v):.1f}" for v in (ours, theirs)]
                faulted = " / ".join(f"{statistics.median(faults[name][path]):.0f}" for name in checkouts)
                print(f"| `{path}` | {cells[0]} | {cells[1]} | {ratio:.2f}× | {faulted} |")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(other)], cwd=ROOT, check=False)


if __name__ == "__main__":
    main()
