"""Authors gain drafts, revisions, locking and the review workflow (issue 16).

Existing authors stay live (``live`` defaults to True) and each gets a first revision holding
its current fields, made its live and latest revision, so History and compare start from it.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.utils import timezone


# The fields a revision's content holds for an author (Wagtail's ``serializable_data``: field
# names, foreign keys as their id).
AUTHOR_FIELDS = ("name", "slug", "role", "bio")


def add_first_revisions(apps, schema_editor):
    Author = apps.get_model("blog", "Author")
    Revision = apps.get_model("wagtailcore", "Revision")
    ContentType = apps.get_model("contenttypes", "ContentType")
    author_type, _ = ContentType.objects.get_or_create(app_label="blog", model="author")
    now = timezone.now()
    for author in Author.objects.filter(latest_revision__isnull=True):
        content = {"pk": author.pk, **{field: getattr(author, field) for field in AUTHOR_FIELDS}}
        content.update(
            photo=author.photo_id,
            live=True,
            has_unpublished_changes=False,
            first_published_at=now.isoformat(),
            last_published_at=now.isoformat(),
            go_live_at=None,
            expire_at=None,
            expired=False,
            locked=False,
            locked_at=None,
            locked_by=None,
            latest_revision=None,
            live_revision=None,
        )
        revision = Revision.objects.create(
            content_type=author_type,
            base_content_type=author_type,
            object_id=str(author.pk),
            created_at=now,
            object_str=author.name,
            content=content,
        )
        Author.objects.filter(pk=author.pk).update(
            live=True,
            has_unpublished_changes=False,
            first_published_at=now,
            last_published_at=now,
            latest_revision=revision,
            live_revision=revision,
        )


class Migration(migrations.Migration):
    dependencies = [
        ("blog", "0007_article_listing_order_index"),
        ("wagtailcore", "0098_apitoken"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="author",
            name="expire_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="expiry date/time"),
        ),
        migrations.AddField(
            model_name="author",
            name="expired",
            field=models.BooleanField(default=False, editable=False, verbose_name="expired"),
        ),
        migrations.AddField(
            model_name="author",
            name="first_published_at",
            field=models.DateTimeField(blank=True, db_index=True, null=True, verbose_name="first published at"),
        ),
        migrations.AddField(
            model_name="author",
            name="go_live_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="go live date/time"),
        ),
        migrations.AddField(
            model_name="author",
            name="has_unpublished_changes",
            field=models.BooleanField(default=False, editable=False, verbose_name="has unpublished changes"),
        ),
        migrations.AddField(
            model_name="author",
            name="last_published_at",
            field=models.DateTimeField(editable=False, null=True, verbose_name="last published at"),
        ),
        migrations.AddField(
            model_name="author",
            name="latest_revision",
            field=models.ForeignKey(
                blank=True,
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="wagtailcore.revision",
                verbose_name="latest revision",
            ),
        ),
        migrations.AddField(
            model_name="author",
            name="live",
            field=models.BooleanField(default=True, editable=False, verbose_name="live"),
        ),
        migrations.AddField(
            model_name="author",
            name="live_revision",
            field=models.ForeignKey(
                blank=True,
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="wagtailcore.revision",
                verbose_name="live revision",
            ),
        ),
        migrations.AddField(
            model_name="author",
            name="locked",
            field=models.BooleanField(default=False, editable=False, verbose_name="locked"),
        ),
        migrations.AddField(
            model_name="author",
            name="locked_at",
            field=models.DateTimeField(editable=False, null=True, verbose_name="locked at"),
        ),
        migrations.AddField(
            model_name="author",
            name="locked_by",
            field=models.ForeignKey(
                blank=True,
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="locked_%(class)ss",
                to=settings.AUTH_USER_MODEL,
                verbose_name="locked by",
            ),
        ),
        migrations.RunPython(add_first_revisions, migrations.RunPython.noop),
    ]
