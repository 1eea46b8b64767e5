"""The admin's "Import articles" view (moderators) and its report."""

import io
import zipfile

from django.core.files.uploadedfile import SimpleUploadedFile

import pytest

from blog.models import ArticlePage
from home.text_cleaning import without_invalid_characters

from .test_blog_markdown_import import (
    HOSTILE_FILES,
    NUL_IN_A_FIELD,
    UNREADABLE_MEMBERS,
    png_bytes,
    zip_of,
    zip_with_unreadable,
)

URL = "/admin/articles/import/"
GOOD = b"---\ntitle: Uploaded in the admin\nsummary: From the import view.\n---\n\nText with $x^2$.\n"


def upload(name: str, data: bytes):
    return SimpleUploadedFile(name, data, content_type="application/octet-stream")


@pytest.mark.django_db
def test_only_moderators_see_and_use_the_import_view(client, demo, editor, moderator):
    client.force_login(editor)
    assert client.get(URL).status_code in {302, 403}  # Wagtail's admin redirects with a message
    assert client.post(URL, {"file": upload("a.md", GOOD)}).status_code in {302, 403}
    assert not ArticlePage.objects.filter(slug="uploaded-in-the-admin").exists()
    assert b"Import articles" not in client.get("/admin/").content
    client.force_login(moderator)
    assert client.get(URL).status_code == 200
    assert URL.encode() in client.get("/admin/").content


@pytest.mark.django_db
def test_upload_creates_a_draft_in_the_workflow_and_shows_the_report(client, demo, moderator):
    client.force_login(moderator)
    response = client.post(URL, {"file": upload("a.md", GOOD), "dry_run": "on"})
    assert response.status_code == 200 and b"would create" in response.content
    assert not ArticlePage.objects.filter(slug="uploaded-in-the-admin").exists()
    response = client.post(URL, {"file": upload("a.md", GOOD)})
    page = ArticlePage.objects.get(slug="uploaded-in-the-admin")
    assert b"created" in response.content and f"/admin/pages/{page.pk}/edit/".encode() in response.content
    assert not page.live and page.get_latest_revision().user == moderator
    assert page.get_workflow() is not None  # drafts go through the editorial workflow like any other
    response = client.post(URL, {"file": upload("a.md", GOOD)})
    assert b"skipped" in response.content


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("notes.txt", b"hello", b"Upload a .md file, a WordPress .xml or Ghost .json export, or a .zip."),
        ("broken.zip", b"PK\x03\x04 nope", b"not a readable zip"),
        ("empty.zip", b"PK\x05\x06" + b"\x00" * 18, b"No Markdown files"),
        ("bad.md", b"---\ntitle: [x\n---\n", b"not valid YAML"),
    ],
)
def test_bad_uploads_are_form_errors_or_failed_reports_never_500(client, demo, moderator, name, data, message):
    client.force_login(moderator)
    pages = ArticlePage.objects.count()
    response = client.post(URL, {"file": upload(name, data)})
    assert response.status_code in {200, 400}
    assert message in response.content
    assert ArticlePage.objects.count() == pages


HOSTILE = HOSTILE_FILES | NUL_IN_A_FIELD


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_front_matter_and_nul_are_a_failed_file_in_the_report_never_a_500(client, demo, moderator, name):
    """Deep JSON or YAML, anchors and aliases, values that are not text, a NUL in a field: the
    file fails with the reason in the report (the test client raises what would be a 500)."""
    text, message = HOSTILE[name]
    client.force_login(moderator)
    pages = ArticlePage.objects.count()
    response = client.post(URL, {"file": upload(name, text.encode())})
    assert response.status_code == 200
    [report] = response.context["reports"]
    assert (report.name, report.action) == (name, "failed") and message in report.notes[0]
    assert f"<strong>{name}</strong>: failed" in response.content.decode()
    assert ArticlePage.objects.count() == pages


@pytest.mark.django_db
def test_a_zip_with_nul_and_control_characters_imports_what_the_editor_would_keep(client, demo, moderator):
    """The tester's zip: a NUL in the title fails that file naming the field; control characters
    elsewhere are removed from what is stored and shown (the report, the editor)."""
    front = 'summary: "Sum\\x01mary"\nimage: card.png\nimage_alt: "A\\x1f card"\n'
    members = {
        "nul.md": f'---\ntitle: "Nul\\0title \\x0b ctrl"\n{front}---\n\nBody.\n'.encode(),
        "ctrl.md": f'---\ntitle: "Ctrl\\x0btitle"\n{front}---\n\nBo\x0bdy\x1f text.\n'.encode(),
        "card.png": png_bytes("maroon"),
    }
    client.force_login(moderator)
    response = client.post(URL, {"file": upload("posts.zip", zip_of(members))})
    assert response.status_code == 200
    reports = {report.name: report for report in response.context["reports"]}
    assert reports["nul.md"].failed and reports["nul.md"].notes == ["'title': Null characters are not allowed."]
    assert reports["ctrl.md"].action == "created"
    page = ArticlePage.objects.get(pk=reports["ctrl.md"].page_id)
    assert (page.title, page.summary, page.image_alt) == ("Ctrltitle", "Summary", "A card")
    assert page.body.get_prep_value()[0]["value"] == "<p>Body text.</p>"
    assert without_invalid_characters(response.content.decode()) == response.content.decode()
    edit = client.get(f"/admin/pages/{page.pk}/edit/").content.decode()
    assert "Ctrltitle" in edit and without_invalid_characters(edit) == edit


@pytest.mark.django_db
def test_zip_slip_upload_is_refused(client, demo, moderator):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("../../evil.md", GOOD)
    client.force_login(moderator)
    response = client.post(URL, {"file": upload("evil.zip", buffer.getvalue())})
    assert response.status_code == 400 and b"paths outside its folder" in response.content


@pytest.mark.parametrize("page_id", ["9" * 25, "9223372036854775808", "1"])
def test_markdown_download_of_an_id_that_is_no_article_is_a_404(client, demo, editor, page_id):
    """An id past a 64-bit integer (an OverflowError on SQLite before) or a page that is not an
    article (the root page) is a 404, never a 500."""
    client.raise_request_exception = False
    client.force_login(editor)
    response = client.get(f"/admin/articles/{page_id}/markdown/")
    assert response.status_code == 404, (page_id, response.status_code)


@pytest.mark.django_db
@pytest.mark.parametrize("case", sorted(UNREADABLE_MEMBERS))
def test_an_unreadable_zip_member_is_a_clear_error_or_note_never_a_500(client, demo, moderator, case):
    """An encrypted, Deflate64, AES or damaged ``.md`` fails the upload naming it and why; such an
    image is a note and the article is imported without it (the test client raises what would
    be a 500)."""
    client.force_login(moderator)
    pages = ArticlePage.objects.count()
    response = client.post(URL, {"file": upload("posts.zip", zip_with_unreadable("post.md", case))})
    assert response.status_code == 400
    assert f"posts.zip: post.md {UNREADABLE_MEMBERS[case][1]}" in response.content.decode()
    assert ArticlePage.objects.count() == pages
    response = client.post(URL, {"file": upload("posts.zip", zip_with_unreadable("images/card.png", case))})
    assert response.status_code == 200
    [report] = response.context["reports"]
    assert report.action == "created" and len(report.notes) == 2
    assert all(f"image images/card.png {UNREADABLE_MEMBERS[case][1]}" in note for note in report.notes)


@pytest.mark.django_db
def test_a_body_image_with_an_accented_name_is_found_in_an_uploaded_zip(client, demo, moderator):
    markdown = "---\ntitle: Café chart\nsummary: s\n---\n\n![A café chart](images/café.png)\n"
    members = {"post.md": markdown.encode(), "images/café.png": png_bytes("olive")}
    client.force_login(moderator)
    response = client.post(URL, {"file": upload("posts.zip", zip_of(members))})
    [report] = response.context["reports"]
    assert report.action == "created" and report.notes == []
    assert ArticlePage.objects.get(pk=report.page_id).body[0].block_type == "image"
