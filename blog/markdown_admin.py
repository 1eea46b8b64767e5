"""Admin views for Markdown in and out: "Import articles" for moderators, and each article's
"Download as Markdown" (a zip of the Markdown and its images, for people who can edit it)."""

from django import forms
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse

from wagtail.models import Page

from blog.markdown_export import articles_zip
from blog.markdown_import import MAX_ZIP_BYTES, MarkdownImportError, import_sources
from blog.models import ArticlePage, BlogIndexPage
from blog.platform_import import sources_from_upload
from home.text_cleaning import remove_invalid_characters


def can_import(user, blog_index) -> bool:
    """Moderators (people who may publish under the blog index) import; editors do not."""
    return blog_index is not None and blog_index.permissions_for_user(user).can_publish_subpage()


class ImportArticlesForm(forms.Form):
    """The upload: one ``.md`` file, a WordPress (``.xml``) or Ghost (``.json``) export, or a
    ``.zip`` of a folder of them with their images."""

    file = forms.FileField(
        help_text="A Markdown file (.md) with YAML front matter, a WordPress export (.xml) or a Ghost export "
        "(.json), or a .zip of a folder of them with their images."
    )
    update = forms.BooleanField(
        required=False, help_text="Articles that exist get a new draft revision (the live version never changes)."
    )
    dry_run = forms.BooleanField(required=False, label="Dry run", help_text="Report what would happen; save nothing.")

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if not upload.name.lower().endswith((".md", ".markdown", ".zip", ".xml", ".json")):
            raise forms.ValidationError("Upload a .md file, a WordPress .xml or Ghost .json export, or a .zip.")
        if upload.size > MAX_ZIP_BYTES:
            raise forms.ValidationError(f"The file is larger than {MAX_ZIP_BYTES // 2**20} MB.")
        return upload


def import_articles(request):
    """``/admin/articles/import/``: the form; POST imports as drafts and shows the per-file report."""
    blog_index = BlogIndexPage.objects.first()
    if not can_import(request.user, blog_index):
        raise PermissionDenied
    reports, error = None, None
    form = ImportArticlesForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            sources = sources_from_upload(upload.name, upload.read())
        except MarkdownImportError as problem:
            error = f"{remove_invalid_characters(str(problem))} (nothing imported)"  # it may quote file names
        else:
            reports = import_sources(
                sources,
                parent=blog_index,
                user=request.user,
                update=form.cleaned_data["update"],
                dry_run=form.cleaned_data["dry_run"],
            )
            if not reports:
                error = "No Markdown files or exports in the upload (nothing imported)."
    status = 400 if error or (request.method == "POST" and not form.is_valid()) else 200
    return TemplateResponse(
        request,
        "blog/admin/import_articles.html",
        {"form": form, "reports": reports, "error": error, "dry_run": form.data.get("dry_run")},
        status=status,
    )


def download_markdown(request, page_id: int):
    """``/admin/articles/<page_id>/markdown/``: the article's latest revision (draft or live) as a
    zip of ``<slug>.md`` and its images, for people who can edit it."""
    # Looked up as a Page, then narrowed: ArticlePage's pk is the ``page_ptr`` link, whose lookup
    # lacks Django's overflow handling (ticket #27397), so an id past a 64-bit integer in the URL
    # would be an OverflowError (500) on SQLite instead of a 404.
    page = get_object_or_404(Page, pk=page_id).specific
    if not isinstance(page, ArticlePage):
        raise Http404("No article with this id.")
    if not page.permissions_for_user(request.user).can_edit():
        raise PermissionDenied
    latest = page.get_latest_revision_as_object()
    response = HttpResponse(articles_zip([latest]), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{page.slug}.zip"'
    return response
