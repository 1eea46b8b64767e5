"""Word forms on SQLite: Wagtail's FTS5 search table stems words (``porter``), and autocomplete
gets an FTS5 table of its own that does not.

Wagtail creates ``wagtailsearch_indexentry_fts`` with FTS5's default ``unicode61`` tokenizer,
which indexes words as typed, so "checkpoint" missed "checkpointing" on SQLite while PostgreSQL
(``SEARCH_CONFIG = "english"``) stems both to one lexeme. ``porter unicode61`` stems with the
Porter algorithm on top of the same Unicode word splitting and case/diacritic folding
(https://sqlite.org/fts5.html#porter_tokenizer). The tokenizer is fixed when the table is
created, so the table is rebuilt and refilled from ``wagtailsearch_indexentry``, which holds the
same text; Wagtail's triggers name the table, so they keep working.

FTS5 also stems prefix queries, which breaks completion of half-typed words, so the
``autocomplete`` column is copied into ``site_search_autocomplete_fts`` (``unicode61``, as
PostgreSQL's ``simple`` configuration for autocomplete) by triggers like Wagtail's
(``search.models.AutocompleteIndexEntry``). Only on SQLite, and only where Wagtail created its
table (SQLite built with FTS5).
"""

from django.db import migrations, models
import django.db.models.deletion

FTS_TABLE = "wagtailsearch_indexentry_fts"
AUTOCOMPLETE_TABLE = "site_search_autocomplete_fts"
INDEX_TABLE = "wagtailsearch_indexentry"
STEMMING_TOKENIZER = "porter unicode61"

AUTOCOMPLETE_TRIGGERS = {
    "site_search_autocomplete_insert": (
        f"AFTER INSERT ON {INDEX_TABLE} BEGIN "
        f"INSERT INTO {AUTOCOMPLETE_TABLE} (rowid, autocomplete) VALUES (NEW.id, NEW.autocomplete); END"
    ),
    "site_search_autocomplete_update": (
        f"AFTER UPDATE ON {INDEX_TABLE} BEGIN "
        f"UPDATE {AUTOCOMPLETE_TABLE} SET autocomplete = NEW.autocomplete WHERE rowid = NEW.id; END"
    ),
    "site_search_autocomplete_delete": (
        f"AFTER DELETE ON {INDEX_TABLE} BEGIN DELETE FROM {AUTOCOMPLETE_TABLE} WHERE rowid = OLD.id; END"
    ),
}


def _has_fts_table(schema_editor) -> bool:
    if schema_editor.connection.vendor != "sqlite":
        return False
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = %s", [FTS_TABLE])
        return cursor.fetchone() is not None  # None: no FTS5 in this SQLite, Wagtail searches without


def _rebuild_search_table(schema_editor, tokenizer: str | None):
    tokenize = f", tokenize = '{tokenizer}'" if tokenizer else ""
    schema_editor.execute(f"DROP TABLE {FTS_TABLE}")
    schema_editor.execute(f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(autocomplete, body, title{tokenize})")
    schema_editor.execute(
        f"INSERT INTO {FTS_TABLE} (rowid, title, body, autocomplete) "
        f"SELECT id, title, body, autocomplete FROM {INDEX_TABLE}"
    )


def use_porter_stemming(apps, schema_editor):
    if not _has_fts_table(schema_editor):
        return
    _rebuild_search_table(schema_editor, STEMMING_TOKENIZER)
    schema_editor.execute(f"CREATE VIRTUAL TABLE {AUTOCOMPLETE_TABLE} USING fts5(autocomplete)")
    schema_editor.execute(
        f"INSERT INTO {AUTOCOMPLETE_TABLE} (rowid, autocomplete) SELECT id, autocomplete FROM {INDEX_TABLE}"
    )
    for name, definition in AUTOCOMPLETE_TRIGGERS.items():
        schema_editor.execute(f"CREATE TRIGGER {name} {definition}")


def use_wagtails_tokenizer(apps, schema_editor):
    if not _has_fts_table(schema_editor):
        return
    for name in AUTOCOMPLETE_TRIGGERS:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {name}")
    schema_editor.execute(f"DROP TABLE IF EXISTS {AUTOCOMPLETE_TABLE}")
    _rebuild_search_table(schema_editor, None)


class Migration(migrations.Migration):
    dependencies = [
        ("site_search", "0002_postgres_title_body_search_index"),
        ("wagtailsearch", "0010_add_text_fields"),
    ]

    operations = [
        migrations.CreateModel(
            name="AutocompleteIndexEntry",
            fields=[
                (
                    "index_entry",
                    models.OneToOneField(
                        db_column="rowid",
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to="wagtailsearch.indexentry",
                    ),
                ),
                ("autocomplete", models.TextField(null=True)),
            ],
            options={"db_table": "site_search_autocomplete_fts", "managed": False},
        ),
        migrations.RunPython(use_porter_stemming, use_wagtails_tokenizer),
    ]
