"""Load and fault runs against the production stack; ``make faults``. Loopback only, bounded.

Starts its **own** throwaway PostgreSQL cluster (``initdb``/``pg_ctl`` from
``/usr/lib/postgresql/*/bin``, run as the ``postgres`` OS user, data under a temporary folder)
and its own ``redis-server`` (no persistence), so the machine's shared PostgreSQL and Redis are
never touched; loads the demo content, collects static files, and serves the site with gunicorn
and the production settings (Redis page and rendition caches). Then:

1. **load**: wrk, ``FAULTS_LOAD_SECONDS`` (60) at 64 connections, rotating over the home page,
   the blog index, a topic, an article, a search and the RSS feed: counts of each status class.
2. **PostgreSQL restarted** under load (wrk, 16 connections): stopped (``pg_ctl -m fast``),
   down for ``FAULTS_DOWN_SECONDS`` (10), started again; the app is not restarted. Pass: no 5xx
   before the stop nor after the restart (3 s margin for the log's one-second timestamps), no
   500 while down; while down, every uncached page probed (a search, an article, a topic and the
   API, none requested before) gets the styled 503 page with ``Retry-After``, and every rotated
   page (all but the search) is still served as a cache hit.
3. **Redis stopped** under load, then a fresh one started: pass: no 5xx at all; pages are
   rendered uncached while Redis is down (``X-Page-Cache: miss``) and cache hits come back.
4. **Scheduler killed** (SIGKILL) and restarted: an article whose go-live passed while no
   scheduler ran is published, and an article whose expiry passed is taken down, by the
   restarted one, although two revisions due just before them cannot be published (one's slug
   is a sibling's, the other's parent was unpublished meanwhile). Pass: live / expired within
   90 s of the restart; both failing revisions still scheduled, their pages unchanged, and
   reported: recorded, e-mailed to the moderators (a loopback SMTP sink, port base + 3), on the
   moderator's dashboard panel and under ``scheduled_failures`` in ``/readyz`` (still 200).
5. **Nothing lost**: a draft (two revisions), an uploaded image and a document made before the
   faults are compared after them (counts, revision contents, media files' SHA-256).

Statuses come from gunicorn's access log (every request, one-second timestamps). Results go to
``docs/reliability.md`` between ``<!-- faults -->`` markers and to stdout; the exit status is 1
when a check fails. Ports: ``FAULTS_PORT_BASE`` (8710: PostgreSQL, +1 Redis, +2 gunicorn, +3 SMTP).
Takes about 8 minutes on an idle 2-core machine.
"""

import email
import json
import os
import platform
import re
import shutil
import signal
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = str(ROOT / ".venv" / "bin" / "python")
GUNICORN = str(ROOT / ".venv" / "bin" / "gunicorn")
PORT_BASE = int(os.environ.get("FAULTS_PORT_BASE", "8710"))
PG_PORT, REDIS_PORT, APP_PORT, SMTP_PORT = PORT_BASE, PORT_BASE + 1, PORT_BASE + 2, PORT_BASE + 3
LOAD_SECONDS = int(os.environ.get("FAULTS_LOAD_SECONDS", "60"))
DOWN_SECONDS = int(os.environ.get("FAULTS_DOWN_SECONDS", "10"))
OUTPUT = Path(os.environ.get("FAULTS_OUTPUT", ROOT / "docs" / "reliability.md"))
BASE = f"http://127.0.0.1:{APP_PORT}"
DB_NAME = "cedana_i7_faults"
# Access log line: [30/Nov/2026:12:40:01 +0000] 200 "/blog/" hit
ACCESS_FORMAT = '%(t)s %(s)s "%(U)s" %({x-page-cache}o)s'
ACCESS_LINE = re.compile(r'^\[(?P<t>[^\]]+)\] (?P<status>\d{3}) "(?P<path>[^"]*)" (?P<cache>\S+)')

WRK_SCRIPT = """
local paths = {%s}
local counter = 0
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) s2, s3, s4, s5 = 0, 0, 0, 0 end
function request()
  counter = counter + 1
  return wrk.format("GET", paths[(counter %% #paths) + 1])
end
function response(status, headers, body)
  if status >= 500 then s5 = s5 + 1 elseif status >= 400 then s4 = s4 + 1
  elseif status >= 300 then s3 = s3 + 1 else s2 = s2 + 1 end
end
function done(summary, latency, requests)
  local t = {0, 0, 0, 0}
  for _, thread in ipairs(threads) do
    t[1] = t[1] + thread:get("s2"); t[2] = t[2] + thread:get("s3")
    t[3] = t[3] + thread:get("s4"); t[4] = t[4] + thread:get("s5")
  end
  io.write(string.format("STATUS 2xx=%%d 3xx=%%d 4xx=%%d 5xx=%%d\\n", t[1], t[2], t[3], t[4]))
end
"""


def pg_bin(name: str) -> str:
    """The newest installed PostgreSQL's binary, e.g. /usr/lib/postgresql/15/bin/pg_ctl."""
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name))
    if not versions:
        sys.exit("PostgreSQL server binaries not found under /usr/lib/postgresql (apt-get install postgresql)")
    return str(versions[-1] / name)


def as_postgres(*args: str) -> list[str]:
    """PostgreSQL refuses to run as root: run its tools as the postgres OS user when we are root."""
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else list(args)


class Stack:
    """The throwaway PostgreSQL, Redis and gunicorn, and the scheduler, all under one temp folder."""

    def __init__(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="cedana-faults-"))
        self.tmp.chmod(0o755)
        self.pgdata = self.tmp / "pgdata"
        self.access_log = self.tmp / "access.log"
        self.redis = self.gunicorn = self.scheduler = None
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "DATABASE_URL": f"postgres://postgres@127.0.0.1:{PG_PORT}/{DB_NAME}",
            "REDIS_URL": f"redis://127.0.0.1:{REDIS_PORT}/0",
            "SECRET_KEY": "fault-run-only-key-not-secret-0123456789-abcdefghijklmnopqrstuvwxyz",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECURE_SSL_REDIRECT": "false",
            "STATIC_ROOT": str(self.tmp / "static"),
            "MEDIA_ROOT": str(self.tmp / "media"),
            "LOG_LEVEL": "WARNING",
            "WAGTAILADMIN_BASE_URL": BASE,
            # The scheduler's e-mails to the moderators go to the run's own SMTP sink.
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(SMTP_PORT),
        }

    def run(self, *args: str, capture: bool = False) -> str:
        result = subprocess.run(args, cwd=ROOT, env=self.env, check=True, text=True, capture_output=capture)
        return result.stdout if capture else ""

    def state(self, *args: str, **env: str) -> dict:
        """Run benchmarks/faults_state.py with the stack's settings (and ``env``); its JSON answer."""
        result = subprocess.run(
            [PY, "benchmarks/faults_state.py", *args],
            cwd=ROOT,
            env={**self.env, **env},
            check=True,
            text=True,
            capture_output=True,
        )
        return json.loads(result.stdout.strip().splitlines()[-1])

    # PostgreSQL
    def pg_init(self) -> None:
        self.pgdata.mkdir()
        if os.geteuid() == 0:
            shutil.chown(self.pgdata, "postgres", "postgres")
        subprocess.run(
            as_postgres(pg_bin("initdb"), "-D", str(self.pgdata), "-A", "trust", "-U", "postgres", "--no-sync"),
            check=True,
            capture_output=True,
        )

    def pg_start(self) -> None:
        options = f"-p {PG_PORT} -k {self.pgdata} -c listen_addresses=127.0.0.1"
        log = str(self.pgdata / "server.log")
        subprocess.run(
            as_postgres(pg_bin("pg_ctl"), "-D", str(self.pgdata), "-l", log, "-o", options, "-w", "start"),
            check=True,
            capture_output=True,
        )

    def pg_stop(self) -> None:
        subprocess.run(
            as_postgres(pg_bin("pg_ctl"), "-D", str(self.pgdata), "-m", "fast", "-w", "stop"),
            check=False,
            capture_output=True,
        )

    # Redis
    def redis_start(self) -> None:
        self.redis = subprocess.Popen(
            ["redis-server", "--port", str(REDIS_PORT), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            cwd=self.tmp,
            stdout=subprocess.DEVNULL,
        )
        for _ in range(50):
            if subprocess.run(["redis-cli", "-p", str(REDIS_PORT), "ping"], capture_output=True).returncode == 0:
                return
            time.sleep(0.1)
        sys.exit("redis-server did not start")

    def redis_stop(self) -> None:
        if self.redis and self.redis.poll() is None:
            self.redis.terminate()
            self.redis.wait(timeout=30)

    def redis_keys(self) -> int:
        out = subprocess.run(["redis-cli", "-p", str(REDIS_PORT), "DBSIZE"], capture_output=True, text=True)
        return int(out.stdout.strip() or 0)

    # The application
    def gunicorn_start(self) -> None:
        env = {**self.env, "GUNICORN_BIND": f"127.0.0.1:{APP_PORT}", "GUNICORN_ACCESS_LOG": str(self.access_log)}
        # Errors (tracebacks of the 500s while PostgreSQL is down, ignored Redis errors) go to a file.
        self.gunicorn = subprocess.Popen(
            [GUNICORN, "-c", "gunicorn.conf.py", "--access-logformat", ACCESS_FORMAT, "config.wsgi"],
            cwd=ROOT,
            env=env,
            stderr=(self.tmp / "gunicorn-errors.log").open("ab"),
        )
        for _ in range(200):
            try:
                urllib.request.urlopen(f"{BASE}/healthz", timeout=5).read()  # noqa: S310 - loopback only
                return
            except OSError:
                time.sleep(0.3)
        sys.exit("gunicorn did not start")

    def scheduler_start(self) -> None:
        self.scheduler = subprocess.Popen(
            [PY, "manage.py", "run_scheduler"],
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )

    def stop_all(self) -> None:
        for process in (self.scheduler, self.gunicorn):
            if process and process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
        self.redis_stop()
        if self.pgdata.exists():
            self.pg_stop()
        shutil.rmtree(self.tmp, ignore_errors=True)


class SMTPSink(socketserver.ThreadingTCPServer):
    """A loopback SMTP server that keeps each message's recipients and text in ``messages``.

    Our own because Python's ``smtpd`` is deprecated and aiosmtpd is not a dependency; it speaks
    just the commands Django's SMTP backend sends (EHLO/HELO, MAIL, RCPT, DATA, RSET, NOOP, QUIT).
    """

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port: int):
        self.messages: list[dict] = []
        super().__init__(("127.0.0.1", port), SMTPHandler)
        threading.Thread(target=self.serve_forever, daemon=True).start()


class SMTPHandler(socketserver.StreamRequestHandler):
    def reply(self, line: str) -> None:
        self.wfile.write(f"{line}\r\n".encode())

    def handle(self) -> None:
        self.reply("220 faults SMTP sink")
        recipients = []
        for raw in self.rfile:
            command = raw.decode("utf-8", "replace").strip()
            verb = command[:4].upper()
            if verb == "DATA":
                self.reply("354 end with <CRLF>.<CRLF>")
                lines = []
                for data in self.rfile:
                    if data in (b".\r\n", b".\n"):
                        break
                    lines.append(data.decode("utf-8", "replace"))
                message = email.message_from_string("".join(lines).replace("\n..", "\n."))
                body = message.get_payload(decode=True) if not message.is_multipart() else b""
                text = f"{message['Subject']}\n{body.decode('utf-8', 'replace')}"
                self.server.messages.append({"to": recipients, "text": text})
                recipients = []
                self.reply("250 queued")
            elif verb == "RCPT":
                recipients.append(command.partition(":")[2].strip(" <>"))
                self.reply("250 ok")
            elif verb == "QUIT":
                self.reply("221 bye")
                return
            else:  # EHLO, HELO, MAIL, RSET, NOOP
                self.reply("250 ok")


def fetch(path: str) -> tuple[int, dict, str]:
    """GET a loopback URL: (status, headers, body text); status 0 when the connection failed."""
    try:
        with urllib.request.urlopen(BASE + path, timeout=30) as response:  # noqa: S310 - loopback only
            return response.status, dict(response.headers), response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode("utf-8", "replace")
    except OSError:
        return 0, {}, ""


def get(path: str) -> tuple[int, dict]:
    """GET a loopback URL: (status, headers); status 0 when the connection failed."""
    status, headers, _ = fetch(path)
    return status, headers


def wrk(stack: Stack, paths: list[str], seconds: int, connections: int) -> dict:
    """Run wrk over ``paths`` in turn; requests/s, latency percentiles (ms) and status counts."""
    script = stack.tmp / "rotate.lua"
    script.write_text(WRK_SCRIPT % ", ".join(json.dumps(p) for p in paths))
    threads = min(2, connections)
    out = stack.run(
        "wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s", "--latency",
        "-s", str(script), BASE, capture=True,
    )  # fmt: skip
    units = {"us": 0.001, "ms": 1.0, "s": 1000.0}

    def latency(percent):
        value, unit = re.search(rf"^\s+{percent}%\s+([\d.]+)(us|ms|s)\s*$", out, re.M).groups()
        return float(value) * units[unit]

    statuses = dict(re.findall(r"(\dxx)=(\d+)", out))
    socket_errors = re.search(r"Socket errors: (.*)", out)
    return {
        "requests": int(re.search(r"(\d+) requests in", out).group(1)),
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "p50": latency(50),
        "p90": latency(90),
        "p99": latency(99),
        "statuses": {key: int(value) for key, value in statuses.items()},
        "socket_errors": socket_errors.group(1) if socket_errors else "none",
    }


def access_entries(stack: Stack, since: float, until: float) -> list[tuple[int, int, str, str]]:
    """(epoch second, status, path, X-Page-Cache) for each logged request in [since, until]."""
    entries = []
    for line in stack.access_log.read_text().splitlines():
        match = ACCESS_LINE.match(line)
        if not match:
            continue
        second = int(datetime.strptime(match["t"], "%d/%b/%Y:%H:%M:%S %z").timestamp())
        if int(since) <= second <= until:
            entries.append((second, int(match["status"]), match["path"], match["cache"]))
    return entries


def window(entries, start: float, end: float) -> dict:
    """Counts of requests, 5xx, 500s, 503s and page-cache hits/misses logged in [start, end),
    /readyz left out."""
    # /readyz answering 503 while a dependency is down is its job, not an error.
    chosen = [e for e in entries if start <= e[0] < end and e[2] != "/readyz"]
    return {
        "requests": len(chosen),
        "5xx": sum(1 for e in chosen if e[1] >= 500),
        "500": sum(1 for e in chosen if e[1] == 500),
        "503": sum(1 for e in chosen if e[1] == 503),
        "hit": sum(1 for e in chosen if e[3] == "hit"),
        "miss": sum(1 for e in chosen if e[3] == "miss"),
    }


def under_load(stack: Stack, paths: list[str], seconds: int, fault) -> tuple[dict, dict]:
    """Run wrk (16 connections) for ``seconds`` while ``fault()`` runs; (wrk result, fault's times)."""
    result = {}
    load = threading.Thread(target=lambda: result.update(wrk(stack, paths, seconds, 16)))
    started = time.time()
    load.start()
    times = fault(started)
    load.join()
    times.update(started=started, ended=time.time())
    return result, times


def sleep_until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.time()))


def outage_page(status: int, headers: dict, body: str) -> bool:
    """Whether a response is the styled 503 page (templates/503.html with the site's CSS) with
    ``Retry-After``."""
    return (
        status == 503 and bool(headers.get("Retry-After")) and "be back in a moment" in body and "/static/css/" in body
    )


def postgres_fault(stack: Stack, paths: list[str], uncached: list[str]) -> dict:
    """Stop PostgreSQL under load; ``uncached`` are pages never requested before (so not in the
    page cache), probed while it is down, with every rotated page but the search."""
    cached_paths = [path for path in paths if not path.startswith("/search/")]

    def fault(started):
        sleep_until(started + 10)
        stopping = time.time()
        stack.pg_stop()
        down = time.time()
        during = get("/readyz")[0]
        uncached_down = {path: fetch(path) for path in uncached}
        cached_down = {path: get(path) for path in cached_paths}
        sleep_until(down + DOWN_SECONDS)
        stack.pg_start()
        up = time.time()
        # First request that needs the database (search is never page-cached) after the restart.
        while get("/search/?query=kernel")[0] != 200 and time.time() < up + 60:
            time.sleep(0.2)
        recovered = time.time()
        return {
            "stopping": stopping,
            "down": down,
            "up": up,
            "recovered": recovered,
            "readyz_down": during,
            "uncached_down": {
                path: {"status": r[0], "retry_after": r[1].get("Retry-After"), "styled": outage_page(*r)}
                for path, r in uncached_down.items()
            },
            "cached_down": {path: f"{r[0]} {r[1].get('X-Page-Cache', '-')}" for path, r in cached_down.items()},
        }

    master = stack.gunicorn.pid
    result, t = under_load(stack, paths, 45, fault)
    entries = access_entries(stack, t["started"], t["ended"] + 1)
    before = window(entries, t["started"], int(t["stopping"]))
    during = window(entries, int(t["stopping"]), int(t["up"]) + 3)
    after = window(entries, int(t["up"]) + 3, t["ended"] + 1)
    # After the probes: each uncached page answers again, from the database.
    uncached_after = {path: get(path)[0] for path in uncached}
    readyz_after = get("/readyz")[0]
    styled = sum(1 for probe in t["uncached_down"].values() if probe["styled"])
    hits = sum(1 for value in t["cached_down"].values() if value == "200 hit")
    return {
        "wrk": result,
        "before": before,
        "during": during,
        "after": after,
        "down_seconds": round(t["up"] - t["down"], 1),
        "recovery_seconds": round(t["recovered"] - t["up"], 1),
        "readyz_down": t["readyz_down"],
        "readyz_after": readyz_after,
        "uncached_down": t["uncached_down"],
        "uncached_styled_503": styled,
        "retry_after": sorted({str(p["retry_after"]) for p in t["uncached_down"].values()}),
        "cached_down": t["cached_down"],
        "cached_hits_down": hits,
        "uncached_after": uncached_after,
        "same_app": stack.gunicorn.poll() is None and stack.gunicorn.pid == master,
        "passed": before["5xx"] == 0
        and after["5xx"] == 0
        and during["500"] == 0
        and during["5xx"] == during["503"]
        and styled == len(uncached)
        and hits == len(cached_paths)
        and all(status == 200 for status in uncached_after.values())
        and readyz_after == 200
        and stack.gunicorn.poll() is None
        and stack.gunicorn.pid == master,
    }


def redis_fault(stack: Stack, paths: list[str]) -> dict:
    def fault(started):
        sleep_until(started + 10)
        stack.redis_stop()
        down = time.time()
        during = get("/readyz")[0]
        sleep_until(down + DOWN_SECONDS)
        stack.redis_start()
        up = time.time()
        return {"down": down, "up": up, "readyz_down": during}

    result, t = under_load(stack, paths, 35, fault)
    entries = access_entries(stack, t["started"], t["ended"] + 1)
    before = window(entries, t["started"], int(t["down"]))
    # One second of margin either side: the log's timestamps are whole seconds.
    during = window(entries, int(t["down"]) + 1, int(t["up"]))
    after = window(entries, int(t["up"]) + 1, t["ended"] + 1)
    keys = stack.redis_keys()
    readyz_after = get("/readyz")[0]
    return {
        "wrk": result,
        "before": before,
        "during": during,
        "after": after,
        "redis_keys_after": keys,
        "readyz_down": t["readyz_down"],
        "readyz_after": readyz_after,
        "passed": (
            before["5xx"] + during["5xx"] + after["5xx"] == 0
            and result["statuses"].get("5xx", 0) == 0
            and during["hit"] == 0
            and after["hit"] > 0
            and keys > 0
            and readyz_after == 200
        ),
    }


def unchanged(scheduled: dict, status: dict) -> bool:
    """Whether a failing revision left its page as it was: the live page kept its own slug (not
    the taken one its revision names), the orphaned draft stayed a draft."""
    return status["slug"] != scheduled["slug"] if "slug" in scheduled else not status["live"]


def scheduler_fault(stack: Stack, ids: dict, smtp: SMTPSink) -> dict:
    """Kill the scheduler, let a go-live and an expiry pass beside two failing go-lives, restart it."""
    stack.scheduler_start()
    time.sleep(5)
    stack.scheduler.send_signal(signal.SIGKILL)
    stack.scheduler.wait()
    # Due first, and failing: one revision names a slug another article has; the other's
    # parent (a second blog index) is unpublished after it was scheduled.
    failing = {
        "its slug taken meanwhile": stack.state("schedule_failing", str(ids["failing"]), "3"),
        "its parent unpublished meanwhile": stack.state("schedule_orphaned", str(ids["orphaned"]), "3"),
    }
    failing_ids = {"its slug taken meanwhile": ids["failing"], "its parent unpublished meanwhile": ids["orphaned"]}
    stack.state("expire", str(ids["expiring"]), "4")
    scheduled = stack.state("schedule", str(ids["scheduled"]), "5")
    time.sleep(15)  # the go-live and the expiry pass with no scheduler running
    overdue = stack.state("status", str(ids["scheduled"]))
    overdue_expiring = stack.state("status", str(ids["expiring"]))
    restarted = time.time()
    stack.scheduler_start()
    status, expiring, mails = overdue, overdue_expiring, []
    published_after = expired_after = mailed_after = None
    while time.time() < restarted + 90 and None in (published_after, expired_after, mailed_after):
        time.sleep(1)
        if published_after is None:
            status = stack.state("status", str(ids["scheduled"]))
            published_after = time.time() - restarted if status["live"] else None
        if expired_after is None:
            expiring = stack.state("status", str(ids["expiring"]))
            expired_after = time.time() - restarted if expiring["expired"] and not expiring["live"] else None
        mails = [m for m in smtp.messages if "moderator@faults.invalid" in m["to"]]
        if mailed_after is None and mails:
            mailed_after = time.time() - restarted
    served = get(status["url"])[0] if status["live"] else 0
    expired_served = get(expiring["url"] or "/blog/fault-run-expiring/")[0]
    failed = {kind: stack.state("status", str(pk)) for kind, pk in failing_ids.items()}
    readyz_status, _, readyz_body = fetch("/readyz")
    readyz = json.loads(readyz_body) if readyz_body.startswith("{") else {}
    listed = {item["object"] for item in readyz.get("scheduled_failures", [])}
    dashboard = stack.state("dashboard", STAFF_MFA_REQUIRED="false")
    mail_text = "\n".join(m["text"] for m in mails)
    checks = {
        kind: {
            "page unchanged": unchanged(failing[kind], failed[kind]),
            "still scheduled": failed[kind]["scheduled"],
            "recorded": failed[kind]["failure"],
            "in /readyz": failed[kind]["title"] in listed,
            "on the dashboard": failing_ids[kind] in dashboard["linked_pages"],
            "e-mailed": failed[kind]["title"] in mail_text,
        }
        for kind in failing
    }
    return {
        "live_before_go_live": scheduled["live"],
        "live_while_overdue": overdue["live"],
        "live_after_restart": status["live"],
        "seconds_after_restart": round(published_after, 1) if published_after is not None else None,
        "article_status": served,
        "live_while_expiry_overdue": overdue_expiring["live"],
        "expired_after_restart": expiring["expired"] and not expiring["live"],
        "expired_seconds_after_restart": round(expired_after, 1) if expired_after is not None else None,
        "expired_article_status": expired_served,
        "mails": len(mails),
        "mail_seconds_after_restart": round(mailed_after, 1) if mailed_after is not None else None,
        "readyz_status": readyz_status,
        "readyz_scheduler": readyz.get("checks", {}).get("scheduler"),
        "dashboard_status": dashboard["status"],
        "failing": checks,
        "passed": overdue["live"] is False
        and status["live"]
        and served == 200
        and overdue_expiring["live"]
        and expiring["expired"]
        and not expiring["live"]
        and expired_served == 404
        and len(mails) == 1
        and readyz_status == 200
        and dashboard["status"] == 200
        and all(all(bool(value) for value in kind.values()) for kind in checks.values()),
    }


def compare(before: dict, after: dict) -> dict:
    """What the faults must not lose: every check True."""
    return {
        "page, image and document counts unchanged": all(
            before[k] == after[k] for k in ("pages", "images", "documents")
        ),
        "draft still a draft, latest text kept": not after["draft_live"]
        and after["draft_latest_summary"] == before["draft_latest_summary"],
        "every draft revision kept, same content": all(
            after["draft_revisions"].get(pk) == sha for pk, sha in before["draft_revisions"].items()
        ),
        "every media file kept, same bytes": all(
            after["media"].get(name) == sha for name, sha in before["media"].items()
        )
        and before["image_file"] in after["media"]
        and before["document_file"] in after["media"],
    }


def report(info: dict, paths: list[str], load: dict, pg: dict, rd: dict, sched: dict, kept: dict) -> str:
    def statuses(result):
        return ", ".join(f"{k} {v:,}" for k, v in sorted(result["statuses"].items()))

    def win(w):
        return f"{w['requests']:,} requests, {w['5xx']} 5xx, {w['hit']:,} cache hits, {w['miss']:,} misses"

    ok = "**pass**"
    lines = [
        f"Run {info['when']} UTC: {info['machine']}; {info['software']}. "
        f"Load average before / after: {info['load_before']} / {info['load_after']} "
        "(**the machine was shared with other builds and test runs**, so throughput is low and noisy).",
        "",
        f"Pages rotated: {', '.join(f'`{p}`' for p in paths)}.",
        "",
        f"**Load**, wrk -t2 -c64 -d{LOAD_SECONDS}s: {load['requests']:,} requests, **{load['rps']:,.1f} req/s**, "
        f"latency p50 {load['p50']:.0f} ms, p90 {load['p90']:.0f} ms, p99 {load['p99']:.0f} ms; "
        f"statuses: {statuses(load)}; socket errors: {load['socket_errors']}. "
        f"{ok if load['statuses'].get('5xx', 0) == 0 else '**FAIL**'} (zero 5xx).",
        "",
        f"**PostgreSQL restarted** (wrk -c16, 45 s; down {pg['down_seconds']} s): before the stop "
        f"{win(pg['before'])}; while down (until 3 s after the restart) {win(pg['during'])}: "
        f"{pg['during']['503']:,} of its 5xx are 503s, {pg['during']['500']} are 500s. Probed while down: "
        f"{pg['uncached_styled_503']} of {len(pg['uncached_down'])} uncached pages "
        f"({', '.join(f'`{p}`' for p in pg['uncached_down'])}) answered the styled 503 page with Retry-After "
        f"{'/'.join(pg['retry_after'])}; {pg['cached_hits_down']} of {len(pg['cached_down'])} rotated pages "
        f"were served from the page cache ({', '.join(sorted(set(pg['cached_down'].values())))}). After "
        f"{win(pg['after'])}. First search served {pg['recovery_seconds']} s after the restart, by the same "
        f"gunicorn ({'not restarted' if pg['same_app'] else 'RESTARTED'}); the probed pages then answered "
        f"{', '.join(sorted({str(v) for v in pg['uncached_after'].values()}))}. /readyz while down "
        f"{pg['readyz_down']}, after {pg['readyz_after']}. wrk: {statuses(pg['wrk'])}. "
        f"{ok if pg['passed'] else '**FAIL**'}.",
        "",
        f"**Redis stopped** (wrk -c16, 35 s; down {DOWN_SECONDS} s, then a fresh empty Redis): before "
        f"{win(rd['before'])}; while down {win(rd['during'])}; after {win(rd['after'])}. Keys in Redis at "
        f"the end: {rd['redis_keys_after']}. /readyz while down {rd['readyz_down']}, after "
        f"{rd['readyz_after']}. wrk: {statuses(rd['wrk'])}. {ok if rd['passed'] else '**FAIL**'}.",
        "",
        f"**Scheduler killed** (SIGKILL), restarted 15 s later, with an article scheduled 5 s ahead and a "
        f"live one expiring 4 s ahead: live while overdue: {sched['live_while_overdue']}, live "
        f"{sched['seconds_after_restart']} s after the restart: {sched['live_after_restart']} (answered "
        f"{sched['article_status']}); the expiring one live while overdue: {sched['live_while_expiry_overdue']}, "
        f"expired {sched['expired_seconds_after_restart']} s after the restart: {sched['expired_after_restart']} "
        f"(answered {sched['expired_article_status']}). Beside them, due 1 to 2 s earlier and tried first, "
        + "; ".join(
            f"a revision with {kind}: "
            + ", ".join(f"{name} {'yes' if value else 'NO'}" for name, value in checks.items())
            for kind, checks in sched["failing"].items()
        )
        + f". Moderators' e-mails: {sched['mails']} (one for both, {sched['mail_seconds_after_restart']} s after "
        f"the restart); /readyz {sched['readyz_status']} (scheduler check “{sched['readyz_scheduler']}”); "
        f"dashboard {sched['dashboard_status']}. {ok if sched['passed'] else '**FAIL**'}.",
        "",
        "**Nothing lost** (compared after all the faults above): "
        + "; ".join(f"{name}: {'yes' if value else 'NO'}" for name, value in kept.items())
        + f". {ok if all(kept.values()) else '**FAIL**'}.",
    ]
    return "\n".join(lines)


def write_report(block: str) -> None:
    start, end = "<!-- faults -->", "<!-- /faults -->"
    text = OUTPUT.read_text() if OUTPUT.exists() else f"# Reliability\n\n{start}\n{end}\n"
    if start not in text:
        text += f"\n{start}\n{end}\n"
    text = re.sub(re.escape(start) + ".*?" + re.escape(end), lambda _: f"{start}\n{block}\n{end}", text, flags=re.S)
    OUTPUT.write_text(text)


def versions(stack: Stack) -> dict:
    script = "import django, wagtail, gunicorn; print(django.get_version(), wagtail.__version__, gunicorn.__version__)"
    django_v, wagtail_v, gunicorn_v = stack.run(PY, "-c", script, capture=True).split()
    postgres_out = subprocess.run([pg_bin("postgres"), "--version"], capture_output=True, text=True).stdout
    postgres = re.search(r"\d+\.\d+", postgres_out).group(0)
    redis_v = re.search(r"v=(\S+)", subprocess.run(["redis-server", "-v"], capture_output=True, text=True).stdout)
    workers = stack.env.get("WEB_CONCURRENCY") or "gunicorn.conf.py's default"
    return {
        "machine": f"{os.cpu_count()} cores, {platform.system()} {platform.release()}",
        "software": f"Django {django_v}, Wagtail {wagtail_v}, gunicorn {gunicorn_v} (sync workers: {workers}), "
        f"PostgreSQL {postgres}, Redis {redis_v.group(1) if redis_v else '?'}",
    }


def load_average() -> str:
    """The machine's 1, 5 and 15-minute load averages, e.g. ``"3.2 2.9 2.5"``."""
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def main() -> int:
    if not shutil.which("wrk"):
        sys.exit("wrk is missing: apt-get install -y wrk")
    stack = Stack()
    smtp = None
    try:
        stack.pg_init()
        stack.pg_start()
        subprocess.run(["createdb", "-h", "127.0.0.1", "-p", str(PG_PORT), "-U", "postgres", DB_NAME], check=True)
        stack.redis_start()
        smtp = SMTPSink(SMTP_PORT)
        stack.run(PY, "manage.py", "migrate", "--noinput", "-v0")
        stack.run(PY, "manage.py", "load_demo", "--no-users")
        stack.run(PY, "manage.py", "collectstatic", "--noinput", "-v0")
        ids = stack.state("prepare")
        before = stack.state("snapshot", json.dumps(ids))
        stack.gunicorn_start()
        # The first topic and article are rotated under load; the last ones are never requested
        # before PostgreSQL is stopped, so they are not in the page cache.
        topic, article, other_topic, other_article = stack.run(
            PY, "manage.py", "shell", "-v0", "-c",
            "from blog.models import ArticlePage, TopicPage\n"
            "topics = TopicPage.objects.live().order_by('title')\n"
            "articles = ArticlePage.objects.live().exclude(slug__startswith='fault-run').order_by('path')\n"
            "print(topics.first().url, articles.first().url, topics.last().url, articles.last().url)",
            capture=True,
        ).split()[-4:]  # fmt: skip
        paths = ["/", "/blog/", topic, article, "/search/?query=kernel", "/blog/feed/rss/"]
        uncached = ["/search/?query=outage", other_article, other_topic, "/api/v2/pages/?type=blog.ArticlePage"]
        for path in paths:  # warm the renditions and the page cache
            status = get(path)[0]
            if status != 200:
                sys.exit(f"{path} answered {status} before any fault")
        info = {"when": f"{datetime.now(UTC):%Y-%m-%d %H:%M}", "load_before": load_average()}
        print("load...", flush=True)
        load = wrk(stack, paths, LOAD_SECONDS, 64)
        print(load, flush=True)
        print("PostgreSQL restart...", flush=True)
        pg = postgres_fault(stack, paths, uncached)
        print(pg, flush=True)
        print("Redis stop...", flush=True)
        rd = redis_fault(stack, paths)
        print(rd, flush=True)
        print("scheduler kill...", flush=True)
        sched = scheduler_fault(stack, ids, smtp)
        print(sched, flush=True)
        kept = compare(before, stack.state("snapshot", json.dumps(ids)))
        info["load_after"] = load_average()
        info.update(versions(stack))
        block = report(info, paths, load, pg, rd, sched, kept)
        write_report(block)
        print(block)
        passed = load["statuses"].get("5xx", 0) == 0 and pg["passed"] and rd["passed"] and sched["passed"]
        return 0 if passed and all(kept.values()) else 1
    finally:
        stack.stop_all()
        if smtp:
            smtp.shutdown()


if __name__ == "__main__":
    sys.exit(main())
