"""The search index follows publishing: publish, unpublish, scheduled publish, expiry, update_index."""

import io
import re
from datetime import timedelta
from types import SimpleNamespace

from django.core.management import call_command
from django.utils import timezone

from wagtail.search.models import IndexEntry

import pytest
import time_machine

from search import freshness

from .factories import ArticlePageFactory, AuthorFactory, TopicPageFactory
from .test_search_results import result_titles

pytestmark = pytest.mark.django_db


def titles_for(client, query):
    return result_titles(client.get("/search/", {"query": query}).content.decode())


def test_publish_and_unpublish_update_the_results(client, demo):
    article = ArticlePageFactory(parent=demo.blog, title="Quetzal report", live=False)
    assert titles_for(client, "quetzal") == []
    article.save_revision().publish()
    assert titles_for(client, "quetzal") == ["Quetzal report"]
    article.refresh_from_db()
    article.unpublish()
    assert titles_for(client, "quetzal") == []


def test_a_changed_title_is_searchable_after_publishing(client, demo):
    article = ArticlePageFactory(parent=demo.blog, title="Old name")
    article.title = "Quetzal report"
    article.save_revision().publish()
    assert titles_for(client, "quetzal") == ["Quetzal report"]


def test_a_topic_added_on_publish_is_indexed_at_once(client, demo):
    topic = TopicPageFactory(parent=demo.blog, title="Ornithology")
    article = ArticlePageFactory(parent=demo.blog, title="Quetzal report")
    article.topics.add(topic)
    article.save_revision().publish()
    assert titles_for(client, "ornithology") == ["Quetzal report"]


def test_scheduled_publish_and_expiry(client, demo):
    article = ArticlePageFactory(parent=demo.blog, title="Quetzal report", live=False)
    go_live = timezone.now() + timedelta(hours=1)
    article.go_live_at = go_live
    article.save_revision().publish()  # with go_live_at in the future this schedules it
    assert titles_for(client, "quetzal") == []
    with time_machine.travel(go_live + timedelta(minutes=1), tick=False):
        call_command("publish_scheduled", stdout=io.StringIO())
        assert titles_for(client, "quetzal") == ["Quetzal report"]
        article.refresh_from_db()
        article.expire_at = timezone.now() + timedelta(hours=2)
        article.save_revision().publish()
        assert titles_for(client, "quetzal") == ["Quetzal report"]
    with time_machine.travel(go_live + timedelta(hours=4), tick=False):
        # Expired but not yet unpublished by the scheduler: already out of the results.
        assert titles_for(client, "quetzal") == []
        call_command("publish_scheduled", stdout=io.StringIO())
        article.refresh_from_db()
        assert article.expired and not article.live
        assert titles_for(client, "quetzal") == []


def test_an_article_leaves_cached_results_at_its_expiry_time(client, demo):
    # Results are cached for the page-cache generation (search/views.py); reaching an expiry time
    # starts no generation, so the cache must not outlive it (here well within its 120 s).
    article = ArticlePageFactory(parent=demo.blog, title="Quetzal report")
    article.expire_at = timezone.now() + timedelta(seconds=30)
    article.save_revision().publish()
    assert titles_for(client, "quetzal") == ["Quetzal report"]
    assert titles_for(client, "quetzal") == ["Quetzal report"]  # from the cache
    with time_machine.travel(timezone.now() + timedelta(seconds=45), tick=False):
        assert titles_for(client, "quetzal") == []


def test_update_index_rebuilds_the_index(client, demo):
    gpu_results = re.search(r"\d+ articles", client.get("/search/", {"query": "gpu"}).content.decode()).group(0)
    # A body without "GPUs", which SQLite's Porter stemmer takes for "gpu" and PostgreSQL's
    # English stemmer does not.
    body = [{"type": "paragraph", "value": "<p>Birds of the cloud forest.</p>"}]
    ArticlePageFactory(parent=demo.blog, title="Quetzal report", body=body)
    call_command("update_index", stdout=io.StringIO(), stderr=io.StringIO())
    assert titles_for(client, "quetzal") == ["Quetzal report"]
    assert gpu_results in client.get("/search/", {"query": "gpu"}).content.decode()


def test_renaming_a_topic_reindexes_its_articles(client, demo, django_capture_on_commit_callbacks):
    topic = TopicPageFactory(parent=demo.blog, title="Ornithology")
    other = TopicPageFactory(parent=demo.blog, title="Entomology")
    ArticlePageFactory(parent=demo.blog, title="Quetzal report", topics=[topic])
    ArticlePageFactory(parent=demo.blog, title="Beetle report", topics=[other])
    topic.title = "Avian studies"
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        topic.save_revision().publish()
    assert len(callbacks) >= 1
    assert titles_for(client, "avian") == ["Quetzal report"]
    assert titles_for(client, "ornithology") == []
    assert titles_for(client, "entomology") == ["Beetle report"]


def test_a_topic_rename_saved_as_draft_changes_nothing_until_published(
    client, demo, django_capture_on_commit_callbacks
):
    topic = TopicPageFactory(parent=demo.blog, title="Ornithology")
    ArticlePageFactory(parent=demo.blog, title="Quetzal report", topics=[topic])
    topic.title = "Avian studies"
    with django_capture_on_commit_callbacks(execute=True):
        topic.save_revision()
    assert titles_for(client, "ornithology") == ["Quetzal report"]
    assert titles_for(client, "avian") == []


def test_renaming_an_author_reindexes_their_articles(client, demo, django_capture_on_commit_callbacks):
    author = AuthorFactory(name="Philippa Numbat")
    ArticlePageFactory(parent=demo.blog, title="Quetzal report", authors=[author])
    author.name = "Philippa Bilby"
    with django_capture_on_commit_callbacks(execute=True):
        author.save()
    assert titles_for(client, "bilby") == ["Quetzal report"]
    assert titles_for(client, "numbat") == []


def test_deleting_a_topic_or_author_drops_their_names_from_the_articles(
    client, demo, django_capture_on_commit_callbacks
):
    topic = TopicPageFactory(parent=demo.blog, title="Ornithology")
    author = AuthorFactory(name="Philippa Numbat")
    ArticlePageFactory(parent=demo.blog, title="Quetzal report", topics=[topic], authors=[author, AuthorFactory()])
    with django_capture_on_commit_callbacks(execute=True):
        topic.delete()
        author.delete()
    assert titles_for(client, "ornithology") == []
    assert titles_for(client, "numbat") == []
    assert titles_for(client, "quetzal") == ["Quetzal report"]


def test_saving_an_author_without_renaming_reindexes_nothing(demo, django_capture_on_commit_callbacks, monkeypatch):
    enqueued = []
    monkeypatch.setattr(freshness, "reindex_articles", SimpleNamespace(enqueue=enqueued.append))
    author = AuthorFactory(name="Philippa Numbat")
    ArticlePageFactory(parent=demo.blog, title="Quetzal report", authors=[author])
    author.role = "Editor"
    with django_capture_on_commit_callbacks(execute=True):
        author.save()
    assert enqueued == []
    author.name = "Philippa Bilby"
    with django_capture_on_commit_callbacks(execute=True):
        author.save()
    assert len(enqueued) == 1


def count_index_writes(monkeypatch) -> list:
    """Records the primary key of every object the auto-updating search backends index (their
    class's ``add``: ``get_search_backend`` makes a new backend object on each call)."""
    from wagtail.search.backends import get_search_backends

    written = []
    for backend_class in {type(backend) for backend in get_search_backends(with_auto_update=True)}:
        original = backend_class.add

        def add(self, obj, original=original):
            written.append(obj.pk)
            return original(self, obj)

        monkeypatch.setattr(backend_class, "add", add)
    return written


def test_each_save_indexes_the_article_once_after_its_topics_and_authors(demo, monkeypatch):
    """Wagtail's own post_save indexing is off for articles (``search_auto_update``): the save
    indexes once, when the topics and authors are written, so nothing is indexed twice."""
    topic = TopicPageFactory(parent=demo.blog, title="Ornithology")
    article = ArticlePageFactory(parent=demo.blog, title="Quetzal report")
    written = count_index_writes(monkeypatch)
    article.topics.add(topic)
    article.save()
    assert written == [article.pk]
    assert [page.title for page in type(article).objects.search("ornithology")] == ["Quetzal report"]
    written.clear()
    revision = article.save_revision()
    # A revision writes the live page's filter fields only (its pointer and date), which the
    # database backends do not store: nothing to index until it is published.
    assert written == []
    revision.publish()
    assert written == [article.pk]
    written.clear()
    article.save(update_fields=["draft_title"])  # bookkeeping no search field reads
    assert written == []


def test_a_revision_indexes_the_article_where_a_backend_stores_filter_fields(demo, monkeypatch):
    """Elasticsearch and OpenSearch keep filter fields in their documents: there a revision's
    new date must reach the index."""
    import blog.models

    article = ArticlePageFactory(parent=demo.blog, title="Quetzal report")
    monkeypatch.setattr(blog.models, "_backends_store_filter_fields", lambda: True)
    written = count_index_writes(monkeypatch)
    article.save_revision()
    assert written == [article.pk]


def test_wagtails_database_backends_store_no_filter_fields(db):
    """What ``_backends_store_filter_fields`` relies on: the backends configured here are all
    modelsearch database backends (ours subclass them)."""
    from blog.models import _backends_store_filter_fields

    assert _backends_store_filter_fields() is False


def test_a_deleted_article_leaves_the_index(client, demo):
    article = ArticlePageFactory(parent=demo.blog, title="Quetzal report")
    article.save_revision().publish()
    assert titles_for(client, "quetzal") == ["Quetzal report"]
    entries = IndexEntry.objects.filter(content_type__app_label="blog", object_id=str(article.pk))
    assert entries.exists()
    article.delete()
    assert not entries.exists()
    assert titles_for(client, "quetzal") == []
