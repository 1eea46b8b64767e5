"""A GIN index on ``title || body`` of Wagtail's search index table, on PostgreSQL only.

Wagtail's PostgreSQL backend matches searches with ``(title || body) @@ query`` but indexes
``title`` and ``body`` only separately, so every search read every row (0.48 s for a word in
no article, with 10,000 articles; 0.1 ms with this index). See ``search.postgres_backend``.
"""

from django.db import migrations

INDEX = "site_search_indexentry_title_body_gin"


def create_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {INDEX} ON wagtailsearch_indexentry USING gin ((title || body))"
        )


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [
        ("site_search", "0001_zero_result_queries"),
        ("wagtailsearch", "0010_add_text_fields"),
    ]

    operations = [migrations.RunPython(create_index, drop_index)]
