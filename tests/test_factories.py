"""Every page type and snippet has a working factory (so new models cannot skip one)."""

from django.apps import apps

from wagtail.models import Page
from wagtail.snippets.models import get_snippet_models

import pytest

from . import factories

pytestmark = pytest.mark.django_db

OUR_APPS = {"home", "blog", "site_search"}


def factory_models():
    return {
        factory._meta.model
        for factory in vars(factories).values()
        if isinstance(factory, type) and hasattr(factory, "_meta") and getattr(factory._meta, "model", None)
    }


def test_each_page_type_and_snippet_has_a_factory():
    ours = [
        model
        for model in apps.get_models()
        if model._meta.app_label in OUR_APPS
        and (issubclass(model, Page) or model in get_snippet_models())
        and not model._meta.abstract
    ]
    assert ours, "no page types found"
    missing = [model.__name__ for model in ours if model not in factory_models()]
    assert not missing, f"add a factory to tests/factories.py for: {missing}"


def test_article_factory_builds_a_live_listed_article(demo):
    article = factories.ArticlePageFactory(parent=demo.blog, topics=[demo.topics["gpu-costs"]])
    assert article.live and article.authors.count() == 1
    assert article.image.width == 1200
    assert article in demo.topics["gpu-costs"].articles.all()


def test_article_factory_saves_each_article_once_with_its_topics_and_authors(demo, monkeypatch):
    """One save writes the article with its topics and authors, so it is indexed once (each
    save of an article indexes it): the suite makes hundreds of articles."""
    from .test_search_index import count_index_writes

    topic, author = demo.topics["gpu-costs"], factories.AuthorFactory()
    written = count_index_writes(monkeypatch)
    article = factories.ArticlePageFactory(parent=demo.blog, title="Quetzal report", topics=[topic], authors=[author])
    assert written == [article.pk]
    assert list(article.topics.all()) == [topic] and list(article.authors.all()) == [author]
    assert [page.pk for page in type(article).objects.search("quetzal")] == [article.pk]
