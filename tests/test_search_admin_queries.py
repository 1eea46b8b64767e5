"""Admin listings and choosers that search, under the text editors (and testers) type.

Every query string reaches the search backend (SQLite FTS5 in the default test run, PostgreSQL
full-text search when DATABASE_URL names PostgreSQL): quotes, FTS5 operators and NUL bytes must
give a listing (possibly empty), never a 500.
"""

import re

from wagtail.images import get_image_model
from wagtail.search.backends import get_search_backend

import pytest
from wagtail_factories import DocumentFactory, ImageFactory

from blog.models import ArticlePage, Author

pytestmark = pytest.mark.django_db

# Each kind of text that has broken a search, the two a listing also gets first (see
# LISTING_QUERIES).
HOSTILE_QUERY_KINDS = {
    "quotes": ['"unbalanced', 'a"b', '"', '">', '""', "'", "\\"],
    # FTS5 column filters, NEAR, prefix stars, carets and brackets; tsquery's operators.
    "search syntax": ["title:x", "NEAR(a b)", "a*", "*", "^x", "a:b", "{title}: x", "a + b", "(", ")", "-"],
    "operators alone": ["x NOT", "AND", "OR x", "NOT"],
    "NUL bytes": ["\x00", "a\x00b"],  # PostgreSQL refuses them in any text parameter
    "markup and SQL": ['"><script>alert(1)</script>', "' OR 1=1 --"],
    "invisible and accented characters": ["\u202e\u200b\ufeff", "é" * 50],
    # Hundreds of words, plain and quoted (home/upstream/modelsearch.py: modelsearch's compilers
    # recurse a level per word).
    "hundreds of words": [" ".join(["gpu"] * 600), " ".join(['"gpu costs"'] * 300)],
}
HOSTILE_QUERIES = [query for queries in HOSTILE_QUERY_KINDS.values() for query in queries]


def admin_search_urls(demo) -> list[str]:
    """Every admin listing and chooser that searches, as the part that runs the search and lists
    the results: Wagtail's ``results/`` view of a listing (what its search box fetches as the
    editor types) where it has one, else the whole page (the choosers' own result views, and
    wagtail-modeladmin's listings, which have none)."""
    article = demo.articles[0]
    return [
        "/admin/snippets/blog/author/results/",
        "/admin/images/results/",
        "/admin/images/chooser/results/",
        "/admin/documents/results/",
        "/admin/documents/chooser/results/",
        "/admin/choose-page/search/",
        f"/admin/pages/{demo.blog.pk}/results/",
        f"/admin/pages/{article.pk}/results/",
        "/admin/pages/search/results/",
        "/admin/snippets/choose/blog/author/results/",
        "/admin/users/results/",
        "/admin/blog/articlepage/",
        "/admin/blog/topicpage/",
    ]


def admin_listing_pages(demo) -> list[str]:
    """The whole pages around the ``results/`` views above, which also print the query back
    into their search box."""
    return [
        "/admin/snippets/blog/author/",
        "/admin/images/",
        "/admin/images/chooser/",
        "/admin/documents/",
        "/admin/documents/chooser/",
        f"/admin/pages/{demo.blog.pk}/",
        "/admin/pages/search/",
        "/admin/users/",
    ]


@pytest.fixture
def media(db):
    ImageFactory(title="Cedana GPU diagram")
    DocumentFactory(title="Cedana GPU whitepaper")


def query_id(query: str) -> str:
    """A test id: the query, or its start and length when it is long."""
    return query if len(query) <= 40 else f"{query[:20]}...({len(query)} characters)"


# Every hostile query reaches the backend in test_the_backend_turns_any_text_into_a_safe_query
# below, with each model the listings search. What a listing adds is its own handling of the
# text before the backend (forms, length limits, filters, ORM lookups beside the search, the
# query printed back), so each listing gets two queries of every kind.
LISTING_QUERIES = [query for queries in HOSTILE_QUERY_KINDS.values() for query in queries[:2]]


@pytest.mark.parametrize("query", LISTING_QUERIES, ids=query_id)
def test_admin_searches_never_fail(admin_client, demo, media, query):
    for url in admin_search_urls(demo):
        response = admin_client.get(url, {"q": query})
        # The modeladmin listings shorten a search longer than theirs (blog/admin_listing_query.py).
        assert response.status_code in {200, 302}, (url, query, response.status_code)


# The whole pages run the same search as their results views; what they add is the query
# printed back into the page, so the queries that are markup, quotes, NUL or invisible.
@pytest.mark.parametrize("query", ['"><script>alert(1)</script>', "a\x00b", "\u202e\u200b\ufeff", "' OR 1=1 --"])
def test_admin_listing_pages_print_any_query_back(admin_client, demo, media, query):
    for url in admin_listing_pages(demo):
        response = admin_client.get(url, {"q": query})
        assert response.status_code in {200, 302}, (url, query, response.status_code)
        assert b"<script>alert(1)" not in response.content, url


def test_author_snippet_search_finds_by_name_and_role(admin_client, db):
    Author.objects.create(name="Grace Hopper", slug="grace-hopper", role="Compiler lead")
    Author.objects.create(name="Alan Kay", slug="alan-kay", role="Smalltalk designer")

    def names(query):
        response = admin_client.get("/admin/snippets/blog/author/", {"q": query})
        assert response.status_code == 200, response.content[:300]
        return {author.name for author in response.context["object_list"]}

    assert names("grace") == {"Grace Hopper"}
    assert names("hopp") == {"Grace Hopper"}  # a prefix, as editors type
    assert names("compiler") == {"Grace Hopper"}  # the role is searched too
    assert names("smalltalk") == {"Alan Kay"}
    assert names('"') == set()


def test_quoted_terms_still_find_what_they_quote(admin_client, demo):
    article = ArticlePage.objects.get(pk=demo.articles[0].pk)
    # The title's rarest word among the titles, so the article is on the chooser's first page.
    words = re.findall(r"\w{4,}", article.title)
    word = min(words, key=lambda w: ArticlePage.objects.filter(title__icontains=w).count())
    response = admin_client.get("/admin/choose-page/search/", {"q": f'"{word}'})
    assert response.status_code == 200
    assert article.title in response.content.decode()


def test_images_are_found_with_a_quote_in_the_query(admin_client, media):
    response = admin_client.get("/admin/images/", {"q": 'diagram"'})
    assert response.status_code == 200
    assert "Cedana GPU diagram" in response.content.decode()


@pytest.mark.parametrize("query", HOSTILE_QUERIES, ids=query_id)
def test_the_backend_turns_any_text_into_a_safe_query(demo, media, query):
    """Every caller (site search, admin, API, shell) goes through the backend: it must cope."""
    backend = get_search_backend()
    for method in (backend.search, backend.autocomplete):
        for queryset in (ArticlePage.objects.live(), get_image_model().objects.all(), Author.objects.all()):
            results = method(query, queryset)
            list(results[:10])
            results.count()
        list(method(query, ArticlePage.objects.live(), order_by_relevance=False)[:10])


def test_field_restricted_search(demo):
    """``fields=`` restricts the match to the named fields, as Wagtail's other backends do."""
    Author.objects.create(name="Grace Hopper", slug="grace-hopper", role="Compiler lead", bio="Loves Smalltalk")
    backend = get_search_backend()
    authors = Author.objects.all()
    assert [a.name for a in backend.search("compiler", authors, fields=["role"])] == ["Grace Hopper"]
    assert backend.search("compiler", authors, fields=["role"]).count() == 1
    assert [a.name for a in backend.autocomplete("gra", authors, fields=["name", "role"])] == ["Grace Hopper"]
    article = demo.articles[0]
    title_word = article.title.split()[-1]
    found = backend.search(title_word, ArticlePage.objects.live(), fields=["title"])
    assert article.pk in {page.pk for page in found}
    assert article.pk in {page.pk for page in found[:50]}
