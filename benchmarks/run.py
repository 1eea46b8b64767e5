"""Benchmark the production stack and write docs/performance.md. Run by ``make bench-growth``.

Steps: create and fill a separate PostgreSQL database with N articles (``generate_articles.py``),
collect static files, then for each mode start gunicorn with the production settings on a
loopback port and run wrk (10 s, 2 threads, 16 connections) against each page:

- cold: PAGE_CACHE_SECONDS=0 and SEARCH_RESULTS_CACHE_SECONDS=0, every request renders
  (database, templates) and every search runs its full-text query;
- warm: PAGE_CACHE_SECONDS=600 with Redis, pages come from the full-page cache and a repeated
  search's results from the search results cache (search/views.py).

Also records each page's SQL query count and each worker's peak memory (VmHWM).

Environment: BENCH_ARTICLES (default 1000), BENCH_DATABASE_URL (default
postgres://postgres@127.0.0.1:5432/cedana_bench; created if missing; its content is replaced),
BENCH_REDIS_URL (default redis://127.0.0.1:6379/0), BENCH_PORT (default 8089),
BENCH_DURATION (seconds per run, default 10), BENCH_OUTPUT (default docs/performance.md).
"""

import json
import os
import platform
import re
import signal
import subprocess
import sys
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = str(ROOT / ".venv" / "bin" / "python")
GUNICORN = str(ROOT / ".venv" / "bin" / "gunicorn")
ARTICLES = int(os.environ.get("BENCH_ARTICLES", "1000"))
DATABASE_URL = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/cedana_bench")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
PORT = int(os.environ.get("BENCH_PORT", "8089"))
DURATION = int(os.environ.get("BENCH_DURATION", "10"))
OUTPUT = Path(os.environ.get("BENCH_OUTPUT", ROOT / "docs" / "performance.md"))
BASE = f"http://127.0.0.1:{PORT}"
WORKERS = 2

ENV = {
    **os.environ,
    "DJANGO_SETTINGS_MODULE": "config.settings.production",
    "DATABASE_URL": DATABASE_URL,
    "REDIS_URL": REDIS_URL,
    "SECRET_KEY": "benchmark-only-key-not-secret-0123456789-abcdefghijklmnopqrstuvwxyz",
    "ALLOWED_HOSTS": "127.0.0.1,localhost",
    "SECURE_SSL_REDIRECT": "false",
    "STATIC_ROOT": str(ROOT / "var" / "bench-static"),
    "MEDIA_ROOT": str(ROOT / "var" / "bench-media"),
    "LOG_LEVEL": "WARNING",
}


def run(*args, env=None, capture=False):
    """Run a command from the project root; stop the benchmark if it fails."""
    result = subprocess.run(args, cwd=ROOT, env=env or ENV, check=True, text=True, capture_output=capture)
    return result.stdout if capture else None


def prepare_database() -> None:
    name = DATABASE_URL.rsplit("/", 1)[1]
    server = DATABASE_URL.rsplit("/", 1)[0] + "/postgres"
    existing = run("psql", server, "-tAc", "SELECT datname FROM pg_database", capture=True).split()
    if name not in existing:
        run("createdb", "--maintenance-db", server, name)
    run(PY, "manage.py", "migrate", "--noinput", "-v0")
    run(PY, "manage.py", "load_demo", "--no-users")
    run(PY, "benchmarks/generate_articles.py", str(ARTICLES))
    run(PY, "manage.py", "collectstatic", "--noinput", "-v0")


def page_paths() -> dict[str, str]:
    """The benchmarked paths, looked up in the benchmark database."""
    script = (
        "import json, math\n"
        "from django.conf import settings\n"
        "from django.contrib.staticfiles.storage import staticfiles_storage\n"
        "from blog.models import ArticlePage, TopicPage\n"
        "last = math.ceil(ArticlePage.objects.listed().count() / settings.BLOG_PAGE_SIZE)\n"
        "article = ArticlePage.objects.listed().first()\n"
        "topic = TopicPage.objects.live().order_by('title').first()\n"
        "print(json.dumps({'home': '/', 'blog index, page 1': '/blog/',"
        " 'blog index, last page': f'/blog/?page={last}', 'topic page': topic.url,"
        " 'article': article.url, 'search': '/search/?query=gpu', 'RSS feed': '/blog/feed/rss/',"
        " 'sitemap index': '/sitemap.xml', 'sitemap of articles': '/sitemap-blog-articlepage.xml',"
        " 'static file (CSS)': staticfiles_storage.url('css/site.css')}))\n"
    )
    return json.loads(run(PY, "manage.py", "shell", "-v0", "-c", script, capture=True).strip().splitlines()[-1])


def query_counts(paths: dict[str, str]) -> dict[str, int | str]:
    pages = [path for name, path in paths.items() if not name.startswith("static")]
    env = {**ENV, "PAGE_CACHE_SECONDS": "0", "SEARCH_RESULTS_CACHE_SECONDS": "0"}
    return json.loads(run(PY, "benchmarks/query_counts.py", *pages, env=env, capture=True).strip().splitlines()[-1])


def start_gunicorn(page_cache_seconds: int) -> subprocess.Popen:
    env = {
        **ENV,
        "PAGE_CACHE_SECONDS": str(page_cache_seconds),
        "SEARCH_RESULTS_CACHE_SECONDS": str(min(page_cache_seconds, 120)),
        "WEB_CONCURRENCY": str(WORKERS),
        "GUNICORN_BIND": f"127.0.0.1:{PORT}",
    }
    server = subprocess.Popen([GUNICORN, "-c", "gunicorn.conf.py", "config.wsgi"], cwd=ROOT, env=env)
    for _ in range(100):
        try:
            urllib.request.urlopen(f"{BASE}/", timeout=5).read()  # noqa: S310 - loopback only
            return server
        except OSError:
            time.sleep(0.3)
    server.terminate()
    sys.exit("gunicorn did not start")


def worker_peak_rss_mb(server: subprocess.Popen) -> list[float]:
    """Peak resident memory (VmHWM) of each gunicorn worker, in MB."""
    children = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
    peaks = []
    for pid in children:
        match = re.search(r"VmHWM:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
        if match:
            peaks.append(int(match.group(1)) / 1024)
    return peaks


def wrk(path: str) -> dict:
    """Run wrk against ``path``; returns requests/s, p50 and p99 in ms, and error count."""
    # Warm-up: renditions, connections, the page cache. Generous timeout: the workers may still
    # be answering the requests wrk left queued for a slow page (search) when it stopped.
    for _ in range(3):
        urllib.request.urlopen(BASE + path, timeout=180).read()  # noqa: S310 - loopback only
    out = run("wrk", "-t2", "-c16", f"-d{DURATION}s", "--timeout", "5s", "--latency", BASE + path, capture=True)
    units = {"us": 0.001, "ms": 1.0, "s": 1000.0}

    def latency(percent):
        value, unit = re.search(rf"^\s+{percent}%\s+([\d.]+)(us|ms|s)\s*$", out, re.M).groups()
        return float(value) * units[unit]

    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: (.*)", out)
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "p50": latency(50),
        "p99": latency(99),
        "errors": int(errors.group(1)) if errors else 0,
        "socket_errors": socket_errors.group(1) if socket_errors else "",
    }


def versions() -> dict[str, str]:
    script = "import django, wagtail, gunicorn; print(django.get_version(), wagtail.__version__, gunicorn.__version__)"
    django_v, wagtail_v, gunicorn_v = run(PY, "-c", script, capture=True).split()
    cpu = ""
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    postgres = run("psql", DATABASE_URL, "-tAc", "SHOW server_version", capture=True).strip()
    redis = run("redis-cli", "-u", REDIS_URL, "INFO", "server", capture=True)
    redis_v = re.search(r"redis_version:(\S+)", redis).group(1)
    wrk_v = subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout.split()[1]
    return {
        "machine": f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}",
        "software": f"Python {platform.python_version()}, Django {django_v}, Wagtail {wagtail_v}, "
        f"gunicorn {gunicorn_v} ({WORKERS} sync workers), PostgreSQL {postgres}, Redis {redis_v}, wrk {wrk_v}",
    }


def write_report(paths, counts, results, memory, info) -> None:
    # Each mode's ratio uses the static file measured in the same run (the machine's load varies).
    static_rps = results["warm"]["static file (CSS)"]["rps"]
    lines = [
        f"### {ARTICLES:,} articles",
        "",
        f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {info['machine']}; {info['software']}. "
        f"wrk -t2 -c16 -d{DURATION}s per row, against 127.0.0.1. "
        f"Load average (1 min) {info['load']}."
        + (
            " **The machine was busy with other work during the runs**, so figures are low and noisy."
            if info["busy"]
            else " wrk, gunicorn, PostgreSQL and Redis share the two cores."
        ),
        "",
        "| page | path | SQL queries | cold req/s | cold p50 / p99 (ms) | warm req/s | warm p50 / p99 (ms) "
        "| warm ÷ static (same run) |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, path in paths.items():
        cold = results["cold"].get(name)
        warm = results["warm"].get(name, cold)
        lines.append(
            f"| {name} | `{path}` | {counts.get(path, '–')} "
            f"| {cold['rps']:,.0f} | {cold['p50']:.1f} / {cold['p99']:.1f} "
            f"| {warm['rps']:,.0f} | {warm['p50']:.1f} / {warm['p99']:.1f} | {warm['rps'] / static_rps:.0%} |"
        )
    errors = {f"{mode}: {name}": r for mode in results for name, r in results[mode].items() if r["errors"]}
    lines += [
        "",
        f"Peak memory per worker (VmHWM): cold {', '.join(f'{m:.0f} MB' for m in memory['cold'])}; "
        f"warm {', '.join(f'{m:.0f} MB' for m in memory['warm'])}.",
        f"Error responses: {errors or 'none'}.",
        "",
    ]
    marker_start, marker_end = f"<!-- bench:{ARTICLES} -->", f"<!-- /bench:{ARTICLES} -->"
    block = "\n".join([marker_start, *lines, marker_end])
    text = OUTPUT.read_text() if OUTPUT.exists() else "# Performance\n\n<!-- bench results -->\n"
    if marker_start in text:
        text = re.sub(re.escape(marker_start) + ".*?" + re.escape(marker_end), lambda _: block, text, flags=re.S)
    else:
        text = text.replace("<!-- bench results -->", f"<!-- bench results -->\n{block}\n", 1)
    OUTPUT.write_text(text)
    print(block)


def main() -> None:
    loads = []
    prepare_database()
    paths = page_paths()
    counts = query_counts(paths)
    print("query counts:", counts, flush=True)
    results, memory = {}, {}
    for mode, seconds in (("cold", 0), ("warm", 600)):
        run("redis-cli", "-u", REDIS_URL, "FLUSHDB")
        server = start_gunicorn(seconds)
        try:
            results[mode] = {}
            for name, path in paths.items():
                loads.append(os.getloadavg()[0])
                results[mode][name] = wrk(path)
                print(mode, name, results[mode][name], flush=True)
            memory[mode] = worker_peak_rss_mb(server)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
    info = versions()
    info["load"] = f"{min(loads):.1f}–{max(loads):.1f} on {os.cpu_count()} cores during the runs"
    # wrk and the server keep the 1-minute load near 2-3 on two cores; more means other work.
    info["busy"] = max(loads) > 2 * (os.cpu_count() or 1)
    write_report(paths, counts, results, memory, info)


if __name__ == "__main__":
    main()
