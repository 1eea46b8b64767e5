"""Query budget: every public page runs the same, exact number of SQL queries at 5 and at 50
articles, and at most MAX_QUERIES_PER_PAGE. Pages are listed in tests/query_budget.py."""

from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

import pytest

from blog.models import ArticlePage, Author, BlogIndexPage, TopicPage
from home.models import HomePage

from .factories import ArticlePageFactory, AuthorFactory, SiteImageFactory
from .query_budget import MAX_QUERIES_PER_PAGE, PUBLIC_PAGES, BudgetSite, count_queries, expected_queries

# One pytest-xdist worker measures the module's query counts, once.
pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("query-counts")]


def _add_articles(blog, topic, authors, image, count):
    for _ in range(count):
        ArticlePageFactory(parent=blog, topics=[topic], authors=authors, image=image)


@pytest.fixture(scope="module")
def query_counts(django_db_setup, django_db_blocker):
    """``{page name: (queries at 5 articles, queries at 50, sql at 50)}``, measured once for the
    module inside a transaction that is rolled back afterwards."""
    from django.db import transaction
    from django.test import Client

    counts = {}
    # This atomic block is the module's own rollback, as Django's TestCase opens one.
    rollback = transaction.atomic()
    # Search results are cached per generation (search/views.py): the budget is for computing them.
    no_results_cache = override_settings(SEARCH_RESULTS_CACHE_SECONDS=0)
    with django_db_blocker.unblock(), rollback, no_results_cache:
        ArticlePage.objects.all().delete()
        home = HomePage.objects.get()
        blog = BlogIndexPage.objects.get()
        topic = TopicPage.objects.live().child_of(blog).first()
        authors = [Author.objects.first(), AuthorFactory()]
        # One shared image: renditions are made once, which keeps the module fast.
        image = SiteImageFactory()
        client = Client()
        for total in (5, 50):
            _add_articles(blog, topic, authors, image, total - ArticlePage.objects.count())
            site = BudgetSite(
                home=home, blog=blog, topic=topic, author=authors[0], articles=list(ArticlePage.objects.all())
            )
            for name, url_for in PUBLIC_PAGES:
                number, sql = count_queries(client, url_for(site))
                counts.setdefault(name, []).append((number, sql))
        transaction.set_rollback(True)
    return counts


@pytest.mark.parametrize("name", [name for name, _ in PUBLIC_PAGES])
def test_query_count_does_not_grow_with_the_archive(query_counts, name):
    (at_5, sql_5), (at_50, sql_50) = query_counts[name]
    assert at_5 == at_50, f"{name}: {at_5} queries at 5 articles, {at_50} at 50:\n" + "\n".join(sql_50)
    assert at_50 == expected_queries(name), f"{name}: {at_50} queries:\n" + "\n".join(sql_50)


@pytest.mark.parametrize("name", [name for name, _ in PUBLIC_PAGES])
def test_query_count_is_within_the_budget(query_counts, name):
    (_, _), (at_50, sql_50) = query_counts[name]
    assert at_50 <= MAX_QUERIES_PER_PAGE, f"{name}: {at_50} queries:\n" + "\n".join(sql_50)


def test_a_repeated_search_is_read_from_the_results_cache(client, demo):
    first = client.get("/search/", {"query": "gpus"}).content.decode()
    with CaptureQueriesContext(connection) as queries:
        again = client.get("/search/", {"query": "gpus"}).content.decode()
    statements = [query["sql"] for query in queries.captured_queries]
    # Only the query log: one upsert on PostgreSQL, two statements on SQLite (search/query_log.py);
    # the site is remembered for the generation (home.upstream.wagtail).
    assert len(statements) == (1 if connection.vendor == "postgresql" else 2), statements
    assert all("wagtailsearchpromotions_" in sql for sql in statements)
    assert again.split('class="card-grid"', 1)[1] == first.split('class="card-grid"', 1)[1]
