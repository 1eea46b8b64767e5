"""Background work in production: TASKS_BACKEND=database queues Wagtail's and our tasks in the
database, and ``manage.py db_worker`` (the Procfile's worker process) runs them."""

import io

from django.core.management import call_command

import pytest
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from blog.renditions import ARTICLE_RENDITION_SPECS, make_article_renditions

from .factories import SiteImageFactory

pytestmark = pytest.mark.django_db

# The worker as the Procfile, the systemd unit and the Kubernetes manifest start it, but
# stopping once the queue is empty (--batch) so the test ends by itself.
WORKER = ["db_worker", "--queue-name", "*", "--no-reload", "--batch", "--no-startup-delay"]


@pytest.fixture
def database_queue(settings, monkeypatch):
    """The task backend production uses with TASKS_BACKEND=database (see config/settings/base.py).

    The worker runs in this process, inside the test's transaction. Between tasks it closes
    connections it finds unusable, and on PostgreSQL (persistent connections) it counts one inside
    a transaction as such, which would drop the test's own: that clean-up is switched off here.
    tests/test_multi_server.py runs the worker as its own process on PostgreSQL, clean-up and all.
    """
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    settings.BLOG_RENDITIONS_ON_PUBLISH = True  # off in the test settings
    monkeypatch.setattr("django_tasks_db.management.commands.db_worker.close_old_connections", lambda: None)


def test_publishing_queues_renditions_and_the_worker_makes_them(
    database_queue, demo, django_capture_on_commit_callbacks
):
    article = demo.articles[0]
    article.image = SiteImageFactory()
    with django_capture_on_commit_callbacks(execute=True):
        article.save_revision().publish()

    queued = DBTaskResult.objects.filter(task_path=make_article_renditions.module_path)
    assert [row.status for row in queued] == [TaskResultStatus.READY]
    assert not article.image.renditions.exists(), "nothing runs until the worker does"

    call_command(*WORKER, stdout=io.StringIO(), stderr=io.StringIO())

    result = make_article_renditions.get_result(str(queued.get().id))
    assert result.status == TaskResultStatus.SUCCESSFUL
    assert result.return_value == 1
    assert article.image.renditions.count() == len(ARTICLE_RENDITION_SPECS)
    assert not DBTaskResult.objects.filter(status=TaskResultStatus.READY).exists()


def test_a_failing_task_is_recorded_and_does_not_stop_the_worker(database_queue, db):
    broken = make_article_renditions.enqueue("not a list of ids")
    fine = make_article_renditions.enqueue([])

    call_command(*WORKER, stdout=io.StringIO(), stderr=io.StringIO())

    broken.refresh()
    fine.refresh()
    assert broken.status == TaskResultStatus.FAILED
    assert fine.status == TaskResultStatus.SUCCESSFUL and fine.return_value == 0
