"""An index in the listings' order (``ArticlePageQuerySet.listed``): newest first, nulls last,
then the pk, so PostgreSQL reads a page of cards from the index in order and stops after its rows
instead of sorting every article (docs/performance.md).

PostgreSQL only: SQLite cannot declare ``NULLS LAST`` in an index, and its default order already
puts nulls last in a descending scan. Written as SQL rather than ``Meta.indexes`` because Django
has no per-database indexes.
"""

from django.db import migrations

INDEX = "article_listing_order"


def create_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {INDEX} ON blog_articlepage (date_published DESC NULLS LAST, page_ptr_id DESC)"
        )


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [
        ("blog", "0005_reviewer_links"),
    ]

    operations = [migrations.RunPython(create_index, drop_index)]
