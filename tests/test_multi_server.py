"""Two app servers on loopback ports sharing one PostgreSQL and one Redis (issue 9).

Each server is a real gunicorn process with the production settings. The test proves what a load
balancer in front of them needs: a login on A is valid on B, a change made on A reaches B's cached
pages on B's very next request (an unpublish and a publish), the worker process runs the work
publishing queued, and two schedulers publish each due page exactly once.

Runs on PostgreSQL only (SQLite is a single-machine database) and needs Redis at REDIS_URL
(default redis://127.0.0.1:6379/14); CI's PostgreSQL pass runs it.
"""

import os
import re
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import timedelta
from http.cookies import SimpleCookie
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.db import connection
from django.utils import timezone

from wagtail.models import PageLogEntry

import pytest

from .redis_server import redis_answers

# One pytest-xdist worker runs the module: its servers share one Redis database.
pytestmark = [
    pytest.mark.multiserver,
    pytest.mark.django_db(transaction=True),
    pytest.mark.xdist_group("multi-server"),
]

ROOT = Path(__file__).resolve().parent.parent
REDIS_URL = os.environ.get("MULTISERVER_REDIS_URL", "redis://127.0.0.1:6379/14")
# The Procfile's worker, stopping once the queue is empty so the test ends by itself.
WORKER = ["db_worker", "--queue-name", "*", "--no-reload", "--batch", "--no-startup-delay"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Client:
    """A tiny HTTP client for one server that keeps cookies itself.

    The servers run the production settings, so cookies are Secure; the requests say they came
    through the TLS proxy (X-Forwarded-Proto: https), and the client sends cookies back itself.
    """

    def __init__(self, base: str, cookies: dict | None = None):
        self.base = base
        self.cookies = cookies if cookies is not None else {}

    def request(self, path: str, data: dict | None = None, referer: str | None = None):
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        request = urllib.request.Request(self.base + path, data=body, method="POST" if data is not None else "GET")
        request.add_header("X-Forwarded-Proto", "https")
        request.add_header("Host", "127.0.0.1")
        if self.cookies:
            request.add_header("Cookie", "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        if referer:
            request.add_header("Referer", "https://127.0.0.1" + referer)
        opener = urllib.request.build_opener(NoRedirect)
        try:
            response = opener.open(request, timeout=20)
        except urllib.error.HTTPError as error:
            response = error
        for header in response.headers.get_all("Set-Cookie") or []:
            cookie = SimpleCookie(header)
            for key, morsel in cookie.items():
                self.cookies[key] = morsel.value
        return response.status, response.headers, response.read().decode("utf-8", "replace")

    def csrf_post(self, path: str, form_path: str, data: dict):
        _status, _headers, html = self.request(form_path)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
        return self.request(path, {**data, "csrfmiddlewaretoken": token}, referer=form_path)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


@pytest.fixture(scope="module")
def server_env(tmp_path_factory, django_db_setup, django_db_blocker):
    if connection.vendor != "postgresql":
        pytest.skip("the multi-server run shares one PostgreSQL database (CI's PostgreSQL pass runs it)")
    if not redis_answers(REDIS_URL):
        pytest.skip(f"Redis is not reachable at {REDIS_URL}")
    db = connection.settings_dict
    database_url = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    static_root = tmp_path_factory.mktemp("static")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PYTEST"))},
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": database_url,
        "REDIS_URL": REDIS_URL,
        "PAGE_CACHE_SECONDS": "600",
        "STATIC_ROOT": str(static_root),
        # The test process's media folder (tests/conftest.py), standing in for shared storage:
        # images the test makes are there for the servers and the worker.
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "SECURE_SSL_REDIRECT": "false",
        # The superuser signs in with a password only: two-step verification has its own tests
        # (test_security_mfa.py), and here it would send every admin request to its setup page.
        "STAFF_MFA_REQUIRED": "false",
        # Background work as in production: queued in the shared database for the worker process.
        "TASKS_BACKEND": "database",
    }
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run([sys.executable, "-c", _FLUSH_REDIS, REDIS_URL], check=True)
    return env


_FLUSH_REDIS = "import redis, sys; redis.Redis.from_url(sys.argv[1]).flushdb()"


@pytest.fixture(scope="module")
def servers(server_env):
    """Start app servers A and B (one gunicorn worker each); stop them after the module."""
    processes, bases = [], []
    for _name in ("A", "B"):
        port = free_port()
        processes.append(
            subprocess.Popen(  # noqa: S603 - fixed argv
                [
                    str(Path(sys.executable).parent / "gunicorn"),
                    "config.wsgi:application",
                    "--bind",
                    f"127.0.0.1:{port}",
                    "--workers",
                    "1",
                    "--timeout",
                    "60",
                ],
                cwd=ROOT,
                env=server_env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        bases.append(f"http://127.0.0.1:{port}")
    try:
        for base in bases:
            wait_until_up(base)
        yield bases
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def wait_until_up(base: str, attempts: int = 120):
    for _ in range(attempts):
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=2):  # noqa: S310 - loopback only
                return
        except OSError:
            time.sleep(0.25)
    raise RuntimeError(f"{base} did not start")


@pytest.fixture
def demo_db(django_db_blocker):
    from home.models import HomePage
    from tests.demo_database import reload

    # The prepared demo copied back (seconds), not loaded again (a minute or two of CPU): the
    # previous transactional test emptied the database. The servers' connections are ended and
    # reopened by their health checks, as for the live server (tests/demo_database.py).
    with django_db_blocker.unblock():
        if not HomePage.objects.exists():
            reload()
    # An earlier transactional test may have emptied and refilled the database under the running
    # servers (new content type and page ids): a new page-cache generation in the shared Redis
    # makes them drop what they remembered (page cache and site chrome), as a deploy's migrate would.
    subprocess.run([sys.executable, "-c", _FLUSH_REDIS, REDIS_URL], check=True)


def staff_user(username: str, password: str):
    """A superuser whose password hash the servers' production hashers can check (the test
    settings hash with MD5, which production does not accept)."""
    user = get_user_model().objects.create_superuser(username, f"{username}@example.com")
    user.password = PBKDF2PasswordHasher().encode(password, PBKDF2PasswordHasher().salt())
    user.save(update_fields=["password"])
    return user


def test_login_on_a_is_valid_on_b(servers, demo_db):
    staff_user("ops", "a-long-test-password-1")
    a, b = Client(servers[0]), None
    status, headers, _ = a.csrf_post(
        "/admin/login/", "/admin/login/", {"username": "ops", "password": "a-long-test-password-1", "next": "/admin/"}
    )
    assert status == 302, status
    assert "sessionid" in a.cookies
    b = Client(servers[1], cookies=dict(a.cookies))
    status, _headers, html = b.request("/admin/")
    assert status == 200
    assert "Dashboard" in html or "wagtail" in html.lower()


def test_unpublish_on_a_reaches_b_cached_pages_on_the_next_request(servers, demo_db):
    from blog.models import ArticlePage

    article = ArticlePage.objects.live().order_by("-date_published").first()
    b = Client(servers[1])
    for _ in range(2):  # the second answer comes from the shared page cache
        status, _headers, html = b.request("/blog/")
        assert status == 200 and article.title in html

    staff_user("ops2", "a-long-test-password-2")
    a = Client(servers[0])
    a.csrf_post("/admin/login/", "/admin/login/", {"username": "ops2", "password": "a-long-test-password-2"})
    status, _headers, _html = a.csrf_post(
        f"/admin/pages/{article.pk}/unpublish/", f"/admin/pages/{article.pk}/unpublish/", {"include_descendants": ""}
    )
    assert status == 302, status
    article.refresh_from_db()
    assert not article.live

    status, _headers, html = b.request("/blog/")
    assert status == 200
    assert article.title not in html


def test_publish_on_a_reaches_b_cached_pages_and_the_worker_makes_its_renditions(servers, server_env, demo_db):
    from django_tasks import TaskResultStatus
    from django_tasks_db.models import DBTaskResult

    from blog.models import BlogIndexPage, TopicPage
    from blog.renditions import ARTICLE_RENDITION_SPECS, make_article_renditions
    from tests.factories import ArticlePageFactory, SiteImageFactory

    draft = ArticlePageFactory(
        parent=BlogIndexPage.objects.get(),
        topics=[TopicPage.objects.first()],
        title="Fresh from server A",
        search_description="A new article published through server A.",
        live=False,
        image=SiteImageFactory(),  # no renditions yet: the worker makes them
    )
    draft.save_revision()
    b = Client(servers[1])
    for _ in range(2):  # the second answer comes from the shared page cache
        status, _headers, html = b.request("/blog/")
        assert status == 200 and draft.title not in html

    staff_user("ops3", "a-long-test-password-3")
    a = Client(servers[0])
    a.csrf_post("/admin/login/", "/admin/login/", {"username": "ops3", "password": "a-long-test-password-3"})
    publish = f"/admin/bulk/wagtailcore/page/publish/?id={draft.pk}"
    status, _headers, _html = a.csrf_post(publish, publish, {"include_descendants": ""})
    assert status == 302, status
    draft.refresh_from_db()
    assert draft.live

    status, _headers, html = b.request("/blog/")
    assert status == 200
    assert draft.title in html

    # Publishing queued the article's renditions in the database; the worker process makes them.
    queued = DBTaskResult.objects.filter(task_path=make_article_renditions.module_path)
    assert [row.status for row in queued] == [TaskResultStatus.READY]
    worker = subprocess.run(  # noqa: S603 - fixed argv
        [sys.executable, "manage.py", *WORKER],
        cwd=ROOT,
        env=server_env,
        capture_output=True,
        timeout=300,
    )
    assert worker.returncode == 0, worker.stderr.decode()[-2000:]
    assert [row.status for row in queued.all()] == [TaskResultStatus.SUCCESSFUL]
    assert draft.image.renditions.count() == len(ARTICLE_RENDITION_SPECS)
    assert not DBTaskResult.objects.filter(status=TaskResultStatus.READY).exists()


def test_two_schedulers_publish_each_due_page_once(server_env, demo_db):
    from blog.models import ArticlePage

    due = list(ArticlePage.objects.live().order_by("date_published")[:3])
    for number, article in enumerate(due):
        article.title = f"Scheduled rewrite {number}"
        revision = article.save_revision()
        revision.approved_go_live_at = timezone.now() - timedelta(seconds=5)
        revision.save(update_fields=["approved_go_live_at"])
    command = [sys.executable, "manage.py", "run_scheduler", "--once"]
    schedulers = [
        subprocess.Popen(command, cwd=ROOT, env=server_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)  # noqa: S603
        for _ in range(2)
    ]
    outputs = [scheduler.communicate(timeout=120)[0].decode() for scheduler in schedulers]
    assert all(scheduler.returncode == 0 for scheduler in schedulers), outputs
    for article in due:
        entries = PageLogEntry.objects.filter(page=article, action="wagtail.publish.scheduled").count()
        assert entries == 1, (article.pk, entries, outputs)
        article.refresh_from_db()
        assert article.title.startswith("Scheduled rewrite")
