"""The title-weighted SQLite FTS5 backend (see ``search.backends``). Imported only on SQLite:
the FTS index model exists only there."""

from django.db.models import FloatField, Func

from wagtail.search.backends.database.sqlite.sqlite import (
    SQLiteFTSIndexEntry,
    SQLiteSearchBackend,
    SQLiteSearchQueryCompiler,
)

# bm25() column weights, in the FTS5 table's column order (autocomplete, body, title): a title
# match counts ten times a body match, the autocomplete column (a copy of the title) not at all.
SQLITE_COLUMN_WEIGHTS = (0.0, 1.0, 10.0)


class WeightedBM25(Func):
    """``bm25(<fts table>, w_autocomplete, w_body, w_title)``: lower (more negative) is better."""

    output_field = FloatField()

    def as_sql(self, compiler, connection, **extra_context):
        weights = ", ".join(str(float(weight)) for weight in SQLITE_COLUMN_WEIGHTS)
        return f"bm25({SQLiteFTSIndexEntry._meta.db_table}, {weights})", []


class TitleWeightedSQLiteQueryCompiler(SQLiteSearchQueryCompiler):
    def _build_rank_expression(self, vectors, config):
        # One weighted bm25() for the whole query replaces Wagtail's sum of unweighted ones.
        return WeightedBM25()


class TitleWeightedSQLiteSearchBackend(SQLiteSearchBackend):
    query_compiler_class = TitleWeightedSQLiteQueryCompiler
