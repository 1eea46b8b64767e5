"""CPU per request of a full-page-cache hit against the static file, in process, through the WSGI
application gunicorn serves (``config.wsgi.application``: every middleware, no HTTP server).

Usage (with the benchmark's environment: ``DJANGO_SETTINGS_MODULE=config.settings.production``,
``SECRET_KEY``, ``ALLOWED_HOSTS``, ``DATABASE_URL``, ``STATIC_ROOT`` after collectstatic, and
``REDIS_URL`` or ``CACHE_DIR`` for the cache under test):

    python benchmarks/warm_hit.py [--requests N] [--rounds N] [--gzip] [--profile KIND] [--sort tottime]

Each path is requested until it is a hit (the static file: a 200), then ``--rounds`` times
``--requests`` requests are timed per path, alternating paths, by this process's CPU time
(``time.process_time``, which other programs on a shared machine disturb far less than the wall
clock). Printed: the median CPU microseconds per request of each path and each page's rate as a
share of the static file's (the inverse ratio of their CPU times). ``--profile KIND`` (a page
name below or ``static``) adds a cProfile of that path's requests, timed by CPU.

``--gzip`` sends ``Accept-Encoding: gzip, deflate, br`` as browsers do (wrk and ``make bench`` send
none): WhiteNoise then serves the static file's ``.gz`` copy and hits are compressed.

A response body is consumed as gunicorn consumes it: an iterable is joined; a file WhiteNoise
hands back through ``wsgi.file_wrapper`` is sent with ``os.sendfile`` (to ``/dev/null``).
"""

import argparse
import cProfile
import io
import os
import pstats
import re
import statistics
import sys
import time
from pathlib import Path
from wsgiref.util import FileWrapper

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

from config.wsgi import application  # noqa: E402

# The pages make bench measures (benchmarks/bench.py), and the home page.
PAGES = {
    "home": "/",
    "blog index": "/blog/",
    "topic page": "/blog/inference-performance/",
    "article": "/blog/the-fleets-real-yield-metric-is-tokens-per-gigabyte-of-vram/",
}
HOST = "127.0.0.1"
# Set by --gzip: what a browser sends.
ACCEPT_ENCODING = {}
_devnull = os.open(os.devnull, os.O_WRONLY)


def environ_for(path: str) -> dict:
    """A WSGI environ as gunicorn builds it for ``GET path`` from wrk (no Accept-Encoding unless
    ``--gzip``)."""
    path, _, query = path.partition("?")
    return ACCEPT_ENCODING | {
        "REQUEST_METHOD": "GET",
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_NAME": HOST,
        "SERVER_PORT": "8101",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": f"{HOST}:8101",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.file_wrapper": FileWrapper,
    }


def request(path: str) -> tuple[str, dict]:
    """One request through the WSGI application; returns (status line, headers)."""
    answer = {}

    def start_response(status, headers, exc_info=None):
        answer["status"], answer["headers"] = status, dict(headers)

    result = application(environ_for(path), start_response)
    try:
        if isinstance(result, FileWrapper):
            size = int(answer["headers"]["Content-Length"])
            os.sendfile(_devnull, result.filelike.fileno(), 0, size)
        else:
            b"".join(result)
    finally:
        if hasattr(result, "close"):
            result.close()
    return answer["status"], answer["headers"]


def static_path() -> str:
    """The hashed CSS file the home page links to (as bench.py finds it)."""
    answer = {}

    def start_response(status, headers, exc_info=None):
        answer["status"] = status

    body = b"".join(application(environ_for("/"), start_response))
    match = re.search(rb"/static/css/site\.[0-9a-f]+\.css", body)
    if not match:
        sys.exit(f"the home page answered {answer['status']} without its CSS link")
    return match.group().decode()


def cpu_per_request(path: str, count: int) -> float:
    """CPU microseconds per request over ``count`` requests of ``path``."""
    started = time.process_time()
    for _ in range(count):
        request(path)
    return (time.process_time() - started) / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--gzip", action="store_true", help="send Accept-Encoding: gzip as browsers do")
    parser.add_argument("--profile", help="a page name or 'static': cProfile its requests")
    parser.add_argument("--sort", default="tottime")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()

    paths = {"static": static_path(), **PAGES}  # found in the plain home page
    if args.gzip:
        ACCEPT_ENCODING["HTTP_ACCEPT_ENCODING"] = "gzip, deflate, br"
    for name, path in paths.items():
        for _ in range(3):
            status, headers = request(path)
        if not status.startswith("200") or (name != "static" and headers.get("X-Page-Cache") != "hit"):
            sys.exit(f"{name} {path}: {status}, X-Page-Cache {headers.get('X-Page-Cache')}")

    samples = {name: [] for name in paths}
    for _ in range(args.rounds):
        for name, path in paths.items():
            samples[name].append(cpu_per_request(path, args.requests))
    static = statistics.median(samples["static"])
    print(f"load average {os.getloadavg()[0]:.1f}; {args.rounds} rounds of {args.requests} requests per path")
    for name, values in samples.items():
        median = statistics.median(values)
        share = "" if name == "static" else f"  {static / median:5.0%} of the static file's rate"
        print(f"{name:12} {median:7.0f} us CPU/request (range {min(values):.0f}-{max(values):.0f}){share}")

    if args.profile:
        path = paths[args.profile]
        profiler = cProfile.Profile(time.process_time)
        profiler.runcall(lambda: [request(path) for _ in range(args.requests)])
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats(args.sort).print_stats(args.top)
        print(f"\n{args.profile} {path}: {args.requests} requests, cProfile by CPU time, sorted by {args.sort}")
        print(out.getvalue())


if __name__ == "__main__":
    main()
