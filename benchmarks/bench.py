"""Our site beside the official Wagtail demo (bakerydemo), interleaved, on one machine: ``make bench``.

Issue 14's targets are ratios against bakerydemo measured in the same run, so that a busy shared
machine slows both sides alike. For each database (the embedded default: SQLite with the
machine-local file cache and no ``REDIS_URL``; then PostgreSQL with Redis) this script serves

- our site twice with gunicorn (``gunicorn.conf.py``, 2 sync workers, production settings):
  "cold" (``PAGE_CACHE_SECONDS=0 SEARCH_RESULTS_CACHE_SECONDS=0``: the full-page and search
  results caches off, the rendered fragments warm, as right after a publish) and "warm" (both on:
  full-page cache hits, a repeated search from the results cache);
- bakerydemo (commit 8e2b625) with gunicorn, 2 sync workers, its production settings (WhiteNoise,
  a per-process memory cache: no ``REDIS_URL``) on the same database engine,

and measures them in rounds. Within a round, for each page kind (blog index, topic page, article,
first page of a search, a static CSS file) every server is measured one after the other, seconds
apart: 20 warm-up requests (at most 10 s), then ``wrk -t2 -c16 -d<duration>s --latency``, with the
1-minute load average noted per cell. Each round starts with the "fully cold" probes: every cache
emptied (Redis ``FLUSHDB`` or the cache folder), then one request, a few times per page, on one
connection; bakerydemo's request in its normal state beside it. Ratios are taken per round
(adjacent measurements) and their median is reported with their range.

Usage (from the project root; ``make bench`` passes ``BENCH_ARGS``)::

    python benchmarks/bench.py                 # short: 2 rounds of wrk -d5s, both databases (~10 min)
    python benchmarks/bench.py --long          # 3 rounds of wrk -d15s
    python benchmarks/bench.py --databases sqlite --rounds 1 --duration 3
    python benchmarks/bench.py --write-docs    # also replace the figures in docs/performance.md
    python benchmarks/bench.py --prepare       # only set up the databases (the first run's slow part)
    python benchmarks/bench.py --clean         # drop the peerbench_ databases, remove var/bench/

Needs: ``wrk``; Python 3.11 with ``venv``; for the PostgreSQL part a server at ``BENCH_PG``
(default ``postgres://postgres@127.0.0.1:5432``, databases ``peerbench_ours`` and
``peerbench_bakery`` are created) and ``redis-server`` (a private one is started on
``BENCH_REDIS_PORT``, default 8390, and stopped at the end); bakerydemo's source as a tarball
(``--bakerydemo PATH`` or ``BAKERYDEMO_TARBALL``; default
``../shared/peer-bench/bakerydemo-8e2b625.tar.gz`` beside the checkout; GitHub's
``https://github.com/wagtail/bakerydemo/archive/8e2b625.tar.gz`` works too). Nothing of
bakerydemo is kept in this repository: it is unpacked under ``var/bench/`` (git-ignored) with a
virtualenv of its own (``benchmarks/bakerydemo-requirements.txt``). Ports: ``BENCH_PORT_BASE``
(8300) + 1..3 and + 11..13. Every server this script starts is stopped when it ends (also on
Ctrl-C); the databases stay for the next run until ``--clean``.
"""

import argparse
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = Path(os.environ.get("BENCH_WORK") or ROOT / "var" / "bench")
BAKERY = WORK / "bakerydemo"
DEFAULT_TARBALL = ROOT.parent / "shared" / "peer-bench" / "bakerydemo-8e2b625.tar.gz"
PG = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
PORT_BASE = int(os.environ.get("BENCH_PORT_BASE", "8300"))
REDIS_PORT = int(os.environ.get("BENCH_REDIS_PORT", "8390"))
OUTPUT = ROOT / "docs" / "performance.md"
DOCS_START, DOCS_END = "<!-- bench:peer -->", "<!-- /bench:peer -->"

# Page kinds in the order they are measured, with each site's path. Ours are demo pages
# (blog/demo/fixtures/demo_content.json); bakerydemo's are its own demo's counterparts: its blog
# index, a listing of one kind (breads), a blog post, a search matching many pages. The static
# CSS paths are read from each home page (hashed names).
KINDS = ["blog index", "topic page", "article", "search", "static file"]
OUR_PATHS = {
    "blog index": "/blog/",
    "topic page": "/blog/inference-performance/",
    "article": "/blog/the-fleets-real-yield-metric-is-tokens-per-gigabyte-of-vram/",
    "search": "/search/?query=gpu",
}
BAKERY_PATHS = {
    "blog index": "/blog/",
    "topic page": "/breads/",
    "article": "/blog/bread-circuses/",
    "search": "/search/?q=bread",
}
STATIC_PATTERNS = {"ours": rb"/static/css/site\.[0-9a-f]+\.css", "bakery": rb"/static/css/main\.[0-9a-f]+\.css"}
COLD = {"PAGE_CACHE_SECONDS": "0", "SEARCH_RESULTS_CACHE_SECONDS": "0"}
WARM = {"PAGE_CACHE_SECONDS": "600", "SEARCH_RESULTS_CACHE_SECONDS": "120"}
UNITS_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}


def log(message: str) -> None:
    print(f"[{datetime.now(UTC):%H:%M:%S}] {message}", flush=True)


def run(args: list[str], *, env: dict | None = None, cwd: Path = ROOT, capture: bool = False) -> str:
    """Run a command; stop the benchmark with its output if it fails."""
    result = subprocess.run(args, cwd=cwd, env=env, text=True, capture_output=True)
    if result.returncode:
        sys.exit(f"failed: {' '.join(args)}\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}")
    return result.stdout if capture else ""


def loadavg() -> float:
    return os.getloadavg()[0]


# ---------------------------------------------------------------------------------------------
# The two stacks: environments and setup


def base_env() -> dict:
    """A clean environment (no DATABASE_URL, REDIS_URL or cache settings leak in from the shell)."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "XDG_CACHE_HOME", "DEMO_ILLUSTRATION_CACHE")
    return {key: os.environ[key] for key in keep if key in os.environ}


def our_env(database: str) -> dict:
    """Our production settings for ``database`` ("sqlite": embedded default; "postgres": + Redis)."""
    env = base_env() | {
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": "benchmark-only-key-not-secret-0123456789-abcdefghijklmnopqrstuvwxyz",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "false",
        "SECURE_HSTS_SECONDS": "0",
        "STAFF_MFA_REQUIRED": "false",
        "STATIC_ROOT": str(WORK / "static-ours"),
        "MEDIA_ROOT": str(WORK / f"media-ours-{database}"),
        "LOG_LEVEL": "WARNING",
        "WAGTAILADMIN_BASE_URL": "http://127.0.0.1",
        "WEB_CONCURRENCY": "2",
    }
    if database == "sqlite":
        env |= {"DATABASE_URL": f"sqlite:///{WORK / 'ours.sqlite3'}", "CACHE_DIR": str(WORK / "cache-ours")}
    else:
        env |= {"DATABASE_URL": f"{PG}/peerbench_ours", "REDIS_URL": f"redis://127.0.0.1:{REDIS_PORT}/1"}
    return env


def bakery_env(database: str) -> dict:
    """bakerydemo's production settings (``bakerydemo/settings/production.py``) on ``database``."""
    env = base_env() | {
        "DJANGO_SETTINGS_MODULE": "bakerydemo.settings.production",
        "DJANGO_SECRET_KEY": "benchmark-only-key-not-secret-0123456789",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "False",
        "SECURE_HSTS_SECONDS": "0",
        "DJANGO_LOG_LEVEL": "WARNING",
    }
    if database == "sqlite":
        env["DATABASE_NAME"] = str(WORK / "bakery.sqlite3")
    else:
        env["DATABASE_URL"] = f"{PG}/peerbench_bakery"
    return env


def postgres_database(name: str) -> None:
    """Create the PostgreSQL database ``name`` unless it exists."""
    existing = run(["psql", f"{PG}/postgres", "-tAc", "SELECT datname FROM pg_database"], capture=True).split()
    if name not in existing:
        run(["createdb", "--maintenance-db", f"{PG}/postgres", name])


def extract(tarball: Path, into: Path) -> None:
    """Unpack ``tarball`` into the folder ``into``, nothing outside it.

    Python 3.11.4 and later: tarfile's "data" filter (no absolute or ``../`` paths, no links out of
    the folder, no devices). Before that (Debian 12's 3.11.2) tarfile has no filters, so every
    member is checked first and only files and folders are accepted. A refused member exits with
    a message naming it."""
    with tarfile.open(tarball) as archive:
        if hasattr(tarfile, "data_filter"):
            try:
                archive.extractall(into, filter="data")
            except tarfile.FilterError as error:
                sys.exit(f"{tarball}: refusing {error.tarinfo.name!r} ({error})")
            return
        root = into.resolve()
        for member in archive.getmembers():
            inside = (root / member.name).resolve().is_relative_to(root)
            if not inside or not (member.isfile() or member.isdir()):
                sys.exit(f"{tarball}: refusing {member.name!r} (only files and folders inside the archive)")
        archive.extractall(into)  # noqa: S202 - every member checked above


def unpack_bakerydemo(tarball: Path) -> None:
    """Unpack bakerydemo's source into var/bench/bakerydemo and give it a virtualenv."""
    if not (BAKERY / "manage.py").exists():
        if not tarball.is_file():
            sys.exit(
                f"bakerydemo's source is not at {tarball}.\n"
                "make bench compares this site with wagtail/bakerydemo at commit 8e2b625. Download it, e.g.\n"
                "  curl -L -o /tmp/bakerydemo.tar.gz https://github.com/wagtail/bakerydemo/archive/8e2b625.tar.gz\n"
                "and run: make bench BAKERYDEMO_TARBALL=/tmp/bakerydemo.tar.gz\n"
                "(or pass --bakerydemo PATH to benchmarks/bench.py)."
            )
        log(f"unpacking {tarball}")
        WORK.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=WORK) as scratch:
            extract(tarball, Path(scratch))
            # The top folder is "bakerydemo" or GitHub's "bakerydemo-<commit>".
            found = next(Path(scratch).glob("*/manage.py"), None)
            if found is None:
                sys.exit(f"{tarball} holds no */manage.py: not bakerydemo's source")
            shutil.move(found.parent, BAKERY)
    if not (BAKERY / ".venv" / "bin" / "gunicorn").exists():
        log("bakerydemo: virtualenv and its requirements (benchmarks/bakerydemo-requirements.txt)")
        run([sys.executable, "-m", "venv", str(BAKERY / ".venv")])
        pip = str(BAKERY / ".venv" / "bin" / "pip")
        run([pip, "install", "-q", "-r", str(ROOT / "benchmarks" / "bakerydemo-requirements.txt")])


def prepare(database: str, tarball: Path) -> None:
    """Both sites' databases for ``database``: migrated, demo content loaded once, static files."""
    unpack_bakerydemo(tarball)
    python = str(ROOT / ".venv" / "bin" / "python")
    bakery_python = str(BAKERY / ".venv" / "bin" / "python")
    if database == "postgres":
        postgres_database("peerbench_ours")
        postgres_database("peerbench_bakery")
    env = our_env(database)
    log(f"ours on {database}: migrate")
    run([python, "manage.py", "migrate", "--noinput", "-v0"], env=env)
    marker = WORK / f"ours-{database}.loaded"
    if not marker.exists():
        log(f"ours on {database}: load_demo (the demo's articles and illustrations; minutes the first time)")
        run([python, "manage.py", "load_demo", "--no-users"], env=env)
        if database == "postgres":
            run(["psql", f"{PG}/peerbench_ours", "-qc", "VACUUM ANALYZE"])
        marker.touch()
    run([python, "manage.py", "collectstatic", "--noinput", "-v0"], env=env)
    env = bakery_env(database)
    marker = WORK / f"bakery-{database}.loaded"
    if not marker.exists():
        log(f"bakerydemo on {database}: migrate, load_initial_data")
        run([bakery_python, "manage.py", "migrate", "--noinput", "-v0"], env=env, cwd=BAKERY)
        run([bakery_python, "manage.py", "load_initial_data"], env=env, cwd=BAKERY)
        if database == "postgres":
            run(["psql", f"{PG}/peerbench_bakery", "-qc", "VACUUM ANALYZE"])
        marker.touch()
    run([bakery_python, "manage.py", "collectstatic", "--noinput", "-v0"], env=env, cwd=BAKERY)


# ---------------------------------------------------------------------------------------------
# Servers


class Server:
    """One gunicorn server this script started (stopped by its process id, never by name)."""

    def __init__(self, name: str, site: str, database: str, port: int, extra: dict | None = None):
        self.name, self.site, self.database, self.port = name, site, database, port
        self.base = f"http://127.0.0.1:{port}"
        self.extra = extra or {}
        self.process = None
        self.paths = dict(OUR_PATHS if site == "ours" else BAKERY_PATHS)

    def start(self) -> None:
        (WORK / "logs").mkdir(parents=True, exist_ok=True)
        logfile = (WORK / "logs" / f"{self.name}.log").open("ab")
        if self.site == "ours":
            env = our_env(self.database) | self.extra | {"GUNICORN_BIND": f"127.0.0.1:{self.port}"}
            args = [str(ROOT / ".venv" / "bin" / "gunicorn"), "-c", "gunicorn.conf.py", "config.wsgi"]
            cwd = ROOT
        else:
            # bakerydemo ships no gunicorn configuration: 2 sync workers, as ours.
            env = bakery_env(self.database)
            args = [str(BAKERY / ".venv" / "bin" / "gunicorn"), "-w", "2", "-b", f"127.0.0.1:{self.port}"]
            args.append("bakerydemo.wsgi")
            cwd = BAKERY
        self.process = subprocess.Popen(args, cwd=cwd, env=env, stdout=logfile, stderr=logfile)
        log(f"started {self.name} (pid {self.process.pid}) on {self.base}")

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                sys.exit(f"{self.name} exited: see {WORK / 'logs' / self.name}.log")
            try:
                status, _headers, body = get(self.base + "/")
            except OSError:
                time.sleep(0.5)
                continue
            match = re.search(STATIC_PATTERNS[self.site], body)
            if status != 200 or not match:
                sys.exit(f"{self.name}: the home page answered {status} without its CSS link")
            self.paths["static file"] = match.group().decode()
            return
        sys.exit(f"{self.name} did not answer within 120 s: see {WORK / 'logs' / self.name}.log")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            log(f"stopped {self.name} (pid {self.process.pid})")


class PrivateRedis:
    """A throwaway redis-server on loopback for our PostgreSQL stack (no data saved)."""

    def __init__(self, port: int):
        self.port, self.process = port, None

    def start(self) -> None:
        if not shutil.which("redis-server"):
            sys.exit("redis-server is missing (apt-get install redis-server), or run with --databases sqlite")
        args = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True).returncode:
            if time.monotonic() > deadline or self.process.poll() is not None:
                sys.exit(f"redis-server did not start on port {self.port} (in use?)")
            time.sleep(0.2)
        log(f"started redis-server (pid {self.process.pid}) on port {self.port}")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)
            log(f"stopped redis-server (pid {self.process.pid})")


def empty_caches(database: str) -> None:
    """Empty every cache our site on ``database`` reads: pages, fragments, search results,
    renditions, the generation token (so each worker's site chrome is rebuilt too)."""
    if database == "postgres":
        run(["redis-cli", "-p", str(REDIS_PORT), "-n", "1", "FLUSHDB"])
    else:
        folder = WORK / "cache-ours"
        if folder.exists():
            for child in folder.iterdir():
                shutil.rmtree(child, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Measuring


def get(url: str, timeout: float = 120) -> tuple[int, dict, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 - loopback only
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def warm_up(url: str, count: int = 20, limit: float = 10.0) -> dict:
    """``count`` sequential requests (fewer once ``limit`` seconds have passed): renditions,
    fragments, the page cache; returns the statuses and the last response's X-Page-Cache."""
    started, statuses, headers = time.monotonic(), set(), {}
    for number in range(count):
        status, headers, _body = get(url)
        statuses.add(status)
        if number >= 2 and time.monotonic() - started > limit:
            break
    return {"statuses": sorted(statuses), "x_page_cache": headers.get("X-Page-Cache")}


def parse_wrk(output: str) -> dict:
    """Requests/s, latency percentiles (ms) and error counts from ``wrk --latency`` output."""

    def percentile(number: int):
        match = re.search(rf"^\s+{number}%\s+([\d.]+)(us|ms|s|m)\s*$", output, re.M)
        return float(match.group(1)) * UNITS_MS[match.group(2)] if match else None

    rps = re.search(r"Requests/sec:\s+([\d.]+)", output)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    sockets = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    return {
        "rps": float(rps.group(1)) if rps else 0.0,
        "p50": percentile(50),
        "p99": percentile(99),
        "non2xx": int(non2xx.group(1)) if non2xx else 0,
        "socket_errors": sum(int(n) for n in sockets.groups()) if sockets else 0,
    }


def wrk(url: str, duration: int) -> dict:
    args = ["wrk", "-t2", "-c16", f"-d{duration}s", "--timeout", "10s", "--latency", url]
    output = subprocess.run(args, capture_output=True, text=True, timeout=duration + 120).stdout
    return parse_wrk(output)


def measure_cell(server: Server, kind: str, duration: int) -> dict:
    url = server.base + server.paths[kind]
    record = {"server": server.name, "site": server.site, "kind": kind, "path": server.paths[kind]}
    record |= warm_up(url)
    record["load"] = loadavg()
    record |= wrk(url, duration)
    # Let the workers finish what wrk left queued before the next cell starts.
    get(server.base + "/favicon.ico")
    return record


def fully_cold(cold: Server, bakery: Server, database: str, samples: int) -> list[dict]:
    """One connection: our page right after every cache was emptied, against bakerydemo's page in
    its usual state (it keeps no page or fragment cache); ``samples`` requests each, median ms."""
    records = []
    for kind in KINDS[:-1]:
        ours, theirs = [], []
        for _ in range(samples):
            empty_caches(database)
            started = time.perf_counter()
            status, _headers, _body = get(cold.base + cold.paths[kind])
            ours.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            bakery_status, _headers, _body = get(bakery.base + bakery.paths[kind])
            theirs.append((time.perf_counter() - started) * 1000)
        records.append(
            {
                "kind": kind,
                "ours_ms": statistics.median(ours),
                "bakery_ms": statistics.median(theirs),
                "statuses": sorted({status, bakery_status}),
                "load": loadavg(),
            }
        )
    # Refill what the probes emptied (renditions, fragments) before the next wrk cell.
    for kind in KINDS[:-1]:
        warm_up(cold.base + cold.paths[kind], count=3)
    return records


def measure_database(database: str, rounds: int, duration: int, samples: int) -> dict:
    """Start the three servers of ``database``, run ``rounds`` interleaved rounds, stop them."""
    offset = 0 if database == "sqlite" else 10
    cold = Server(f"ours-{database}-cold", "ours", database, PORT_BASE + offset + 1, COLD)
    warm = Server(f"ours-{database}-warm", "ours", database, PORT_BASE + offset + 2, WARM)
    bakery = Server(f"bakery-{database}", "bakery", database, PORT_BASE + offset + 3)
    servers = [cold, warm, bakery]
    result = {"database": database, "rounds": []}
    try:
        for server in servers:
            server.start()
        for server in servers:
            server.wait_ready()
        for server in servers:
            for kind in KINDS:
                info = warm_up(server.base + server.paths[kind])
                if info["statuses"] != [200]:
                    sys.exit(f"{server.name} {server.paths[kind]} answered {info['statuses']}")
        for number in range(1, rounds + 1):
            log(f"{database}, round {number} of {rounds} (load {loadavg():.1f})")
            round_result = {"uptime": Path("/proc/loadavg").read_text().strip(), "cells": []}
            round_result["fully_cold"] = fully_cold(cold, bakery, database, samples)
            for kind in KINDS:
                for server in [cold, warm, bakery] if kind != "static file" else [warm, bakery]:
                    record = measure_cell(server, kind, duration)
                    round_result["cells"].append(record)
                    p50, p99 = record["p50"] or 0, record["p99"] or 0
                    log(
                        f"  {kind:12} {server.name:22} {record['rps']:8.1f}/s  p50 {p50:7.1f} ms  p99 {p99:7.1f} ms"
                        f"  load {record['load']:.1f}  {record['x_page_cache'] or '-'}"
                    )
            result["rounds"].append(round_result)
    finally:
        for server in servers:
            server.stop()
    return result


# ---------------------------------------------------------------------------------------------
# Report


def _cell(round_result: dict, server_suffix: str, kind: str) -> dict | None:
    for record in round_result["cells"]:
        if record["kind"] == kind and record["server"].endswith(server_suffix):
            return record
    return None


def _spread(values: list[float], fmt: str) -> str:
    """The median of ``values``, with their range when there is more than one."""
    middle = format(statistics.median(values), fmt)
    if len(values) < 2:
        return middle
    return f"{middle} ({format(min(values), fmt)}–{format(max(values), fmt)})"


def _latency(records: list[dict]) -> str:
    p50 = statistics.median([r["p50"] or 0 for r in records])
    p99 = statistics.median([r["p99"] or 0 for r in records])
    return f"{p50:.1f} / {p99:.1f}"


def report(results: list[dict], args, info: dict) -> str:
    """Markdown tables of ``results`` (medians over rounds, ratios per round)."""
    lines = [
        f"Measured {info['date']} on {info['machine']}; {info['software']}. "
        f"Each round: wrk -t2 -c16 -d{args.duration}s per cell after 20 warm-up requests, "
        f"{args.rounds} round(s), the stacks interleaved per page kind. "
        f"Load average (1 min) during the cells: {info['load']} on {os.cpu_count()} cores "
        f"(wrk, both stacks' workers, PostgreSQL and Redis, plus whatever else the machine runs).",
        "",
        "Cells are the median over rounds; a ratio is computed within each round (adjacent cells) "
        "and shown as its median (range).",
    ]
    names = {"sqlite": "Embedded default (SQLite, file cache, no Redis)", "postgres": "PostgreSQL + Redis"}
    for result in results:
        rounds = result["rounds"]
        lines += ["", f"#### {names[result['database']]}", ""]
        lines += [
            'Full-page cache off, fragments warm (ours "cold") against bakerydemo, 16 connections; target ≥ 3×:',
            "",
            "| page | ours req/s | bakerydemo req/s | ours ÷ bakerydemo | ours p50 / p99 ms "
            "| bakerydemo p50 / p99 ms |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for kind in KINDS[:-1]:
            ours = [_cell(r, "-cold", kind) for r in rounds]
            theirs = [_cell(r, "bakery-" + result["database"], kind) for r in rounds]
            ratios = [o["rps"] / t["rps"] for o, t in zip(ours, theirs, strict=True) if t["rps"]]
            lines.append(
                f"| {kind} | {_spread([o['rps'] for o in ours], ',.0f')} "
                f"| {_spread([t['rps'] for t in theirs], ',.0f')} "
                f"| {_spread(ratios, '.2f')}× | {_latency(ours)} | {_latency(theirs)} |"
            )
        lines += [
            "",
            "Fully cold, one connection: ours right after every cache was emptied (pages, fragments, "
            "search results, rendition lookups, site chrome) against bakerydemo's usual request "
            f"(median of {args.samples} per round, ms):",
            "",
            "| page | ours fully cold ms | bakerydemo ms | bakerydemo ms ÷ ours ms |",
            "|---|---:|---:|---:|",
        ]
        for kind in KINDS[:-1]:
            probes = [next(p for p in r["fully_cold"] if p["kind"] == kind) for r in rounds]
            ratios = [p["bakery_ms"] / p["ours_ms"] for p in probes]
            lines.append(
                f"| {kind} | {_spread([p['ours_ms'] for p in probes], '.0f')} "
                f"| {_spread([p['bakery_ms'] for p in probes], '.0f')} | {_spread(ratios, '.2f')}× |"
            )
        lines += [
            "",
            "Warm (ours: full-page cache hits; search from the search results cache) and the static file, "
            "16 connections; targets: a hit ≥ 70% of our static file, p99 < 20 ms; our static file ≥ bakerydemo's:",
            "",
            "| page | ours warm req/s | ÷ our static file | p50 / p99 ms | X-Page-Cache |",
            "|---|---:|---:|---:|---|",
        ]
        for kind in KINDS[:-1]:
            ours = [_cell(r, "-warm", kind) for r in rounds]
            static = [_cell(r, "-warm", "static file") for r in rounds]
            shares = [o["rps"] / s["rps"] for o, s in zip(ours, static, strict=True) if s["rps"]]
            lines.append(
                f"| {kind} | {_spread([o['rps'] for o in ours], ',.0f')} "
                f"| {_spread([x * 100 for x in shares], '.0f')}% "
                f"| {_latency(ours)} | {ours[-1]['x_page_cache'] or '–'} |"
            )
        ours = [_cell(r, "-warm", "static file") for r in rounds]
        theirs = [_cell(r, "bakery-" + result["database"], "static file") for r in rounds]
        ratios = [o["rps"] / t["rps"] for o, t in zip(ours, theirs, strict=True) if t["rps"]]
        lines += [
            "",
            "| static CSS file | ours req/s | bakerydemo req/s | ours ÷ bakerydemo | ours p50 / p99 ms "
            "| bakerydemo p50 / p99 ms |",
            "|---|---:|---:|---:|---:|---:|",
            f"| `{ours[0]['path'].rsplit('/', 1)[1]}` / `{theirs[0]['path'].rsplit('/', 1)[1]}` "
            f"| {_spread([o['rps'] for o in ours], ',.0f')} | {_spread([t['rps'] for t in theirs], ',.0f')} "
            f"| {_spread(ratios, '.2f')}× | {_latency(ours)} | {_latency(theirs)} |",
        ]
        errors = [
            f"{c['server']} {c['kind']}: {c['non2xx']} non-2xx, {c['socket_errors']} socket errors"
            for r in rounds
            for c in r["cells"]
            if c["non2xx"] or c["socket_errors"]
        ]
        lines += ["", f"Errors under load: {'; '.join(errors) if errors else 'none'}."]
    return "\n".join(lines)


def machine_info(results: list[dict]) -> dict:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if "model name" in line
        ),
        platform.processor(),
    )
    versions = run(
        [
            str(ROOT / ".venv" / "bin" / "python"),
            "-c",
            "import django, wagtail; print(django.get_version(), wagtail.__version__)",
        ],
        capture=True,
    ).split()
    loads = [c["load"] for r in results for rnd in r["rounds"] for c in rnd["cells"]]
    return {
        "date": f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        "machine": f"{cpu}, {os.cpu_count()} cores",
        "software": f"Python {platform.python_version()}, Django {versions[0]}, Wagtail {versions[1]} (both sites), "
        "gunicorn 2 sync workers each",
        "load": f"{min(loads):.1f}–{max(loads):.1f} (median {statistics.median(loads):.1f})" if loads else "–",
    }


def write_docs(text: str) -> None:
    """Replace the block between the ``bench:peer`` markers of docs/performance.md."""
    block = f"{DOCS_START}\n{text}\n{DOCS_END}"
    current = OUTPUT.read_text()
    if DOCS_START not in current:
        sys.exit(f"{OUTPUT} has no {DOCS_START} marker to replace")
    pattern = re.escape(DOCS_START) + ".*?" + re.escape(DOCS_END)
    OUTPUT.write_text(re.sub(pattern, lambda _match: block, current, flags=re.S))
    log(f"wrote the figures into {OUTPUT.relative_to(ROOT)}")


def clean() -> None:
    """Drop the benchmark's PostgreSQL databases and remove var/bench/."""
    for name in ("peerbench_ours", "peerbench_bakery"):
        subprocess.run(["dropdb", "--if-exists", "--maintenance-db", f"{PG}/postgres", name], check=False)
    shutil.rmtree(WORK, ignore_errors=True)
    log(f"dropped peerbench_ours and peerbench_bakery, removed {WORK}")


def main() -> None:
    parser = argparse.ArgumentParser(description="Our site against bakerydemo, interleaved (issue 14).")
    parser.add_argument("--long", action="store_true", help="3 rounds of wrk -d15s instead of 2 of -d5s")
    parser.add_argument("--rounds", type=int, help="rounds (default 2, --long 3)")
    parser.add_argument("--duration", type=int, help="seconds of wrk per cell (default 5, --long 15)")
    parser.add_argument("--samples", type=int, default=3, help="fully cold requests per page and round")
    parser.add_argument("--databases", default="sqlite,postgres", help="sqlite, postgres or both (comma-separated)")
    parser.add_argument(
        "--bakerydemo",
        type=Path,
        default=Path(os.environ.get("BAKERYDEMO_TARBALL") or DEFAULT_TARBALL),
        help="tarball of bakerydemo's source (default: $BAKERYDEMO_TARBALL or ../shared/peer-bench/...)",
    )
    parser.add_argument("--write-docs", action="store_true", help="replace the figures in docs/performance.md")
    parser.add_argument("--prepare", action="store_true", help="only set up both sites' databases, then exit")
    parser.add_argument("--clean", action="store_true", help="drop the databases and var/bench/, then exit")
    args = parser.parse_args()
    if args.clean:
        clean()
        return
    args.rounds = args.rounds or (3 if args.long else 2)
    args.duration = args.duration or (15 if args.long else 5)
    databases = [name.strip() for name in args.databases.split(",") if name.strip()]
    if not set(databases) <= {"sqlite", "postgres"}:
        sys.exit("--databases takes sqlite, postgres or sqlite,postgres")
    if not shutil.which("wrk"):
        sys.exit("wrk is missing: apt-get install -y wrk")

    # Ctrl-C or a kill stops every server started here (the finally blocks); a shell starts
    # background jobs with SIGINT ignored, so both signals are set explicitly.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped by SIGTERM: stopping the servers"))
    redis = PrivateRedis(REDIS_PORT)
    results = []
    try:
        if "postgres" in databases:
            redis.start()
        for database in databases:
            prepare(database, args.bakerydemo)
            if args.prepare:
                continue
            results.append(measure_database(database, args.rounds, args.duration, args.samples))
    finally:
        redis.stop()
    if args.prepare:
        return
    stamp = f"{datetime.now(UTC):%Y%m%dT%H%M%S}"
    (WORK / "results").mkdir(parents=True, exist_ok=True)
    (WORK / "results" / f"{stamp}.json").write_text(json.dumps(results, indent=1))
    text = report(results, args, machine_info(results))
    print("\n" + text)
    if args.write_docs:
        write_docs(text)


if __name__ == "__main__":
    main()
