"""``manage.py import_articles PATH...``: Markdown files, folders or zips, and WordPress (WXR) or
Ghost (JSON) exports, in as draft articles."""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from wagtail.models import Page

from blog.markdown_import import MarkdownImportError, import_sources
from blog.models import BlogIndexPage, TopicPage
from blog.platform_import import sources_from_path


class Command(BaseCommand):
    help = (
        "Import articles as drafts: Markdown (.md files with YAML front matter, folders of them with their "
        "images, or zips of such folders), a WordPress export (.xml, WXR) or a Ghost export (.json), "
        "alone or in a zip or folder with its images. Exits 1 if any file or post failed (nothing is written "
        "for it)."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", type=Path, help="Markdown files, exports, folders or .zip files.")
        parser.add_argument("--dry-run", action="store_true", help="Report what would be done; write nothing.")
        parser.add_argument(
            "--parent",
            help="Blog index or topic (page id or slug) to import under; a topic is also added to each "
            "article. Default: the only blog index.",
        )
        parser.add_argument(
            "--update",
            action="store_true",
            help="For a slug that exists: save a new draft revision (the live version is never changed).",
        )
        parser.add_argument("--user", help="Username recorded as the revisions' author.")
        parser.add_argument(
            "--media",
            type=Path,
            help="A folder of an export's images (e.g. WordPress's wp-content/uploads or Ghost's content/images), "
            "looked up by the path of each image URL. Images are never downloaded.",
        )

    def handle(self, *args, paths, dry_run, parent, update, user, media, **options):
        blog_index, topic = self.parent(parent)
        if media is not None and not media.is_dir():
            raise CommandError(f"--media {media}: not a folder.")
        owner = None
        if user:
            owner = get_user_model().objects.filter(username=user).first()
            if owner is None:
                raise CommandError(f"No user '{user}'.")
        sources = []
        try:
            for path in paths:
                sources.extend(sources_from_path(path, media=media))
        except MarkdownImportError as error:
            raise CommandError(f"{error} (nothing imported)") from error
        if not sources:
            raise CommandError("No Markdown files or exports found (nothing imported).")
        reports = import_sources(sources, parent=blog_index, topic=topic, user=owner, update=update, dry_run=dry_run)
        for report in reports:
            style = self.style.ERROR if report.failed else self.style.SUCCESS
            self.stdout.write(style(report.line()))
        failed = [report for report in reports if report.failed]
        summary = ", ".join(
            f"{count} {action}"
            for action in dict.fromkeys(report.action for report in reports)
            if (count := sum(report.action == action for report in reports))
        )
        self.stdout.write(f"{len(reports)} file(s): {summary}{' (dry run: nothing written)' if dry_run else ''}.")
        if failed:
            raise CommandError(f"{len(failed)} file(s) could not be imported: " + ", ".join(r.name for r in failed))

    def parent(self, value):
        """``(blog index, topic or None)`` for ``--parent``: a page id or slug of a blog index or topic."""
        if value is None:
            indexes = list(BlogIndexPage.objects.all()[:2])
            if len(indexes) != 1:
                raise CommandError("Give --parent: there is not exactly one blog index.")
            return indexes[0], None
        pages = Page.objects.filter(pk=int(value)) if value.isdigit() else Page.objects.filter(slug=value)
        page = pages.specific().first()
        if isinstance(page, BlogIndexPage):
            return page, None
        if isinstance(page, TopicPage):
            blog_index = page.get_parent().specific
            if isinstance(blog_index, BlogIndexPage):
                return blog_index, page
        raise CommandError(f"--parent {value}: not a blog index or topic.")
