"""Gunicorn settings for production: ``gunicorn -c gunicorn.conf.py config.wsgi``.

Environment: ``WEB_CONCURRENCY`` (worker processes; default 2 x cores + 1, at most 8, the
usual sizing for sync workers on a CPU-bound Django app), ``GUNICORN_BIND`` (default
127.0.0.1:8000, behind a reverse proxy), ``GUNICORN_TIMEOUT`` (seconds, default 30),
``GUNICORN_MAX_REQUESTS`` (recycle a worker after that many requests; default 0, never).
"""

import gc
import multiprocessing
import os

bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY") or min(2 * multiprocessing.cpu_count() + 1, 8))
# Gunicorn's sync worker, with its request loop in one frame-stack chunk: CPython 3.11 otherwise
# maps and unmaps 16 KiB of frame stack each time a render crosses a chunk's end (CPython
# gh-142183; home/upstream/cpython.py).
worker_class = "home.upstream.cpython.OneStackChunkSyncWorker"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
# Keep connections from the proxy open briefly; sync workers serve one request at a time anyway.
keepalive = 5
# Workers are not recycled by default: with max_requests = 2000 each worker was replaced about
# every 2 s under full-page-cache hits (both at once), which cost 31% of the warm rate and put
# warm p99 at 200-400 ms instead of 9-14 ms; a worker held 113 MB after 283,000 requests without
# it (issue 14, measured on this project's 2-core machine). GUNICORN_MAX_REQUESTS turns it back on.
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "0"))
max_requests_jitter = max_requests // 10
# Load the app once in the master: workers share its memory pages and start faster.
preload_app = True
accesslog = os.environ.get("GUNICORN_ACCESS_LOG") or None
# Gunicorn 25+ opens a control socket at ~/.gunicorn/gunicorn.ctl: two servers on one machine
# would share that path, and systemd's ProtectSystem=strict makes it unwritable. We don't use it.
control_socket_disable = True
errorlog = "-"


def post_fork(server, worker):
    """Move everything the preloaded app allocated out of the garbage collector's view: a full
    collection over the loaded app took 92-119 ms every ~150 requests in a worker, 16 ms after
    ``gc.freeze()`` (issue 14); the frozen objects are never freed, which suits app code and
    settings that live as long as the worker."""
    gc.freeze()
