"""Word forms: a search finds the other forms of its words on SQLite as on PostgreSQL.

PostgreSQL stems with its ``english`` configuration; SQLite with FTS5's ``porter`` tokenizer
(``search/migrations/0003_sqlite_porter_stemming.py``). Autocomplete stays prefix matching.
"""

import importlib
from types import SimpleNamespace

from django.db import connection

import pytest

from .factories import ArticlePageFactory
from .test_search_results import result_titles, search

pytestmark = pytest.mark.django_db

porter_migration = importlib.import_module("search.migrations.0003_sqlite_porter_stemming")

# (a word in the article, other forms of it a reader may type)
WORD_FAMILIES = [
    ("checkpointing", ["checkpoint", "checkpoints", "checkpointed", "CHECKPOINT"]),
    ("connections", ["connection", "connect", "connected", "connecting"]),
    ("scheduled", ["schedule", "schedules", "scheduling"]),
    ("latencies", ["latency"]),
    ("running", ["run", "runs"]),
    ("quantized", ["quantize", "quantizing", "quantizes"]),
]


@pytest.mark.parametrize(("indexed", "typed"), WORD_FAMILIES)
def test_every_form_of_a_body_word_finds_the_article(client, demo, indexed, typed):
    ArticlePageFactory(
        parent=demo.blog,
        title="Marsupial operations",
        summary="A field report.",
        body=[{"type": "paragraph", "value": f"<p>We kept the wombat {indexed} all week.</p>"}],
        topics=[],
    )
    for word in typed:
        assert result_titles(search(client, query=f"wombat {word}")) == ["Marsupial operations"], word


def test_a_title_word_is_stemmed_too_and_still_ranks_first(client, demo):
    ArticlePageFactory(parent=demo.blog, title="Quokka checkpoints", topics=[])
    ArticlePageFactory(
        parent=demo.blog,
        title="Field notes",
        topics=[],
        body=[{"type": "paragraph", "value": "<p>A quokka checkpointed its burrow.</p>"}],
    )
    assert result_titles(search(client, query="quokka checkpointing")) == ["Quokka checkpoints", "Field notes"]


def test_unrelated_words_sharing_letters_do_not_match(client, demo):
    ArticlePageFactory(
        parent=demo.blog,
        title="Numbat notes",
        topics=[],
        body=[{"type": "paragraph", "value": "<p>The numbat connections held.</p>"}],
    )
    for word in ["con", "connectome", "checkpoint"]:
        assert result_titles(search(client, query=f"numbat {word}")) == [], word


def test_autocomplete_still_completes_a_prefix(client, demo):
    ArticlePageFactory(parent=demo.blog, title="Capybara checkpointing", topics=[])
    # Half-typed words whose stems differ from the prefix ("capy" stems to "capi", "runn" is
    # longer than "run"): the autocomplete table is not stemmed.
    ArticlePageFactory(parent=demo.blog, title="Capybara running connections", topics=[])
    for prefix in ["capy", "capybara", "capybara check", "capybara runn", "capybara connecti"]:
        titles = [hit["title"] for hit in client.get("/search/autocomplete/", {"q": prefix}).json()["results"]]
        assert titles and all(title.startswith("Capybara") for title in titles), prefix
    assert "Capybara checkpointing" in [
        hit["title"] for hit in client.get("/search/autocomplete/", {"q": "capybara checkp"}).json()["results"]
    ]


def test_autocomplete_follows_edits_deletions_and_new_pages(client, demo):
    def completions(prefix):
        return [hit["title"] for hit in client.get("/search/autocomplete/", {"q": prefix}).json()["results"]]

    article = ArticlePageFactory(parent=demo.blog, title="Dugong surveys", topics=[])
    assert completions("dugo") == ["Dugong surveys"]
    article.title = "Manatee surveys"
    article.save_revision().publish()
    assert completions("dugo") == []
    assert completions("manat") == ["Manatee surveys"]
    article.delete()
    assert completions("manat") == []


@pytest.mark.skipif(connection.vendor != "sqlite", reason="the FTS5 table exists on SQLite only")
def test_the_migration_refills_the_rebuilt_table_from_the_index(client, demo):
    ArticlePageFactory(parent=demo.blog, title="Pangolin checkpointing", topics=[])
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM wagtailsearch_indexentry_fts")
        before = cursor.fetchone()[0]
    # Django's SQLite schema editor refuses to run inside the test's transaction; the migration
    # only needs its connection and execute().
    with connection.cursor() as cursor:
        schema_editor = SimpleNamespace(connection=connection, execute=cursor.execute)
        porter_migration.use_wagtails_tokenizer(None, schema_editor)
    assert "Pangolin checkpointing" not in result_titles(search(client, query="pangolin checkpoint"))
    with connection.cursor() as cursor:
        schema_editor = SimpleNamespace(connection=connection, execute=cursor.execute)
        porter_migration.use_porter_stemming(None, schema_editor)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), (SELECT count(*) FROM wagtailsearch_indexentry),"
            " (SELECT count(*) FROM site_search_autocomplete_fts) FROM wagtailsearch_indexentry_fts"
        )
        after, entries, autocomplete_rows = cursor.fetchone()
    assert after == before == entries == autocomplete_rows
    # Another form than above: results are cached per query for the page-cache generation.
    assert result_titles(search(client, query="pangolin checkpointed")) == ["Pangolin checkpointing"]
