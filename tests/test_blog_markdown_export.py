"""Markdown out: the exporter, its admin download and API field, and the round trip
import(export(article)) == article's body over every block type and the whole demo."""

import io
import zipfile

import pytest
import yaml

from blog.markdown_export import article_markdown, articles_zip, body_markdown, escape_text
from blog.markdown_import import (
    ArticleReader,
    MarkdownSource,
    SourceFiles,
    comparable_body,
    read_article,
    sources_from_upload,
)
from blog.models import ArticlePage

from .reader_pages import make_every_block_article


def round_trip(page) -> tuple[list, list]:
    """``(page's body, the body read back from its exported zip)``, both as comparable data."""
    (source,) = sources_from_upload("export.zip", articles_zip([page]))
    parsed = read_article(source)
    assert not [note for note in parsed.notes if "kept as text" in note], parsed.notes
    return comparable_body(page.body), comparable_body(parsed.body)


@pytest.mark.django_db
def test_round_trip_over_every_block_type(demo):
    article = make_every_block_article(demo.blog, demo.topics["gpu-costs"])
    original, read_back = round_trip(article)
    assert read_back == original
    kinds = {kind for kind, _value in read_back}
    assert kinds >= {"math", "embed", "cta", "key_figure", "callout", "table", "chart", "footnotes"}


@pytest.mark.django_db
def test_round_trip_over_the_whole_demo(demo):
    assert len(demo.articles) >= 20
    for article in demo.articles:
        original, read_back = round_trip(article.get_latest_revision_as_object())
        assert read_back == original, article.slug


RICH_TEXT_CASES = [
    "<p>Plain words.</p>",
    "<p>Stars * and _underscores_ and [brackets] and <code>`tick`</code> and \\backslash.</p>",
    "<p># not a heading, - not a list</p>",
    "<p>1. not a list either</p>",
    "<p>&lt;b&gt;not bold&lt;/b&gt; &amp;amp; kept</p>",
    "<p>Prices $5 and $10, math $x^2$, escaped \\$y\\$ dollars.</p>",
    "<p>Break even at $u \\ge 0.57$, which costs \\$5 a day.</p>",
    "<p>a \\$5 $b$ \\$ and a lone $</p>",
    '<p><b>bold</b> <i>italic</i> <b>bold <i>both</i></b> <a href="https://example.com/a_(b)">odd url</a></p>',
    "<p>Break<br/>line</p>",
    "<ul><li>one<ul><li>nested <b>bold</b></li></ul></li><li>two</li></ul><ul><li>second list</li></ul>",
    "<ol><li>first</li><li>second</li></ol>",
    "<p>| pipes | in text |</p>",
    "<p>A reference[^a] with no note stays text, [^not a label] and <code>[^a-z]</code> too.</p>",
]


@pytest.mark.django_db
@pytest.mark.parametrize("html", RICH_TEXT_CASES)
def test_rich_text_round_trips(html, demo):
    body = [{"type": "paragraph", "value": html}]
    markdown = "---\ntitle: T\nsummary: s\n---\n\n" + body_markdown(_stream(body))
    reader = ArticleReader(
        MarkdownSource("t.md", markdown, SourceFiles()), resolve_link=lambda *a: None, image_for=lambda *a: None
    )
    assert comparable_body(reader.read().body) == comparable_body(body), markdown


def _stream(raw):
    from blog.blocks import ArticleBodyBlock

    return ArticleBodyBlock().to_python(raw)


def test_escape_text_backslashes_markdown_punctuation():
    assert escape_text("a*b_c[d]`e`<f>#|~$") == "a\\*b\\_c\\[d\\]\\`e\\`\\<f\\>\\#\\|\\~\\$"
    assert escape_text("R&D &amp;") == "R&D \\&amp;"


@pytest.mark.django_db
def test_page_links_export_as_md_files_and_front_matter_is_yaml(demo):
    target = demo.articles[1]
    article = demo.articles[0].get_latest_revision_as_object()
    article.body = [{"type": "paragraph", "value": f'<p>See <a linktype="page" id="{target.pk}">that</a>.</p>'}]
    markdown = article_markdown(article)
    assert f"[that]({target.slug}.md)" in markdown
    front = yaml.safe_load(markdown.split("---\n")[1])
    assert front["title"] == article.title and front["slug"] == article.slug
    assert front["topics"] == [topic.slug for topic in article.topics.all()]
    assert front["image"].startswith("images/")


@pytest.mark.django_db
def test_zip_has_every_article_and_its_images(demo):
    data = articles_zip(demo.articles[:3])
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    for article in demo.articles[:3]:
        assert f"{article.slug}.md" in names
    assert any(name.startswith("images/") for name in names)


@pytest.mark.django_db
def test_admin_download_needs_edit_permission_and_gives_the_latest_draft(client, demo, editor, django_user_model):
    article = demo.articles[0]
    draft = article.get_latest_revision_as_object()
    draft.summary = "A draft summary."
    draft.save_revision()
    url = f"/admin/articles/{article.pk}/markdown/"
    client.force_login(editor)
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    text = zipfile.ZipFile(io.BytesIO(response.content)).read(f"{article.slug}.md").decode()
    assert "A draft summary." in text
    edit = client.get(f"/admin/pages/{article.pk}/edit/")
    assert url.encode() in edit.content
    assert client.get("/admin/articles/999999/markdown/").status_code == 404
    stranger = django_user_model.objects.create_user("stranger", password="x", is_staff=True)
    from django.contrib.auth.models import Permission

    stranger.user_permissions.add(Permission.objects.get(codename="access_admin"))
    client.force_login(stranger)
    refused = client.get(url)
    assert refused.status_code in {302, 403} and refused.get("Content-Type") != "application/zip"


@pytest.mark.django_db
def test_api_has_the_article_as_markdown(client, demo):
    article = demo.articles[0]
    data = client.get(f"/api/v2/pages/{article.pk}/").json()
    assert data["markdown"].startswith("---\ntitle:")
    assert article.image.file.url in data["markdown"]
    assert ArticlePage.objects.get(pk=article.pk).markdown == data["markdown"]


@pytest.mark.django_db
def test_footnotes_and_charts_export_as_markdown_footnotes_and_a_chart_directive(demo):
    body = _stream(
        [
            {"type": "paragraph", "value": "<p>Measured[^mlperf], not <code>[^x]</code>.</p>"},
            {"type": "footnotes", "value": {"notes": [{"label": "mlperf", "text": "<p>MLPerf <i>v4</i>.</p>"}]}},
            {
                "type": "chart",
                "value": {"title": "T", "kind": "bar", "data": "GPU,Hours\nA100,5", "series": "", "y_unit": "h"},
            },
            {"type": "paragraph", "value": "<p>After.</p>"},
        ]
    )
    markdown = body_markdown(body)
    assert "Measured[^mlperf], not `[^x]`." in markdown
    assert "<!-- footnotes -->\n\n[^mlperf]: MLPerf *v4*." in markdown
    assert "```{chart}\n:title: T\n:kind: bar\n" in markdown and "\nGPU,Hours\nA100,5\n```" in markdown
    reader = ArticleReader(
        MarkdownSource("t.md", "---\ntitle: T\nsummary: s\n---\n\n" + markdown, SourceFiles()),
        resolve_link=lambda *a: None,
        image_for=lambda *a: None,
    )
    parsed = reader.read()
    assert [block["type"] for block in parsed.body] == ["paragraph", "footnotes", "chart", "paragraph"]
    assert comparable_body(parsed.body) == comparable_body(body)
