"""Keep articles' search documents current when a topic or an author is renamed or deleted,
and remove a deleted article's (articles index themselves on save: ``ArticlePage.save``).

An article's search document holds its topics' titles (``ArticlePage.topic_names``) and its
authors' names (``RelatedFields("authors", ...)``). Wagtail reindexes the object that was saved
only, so renaming the "GPU costs" topic would leave every article filed under the old name until
the article itself was next published. Here a change to a topic's title or an author's name
(or their deletion) reindexes the articles that show it, in a background task (django-tasks,
as Wagtail's own indexing), in batches through every auto-updating search backend.
"""

from django.db import transaction
from django.db.models.signals import post_delete, post_save, pre_delete, pre_save

from wagtail.search import index
from wagtail.search.backends import get_search_backends

from django_tasks import task

# Articles sent to a backend's ``add_bulk`` at once (each batch is one INSERT ... ON CONFLICT on
# the database backend, one bulk request on Elasticsearch/OpenSearch).
REINDEX_BATCH_SIZE = 500


@task()
def reindex_articles(article_ids: list[int]) -> int:
    """Rewrite the search documents of the articles with ``article_ids`` (missing ids are
    skipped) in every search backend with ``AUTO_UPDATE`` on. Returns how many were indexed."""
    from blog.models import ArticlePage

    indexed = 0
    backends = list(get_search_backends(with_auto_update=True))
    ids = sorted(set(article_ids))
    for start in range(0, len(ids), REINDEX_BATCH_SIZE):
        batch = list(
            ArticlePage.get_indexed_objects()
            .filter(pk__in=ids[start : start + REINDEX_BATCH_SIZE])
            .prefetch_related("topics", "authors")
        )
        for backend in backends:
            backend.add_bulk(ArticlePage, batch)
        indexed += len(batch)
    return indexed


def _enqueue(article_ids: list[int]) -> None:
    if article_ids:
        # After the commit, so the task (possibly in another process) reads the new name.
        transaction.on_commit(lambda: reindex_articles.enqueue(article_ids))


def _remember_old_name(field: str):
    def receiver(sender, instance, raw=False, **kwargs):
        if raw or instance.pk is None:
            instance._search_old_name = None
            return
        stored = sender._default_manager.filter(pk=instance.pk).values_list(field, flat=True)
        instance._search_old_name = stored.first()

    return receiver


def _reindex_if_renamed(field: str):
    def receiver(sender, instance, created=False, raw=False, **kwargs):
        old = getattr(instance, "_search_old_name", None)
        if raw or created or old is None or old == getattr(instance, field):
            return
        _enqueue(list(instance.articles.values_list("pk", flat=True)))

    return receiver


def _remember_articles(sender, instance, **kwargs):
    # Before the delete: afterwards the many-to-many rows naming the articles are gone.
    instance._search_article_ids = list(instance.articles.values_list("pk", flat=True))


def _reindex_after_delete(sender, instance, **kwargs):
    _enqueue(getattr(instance, "_search_article_ids", []))


def _remove_deleted_article(sender, instance, **kwargs):
    # ArticlePage indexes itself (``search_auto_update = False``, see its ``save``), so Wagtail
    # does not connect its own removal either.
    index.remove_object(instance)


def connect() -> None:
    """Connect the receivers (called from ``SearchConfig.ready``).

    Topic pages: ``title`` changes when a new title is published (a draft keeps it in
    ``draft_title``), so publishing the rename reindexes, saving a draft does not.
    """
    from blog.models import ArticlePage, Author, TopicPage

    post_delete.connect(_remove_deleted_article, sender=ArticlePage, dispatch_uid="search-freshness-article-deleted")

    for model, field in ((TopicPage, "title"), (Author, "name")):
        uid = f"search-freshness-{model._meta.model_name}"
        pre_save.connect(_remember_old_name(field), sender=model, dispatch_uid=f"{uid}-pre-save", weak=False)
        post_save.connect(_reindex_if_renamed(field), sender=model, dispatch_uid=f"{uid}-post-save", weak=False)
        pre_delete.connect(_remember_articles, sender=model, dispatch_uid=f"{uid}-pre-delete")
        post_delete.connect(_reindex_after_delete, sender=model, dispatch_uid=f"{uid}-post-delete")
