"""Gunicorn settings for production: ``gunicorn -c gunicorn.conf.py config.wsgi``.

Environment: ``WEB_CONCURRENCY`` (worker processes; default 2 x cores + 1, at most 8, the
usual sizing for sync workers on a CPU-bound Django app), ``GUNICORN_BIND`` (default
127.0.0.1:8000, behind a reverse proxy), ``GUNICORN_TIMEOUT`` (seconds, default 30).
"""

import multiprocessing
import os

bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY") or min(2 * multiprocessing.cpu_count() + 1, 8))
worker_class = "sync"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
# Keep connections from the proxy open briefly; sync workers serve one request at a time anyway.
keepalive = 5
# Recycle workers now and then so slow memory growth never builds up (jitter staggers restarts).
max_requests = 2000
max_requests_jitter = 200
# Load the app once in the master: workers share its memory pages and start faster.
preload_app = True
accesslog = os.environ.get("GUNICORN_ACCESS_LOG") or None
# Gunicorn 25+ opens a control socket at ~/.gunicorn/gunicorn.ctl: two servers on one machine
# would share that path, and systemd's ProtectSystem=strict makes it unwritable. We don't use it.
control_socket_disable = True
errorlog = "-"
