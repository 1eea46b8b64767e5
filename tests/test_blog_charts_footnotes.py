"""Chart and footnotes blocks (issue 18): validation, rendering (SVG and tables parsed with
lxml), the article page, feeds, API, search and revision comparison."""

import uuid

from django.core.exceptions import ValidationError
from django.urls import reverse

import pytest
from lxml import etree
from lxml import html as lxml_html

from blog.blocks import ArticleBodyBlock, ChartBlock, FootnotesBlock
from blog.charts import MAX_POINTS, nice_ticks, parse_chart
from blog.models import ArticlePage

from .reader_pages import make_every_block_article

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def every_block_article(demo):
    return make_every_block_article(demo.blog, demo.topics["gpu-costs"])


def chart_value(**changes) -> dict:
    value = {
        "title": "Latency by batch",
        "kind": "line",
        "data": "Batch,p50,p99\n1,10,30\n8,12,41\n32,20,80",
        "series": "",
        "x_title": "Batch size",
        "x_unit": "",
        "y_title": "Latency",
        "y_unit": "ms",
        "summary": "",
    }
    return {**value, **changes}


def clean_chart(**changes):
    block = ChartBlock()
    return block.clean(block.to_python(chart_value(**changes)))


def chart_errors(**changes) -> dict:
    with pytest.raises(ValidationError) as error:
        clean_chart(**changes)
    return {name: " ".join(e.messages) for name, e in error.value.block_errors.items()}


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"data": ""}, "data", "This field is required"),
        ({"data": "Batch"}, "data", "at least two columns"),
        ({"data": "Batch,p50"}, "data", "at least one row"),
        ({"data": "Batch,p50\n1,10\n2"}, "data", "Line 3 has 1 values"),
        ({"data": "Batch,p50\n1,10,4"}, "data", "Line 2 has 3 values"),
        ({"data": "Batch,p50\n1,fast"}, "data", "“fast” in “p50” is not a number"),
        ({"data": "Batch,p50\n1,nan"}, "data", "not a number"),
        ({"data": "Batch,p50\n1,1e999"}, "data", "not a number"),
        ({"data": "Batch,p50\n1,1 234"}, "data", "not a number"),
        ({"data": "Batch,p50\nsmall,10"}, "data", "numbers in the first column"),
        ({"data": "Batch,p50,p50\n1,2,3"}, "data", "same name"),
        ({"data": "Batch,\n1,2"}, "data", "needs a name"),
        ({"data": 'Batch,p50\n1,"2'}, "data", "check the quotes"),
        ({"data": "x," + ",".join(f"s{n}" for n in range(20)) + "\n1" + ",1" * 20}, "data", "at most 13 columns"),
        ({"data": "x,y\n" + "\n".join(f"{n},{n}" for n in range(MAX_POINTS + 1))}, "data", "at most 2,000"),
        ({"series": "p75"}, "series", "No column named “p75”"),
        ({"series": "Batch"}, "series", "No column named “Batch”"),
        ({"series": "p50, p50"}, "series", "once"),
        ({"kind": "bar"}, "series", "A bar chart shows one series"),
    ],
)
def test_bad_chart_data_is_a_field_error_saying_how_to_fix_it(changes, field, words):
    errors = chart_errors(**changes)
    assert list(errors) == [field]
    assert words in errors[field]


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"kind": "scatter"},
        {"kind": "bar", "series": "p99", "data": "Model,p99\nA,1\nB,2"},
        {"kind": "grouped_bar", "data": "Model\tp50\tp99\r\nA\t1\t-2\r\nB\t2.5\t3\r\n"},
        {"data": "x,y\n" + "\n".join(f"{n},{n}" for n in range(MAX_POINTS))},
    ],
)
def test_good_chart_data_validates(changes):
    value = clean_chart(**changes)
    assert "\r" not in value["data"]


def render_chart(**changes):
    block = ChartBlock()
    return lxml_html.fragment_fromstring(block.render(block.to_python(chart_value(**changes))))


@pytest.mark.parametrize(
    ("kind", "data", "series", "marks"),
    [
        ("line", "Batch,p50,p99\n1,10,30\n8,12,41\n32,20,80", "", 6),
        ("scatter", "Batch,p50,p99\n1,10,30\n8,12,41\n32,20,80", "p99", 3),
        ("bar", "GPU,Hours\nA100,5\nH100,7\nL4,-2\nT4,0", "", 4),
        ("grouped_bar", "GPU,Busy,Idle\nA100,60,40\nH100,72.5,27.5", "", 4),
    ],
)
def test_chart_renders_an_accessible_svg_with_one_mark_per_value_and_the_data_table(kind, data, series, marks):
    figure = render_chart(kind=kind, data=data, series=series)
    (svg,) = figure.xpath(".//*[local-name()='svg']")
    svg = etree.fromstring(etree.tostring(svg))  # as XML: the SVG namespace and its elements
    assert svg.get("role") == "img"
    assert svg[0].tag == f"{SVG}title" and svg[0].text == "Latency by batch"
    assert svg[1].tag == f"{SVG}desc" and "chart of" in svg[1].text
    assert len(svg.xpath(".//*[contains(concat(' ', @class, ' '), ' chart__mark ')]")) == marks
    assert not svg.xpath(".//*[local-name()='script' or local-name()='style']")
    rows = [[cell.text_content() for cell in row] for row in figure.xpath(".//details//table//tr")]
    assert rows == [line.split(",") for line in data.split("\n")]
    (link,) = figure.xpath(".//details//a[@download]")
    assert link.get("href").startswith("data:text/csv;charset=utf-8,")
    assert figure.xpath(".//figcaption")[0].text_content().strip().startswith("Latency by batch")


def test_chart_text_is_escaped_in_the_svg_and_the_table():
    figure = render_chart(title="<script>x</script>", data="Batch,<b>p</b>\n1,2", x_title="a & b")
    assert not figure.xpath(".//script | .//b")
    assert "<script>x</script>" in figure.xpath(".//*[local-name()='title']")[0].text


def test_a_draft_chart_with_bad_data_renders_a_message_not_a_500():
    figure = render_chart(data="Batch,p50\n1,fast")
    assert "cannot be drawn yet" in figure.text_content()


def test_chart_summary_names_each_series_range():
    chart = parse_chart("line", "Batch,p50\n1,10\n8,12\n32,20")
    from blog.charts import chart_summary

    text = chart_summary(chart, y_title="Latency", y_unit="ms")
    assert "3 points" in text and "from 10 ms (1) to 20 ms (32)" in text


def body(raw):
    return ArticleBodyBlock().to_python(raw)


NOTES = {"notes": [{"label": "a", "text": "<p>First note.</p>"}, {"label": "b", "text": "<p>Second.</p>"}]}


@pytest.mark.parametrize(
    ("paragraph", "notes", "words"),
    [
        ("<p>See[^a] and[^c].</p>", NOTES, "refers to [^c] but no note"),
        ("<p>See[^a].</p>", NOTES, "No paragraph refers to note “b”"),
        ("<p>See[^b] then[^a].</p>", NOTES, "order the text first refers to them: b, a"),
        ("<p>See[^a].</p>", None, "no note has that label"),
        ("<p>Code <code>[^a]</code> only.</p>", {"notes": [NOTES["notes"][0]]}, "No paragraph refers"),
    ],
)
def test_notes_and_references_out_of_step_are_a_form_error(paragraph, notes, words):
    raw = [{"type": "paragraph", "value": paragraph}]
    if notes:
        raw.append({"type": "footnotes", "value": notes})
    with pytest.raises(ValidationError) as error:
        ArticleBodyBlock().clean(body(raw))
    assert words in str(error.value.as_json_data())


@pytest.mark.parametrize(
    ("labels", "words"),
    [(["a b", "c"], "letters, digits"), (["a", "a"], "Two notes have the label “a”"), (["x" * 41], "at most 40")],
)
def test_bad_note_labels_are_a_form_error(labels, words):
    block = FootnotesBlock()
    value = block.to_python({"notes": [{"label": label, "text": "<p>t</p>"} for label in labels]})
    with pytest.raises(ValidationError) as error:
        block.clean(value)
    assert words in str(error.value.as_json_data())


def test_good_notes_validate():
    ArticleBodyBlock().clean(
        body(
            [
                {"type": "paragraph", "value": "<p>See[^a], [^b] and [^a] again.</p>"},
                {"type": "footnotes", "value": NOTES},
            ]
        )
    )


@pytest.mark.django_db
def test_article_page_numbers_references_and_links_notes_back(client, every_block_article):
    page = lxml_html.fromstring(client.get(every_block_article.url).content)
    refs = page.xpath("//sup[@class='footnote-ref']/a")
    assert [ref.text for ref in refs] == ["1", "2", "1"]
    assert [ref.get("href") for ref in refs] == ["#fn-mlperf", "#fn-idle", "#fn-mlperf"]
    assert [ref.get("id") for ref in refs] == ["fnref-mlperf", "fnref-idle", None]
    notes = page.xpath("//section[@class='block-footnotes']//li")
    assert [note.get("id") for note in notes] == ["fn-mlperf", "fn-idle"]
    assert "MLPerf" in notes[0].text_content()
    assert [note.xpath(".//a[@class='block-footnotes__back']/@href")[0] for note in notes] == [
        "#fnref-mlperf",
        "#fnref-idle",
    ]
    assert page.xpath("//*[local-name()='svg'][@role='img']")


@pytest.mark.django_db
def test_feed_has_footnotes_and_the_chart(client, every_block_article):
    from django.test import RequestFactory

    from blog.feeds import feed_body_html

    request = RequestFactory().get("/", HTTP_HOST=every_block_article.get_site().hostname)
    fragment = lxml_html.fragment_fromstring(feed_body_html(every_block_article, request), create_parent="div")
    refs = fragment.xpath(".//sup[@class='footnote-ref']/a")
    assert [ref.text for ref in refs] == ["1", "2", "1"]
    assert all(ref.get("href").endswith("#fn-mlperf") or ref.get("href").endswith("#fn-idle") for ref in refs)
    assert "No kernel ran" in fragment.xpath(".//section[@class='block-footnotes']")[0].text_content()
    assert len(fragment.xpath(".//*[local-name()='svg']//*[contains(@class, 'chart__mark')]")) == 4
    assert fragment.xpath(".//details//table")


@pytest.mark.django_db
def test_api_represents_chart_and_footnotes(client, every_block_article):
    data = client.get(f"/api/v2/pages/{every_block_article.pk}/").json()
    by_type = {block["type"]: block["value"] for block in data["body"]}
    assert by_type["chart"]["table"] == {
        "header": ["Cluster", "Busy", "Idle"],
        "rows": [["Training", "71", "29"], ["Inference", "38", "62"]],
    }
    assert by_type["chart"]["kind"] == "grouped_bar" and "Grouped bar chart" in by_type["chart"]["description"]
    assert [(note["number"], note["label"]) for note in by_type["footnotes"]["notes"]] == [(1, "mlperf"), (2, "idle")]
    assert "MLPerf" in by_type["footnotes"]["notes"][0]["text"]


def test_search_text_has_notes_and_chart_titles():
    raw = [
        {"type": "paragraph", "value": "<p>See[^a].</p>"},
        {"type": "footnotes", "value": {"notes": [{"label": "a", "text": "<p>Zyxwv benchmark paper.</p>"}]}},
        {"type": "chart", "value": chart_value(title="Quuxthroughput")},
    ]
    text = " ".join(ArticleBodyBlock().get_searchable_content(body(raw)))
    assert "Zyxwv" in text and "Quuxthroughput" in text and "p99" in text and "Latency" in text


@pytest.mark.django_db
def test_search_finds_an_article_by_its_footnote_text(client, demo):
    article = ArticlePage.objects.get(pk=demo.articles[0].pk)
    article.body = list(article.body.raw_data) + [
        {"type": "paragraph", "value": "<p>Source[^src].</p>", "id": str(uuid.uuid4())},
        {
            "type": "footnotes",
            "value": {"notes": [{"label": "src", "text": "<p>Frobnicator whitepaper.</p>"}]},
            "id": str(uuid.uuid4()),
        },
    ]
    article.save_revision().publish()
    from wagtail.search.backends import get_search_backend

    backend = get_search_backend()
    results = list(backend.search("Frobnicator", ArticlePage.objects.live()))
    assert [page.pk for page in results] == [article.pk]


@pytest.mark.django_db
def test_revisions_compare_shows_chart_and_note_changes(client, demo, editor, every_block_article):
    article = ArticlePage.objects.get(pk=every_block_article.pk)
    first = article.save_revision(user=editor)
    raw = list(article.body.raw_data)
    for child in raw:
        if child["type"] == "chart":
            child["value"] = {
                **child["value"],
                "title": "Renamedchart",
                "data": child["value"]["data"] + "\nNotebooks,12,88",
            }
        if child["type"] == "footnotes":
            note = child["value"]["notes"][1]
            (note.get("value") or note)["text"] = "<p>Changednote text.</p>"
    article.body = raw
    second = article.save_revision(user=editor)
    client.force_login(editor)
    response = client.get(reverse("wagtailadmin_pages:revisions_compare", args=(article.pk, first.pk, second.pk)))
    assert response.status_code == 200
    content = response.content.decode()
    assert "Renamedchart" in content and "Notebooks" in content and "Changednote" in content


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "action", "words"),
    [
        ([("chart", chart_value(data="Batch,p50\n1,fast"))], None, "is not a number"),
        ([("chart", chart_value(series="p75"))], None, "No column named"),
        ([("chart", chart_value(data="Batch,p50\n1,2,3"))], "submit", "Line 2 has 3 values"),
        ([("paragraph", "<p>See[^nowhere].</p>")], "submit", "no note has that label"),
    ],
)
def test_the_editor_shows_bad_charts_and_references_as_form_errors_and_saves_nothing(
    client, demo, editor, body, action, words
):
    from django.utils.html import escape

    from wagtail.models import Revision
    from wagtail.test.utils.form_data import rich_text

    from .admin_forms import article_form_data

    body = [(kind, rich_text(value) if kind == "paragraph" else value) for kind, value in body]
    article = demo.articles[2]
    revisions = Revision.objects.filter(object_id=str(article.pk)).count()
    client.force_login(editor)
    response = client.post(
        reverse("wagtailadmin_pages:edit", args=(article.pk,)),
        article_form_data(article.slug, body=body, action=action),
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "could not be" in html and "validation errors" in html
    assert escape(words) in html or words in html
    assert Revision.objects.filter(object_id=str(article.pk)).count() == revisions


@pytest.mark.django_db
def test_the_editor_saves_a_good_chart(client, demo, editor):
    from .admin_forms import article_form_data

    article = demo.articles[2]
    client.force_login(editor)
    response = client.post(
        reverse("wagtailadmin_pages:edit", args=(article.pk,)),
        article_form_data(article.slug, body=[("chart", chart_value(data="Batch,p50,p99\r\n1,10,30\r\n8,12,41\r\n"))]),
    )
    assert response.status_code == 302
    draft = ArticlePage.objects.get(pk=article.pk).get_latest_revision_as_object()
    assert draft.body[0].value["data"] == "Batch,p50,p99\n1,10,30\n8,12,41"


def test_chart_colours_come_from_the_theme_so_dark_mode_recolours_them():
    from pathlib import Path

    css = (Path(__file__).resolve().parent.parent / "static/css/site.css").read_text()
    for rule in (".chart__s0{", ".chart__s1{", ".chart__text{", ".chart__grid{", ".chart__axis{"):
        declaration = css.split(rule, 1)[1].split("}", 1)[0]
        assert "var(--" in declaration, rule


@pytest.mark.parametrize(
    ("low", "high"),
    [(0, 1.75), (0, 1.5), (0, 1), (0, 7), (0, 99), (0, 100), (0, 101), (-3.2, 4.9), (0.1, 0.13)]
    + [(5, 5), (0, 0), (-10, -2), (0, 1e9), (1e-6, 3e-6)],
)
def test_the_value_axis_covers_every_value(low, high):
    """The first tick is at or below the smallest value and the last at or above the largest,
    so no bar or point runs past the axis (a 1.75 bar once stood above a 1.5 top tick)."""
    ticks = nice_ticks(low, high)
    assert ticks[0] <= low and ticks[-1] >= high, ticks
    assert ticks == sorted(ticks) and len(ticks) <= 12
    steps = {round(b - a, 9) for a, b in zip(ticks, ticks[1:], strict=False)}
    assert len(steps) == 1, ticks
