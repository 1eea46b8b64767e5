"""``import_articles``: Markdown files, folders and zips in as draft articles made of our blocks."""

import io
import struct
import zipfile
from pathlib import Path

from django.core.management import CommandError, call_command
from django.urls import reverse

import pytest
from PIL import Image

from blog.markdown_import import comparable_body
from blog.models import ArticlePage
from home.models import SiteImage
from home.text_cleaning import without_invalid_characters

from .admin_forms import article_form_data

FULL_ARTICLE = """---
title: Measuring the ridge point
slug: measuring-the-ridge-point
summary: How to find where a GPU stops being memory-bound.
topics: [GPU costs, no-such-topic]
authors: [cedana-editorial, Nobody Known]
date: 2026-10-01
seo_title: Ridge point, measured
search_description: Find the ridge point of your GPU.
image: images/card.png
image_alt: A roofline chart
---

Intro with *emphasis*, **strong**, `nvidia-smi`, [a site link](https://example.com/x) and
[the stateful article](the-era-of-stateful-inference-how-to-improve-cost-per-token.md).
Inline math $P = F/B$ costs \\$5 and $10.

## Where it sits {#ridge}

### A closer look

- one
  - nested
- two

1. first
2. second

<!-- -->

A second paragraph block.

```py title="ridge.py"
ridge = flops / bandwidth
```

| GPU | Ridge |
| --- | --- |
| H100 | 295 \\| FLOP/B |

Table: Ridge points {.first-column-header}

![A roofline with the ridge marked](images/roofline.png "The ridge point.")

> Memory-bound until it is not.
>
> — A kernel engineer

> [!NOTE]
> **Measure first**
>
> Use your own model.

> [!WARNING]
> Check the clocks.

> [!TIP]
> Cache the prefix.

$$
P_{\\text{ridge}} = \\frac{F}{B}
$$

```{key-figure}
:value: 295
:unit: FLOP/B
:label: ridge point of an H100
```

See the note.[^1]

#### Too deep

---

<div>raw html</div>

```cobol
DISPLAY 'X'.
```

[^1]: The vendor's figure.
"""


def png_bytes(color="blue", size=(1200, 675)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, "PNG")
    return buffer.getvalue()


@pytest.fixture
def article_folder(tmp_path):
    folder = tmp_path / "posts"
    (folder / "images").mkdir(parents=True)
    (folder / "images" / "card.png").write_bytes(png_bytes("navy"))
    (folder / "images" / "roofline.png").write_bytes(png_bytes("teal", (1280, 720)))
    (folder / "ridge.md").write_text(FULL_ARTICLE)
    return folder


def run(*args) -> str:
    out = io.StringIO()
    call_command("import_articles", *[str(arg) for arg in args], stdout=out)
    return out.getvalue()


def run_failing(*args) -> tuple[str, str]:
    out = io.StringIO()
    with pytest.raises(CommandError) as error:
        call_command("import_articles", *[str(arg) for arg in args], stdout=out)
    return out.getvalue(), str(error.value)


def blocks_of(page):
    return comparable_body(page.body)


@pytest.mark.django_db
def test_every_construct_becomes_our_blocks_in_a_draft(demo, article_folder):
    images_before = SiteImage.objects.count()
    output = run(article_folder)
    page = ArticlePage.objects.get(slug="measuring-the-ridge-point")
    assert "created 'measuring-the-ridge-point'" in output
    assert not page.live and page.has_unpublished_changes
    assert page.get_parent().specific == demo.blog
    assert page.summary == "How to find where a GPU stops being memory-bound."
    assert page.seo_title == "Ridge point, measured"
    assert page.date_published.date().isoformat() == "2026-10-01"
    assert [topic.slug for topic in page.topics.all()] == ["gpu-costs"]
    assert [author.slug for author in page.authors.all()] == ["cedana-editorial"]
    assert page.image.description == "A roofline chart" and page.image_alt == "A roofline chart"
    assert SiteImage.objects.count() == images_before + 2

    blocks = blocks_of(page)
    types = [kind for kind, _value in blocks]
    assert types[:3] == ["paragraph", "heading", "heading"]
    intro = blocks[0][1]
    stateful = ArticlePage.objects.get(slug="the-era-of-stateful-inference-how-to-improve-cost-per-token")
    assert "<i>emphasis</i>" in intro and "<b>strong</b>" in intro and "<code>nvidia-smi</code>" in intro
    assert '<a href="https://example.com/x">a site link</a>' in intro
    assert f'<a id="{stateful.pk}" linktype="page">' in intro or f'<a linktype="page" id="{stateful.pk}">' in intro
    assert "$P = F/B$" in intro and "costs \\$5 and $10." in intro
    assert blocks[1][1] == {"text": "Where it sits", "level": "h2", "anchor": "ridge"}
    assert blocks[2][1]["level"] == "h3"
    assert blocks[3] == (
        "paragraph",
        "<ul><li>one<ul><li>nested</li></ul></li><li>two</li></ul><ol><li>first</li><li>second</li></ol>",
    )
    assert blocks[4] == ("paragraph", "<p>A second paragraph block.</p>")
    assert blocks[5] == (
        "code",
        {
            "language": "python",
            "filename": "ridge.py",
            "source": "ridge = flops / bandwidth",
            "show_line_numbers": False,  # the code block's defaults
            "highlight_lines": "",
        },
    )
    table = blocks[6][1]
    assert table["data"] == [["GPU", "Ridge"], ["H100", "295 | FLOP/B"]]
    assert table["first_row_is_table_header"] and table["first_col_is_header"]
    assert table["table_caption"] == "Ridge points"
    figure = blocks[7][1]
    assert figure["alt_text"] == "A roofline with the ridge marked" and figure["caption"] == "The ridge point."
    assert SiteImage.objects.get(pk=figure["image"]).description == "A roofline with the ridge marked"
    assert blocks[8] == ("quote", {"quote": "Memory-bound until it is not.", "attribution": "A kernel engineer"})
    assert blocks[9] == ("callout", {"kind": "note", "title": "Measure first", "text": "<p>Use your own model.</p>"})
    assert blocks[10] == ("callout", {"kind": "warning", "title": "", "text": "<p>Check the clocks.</p>"})
    assert blocks[11][1]["kind"] == "takeaway"
    assert blocks[12] == ("math", r"P_{\text{ridge}} = \frac{F}{B}")
    assert blocks[13] == ("key_figure", {"value": "295", "unit": "FLOP/B", "label": "ridge point of an H100"})
    assert blocks[14] == ("paragraph", "<p>See the note.[^1]</p>")
    assert blocks[15] == ("heading", {"text": "Too deep", "level": "h3", "anchor": ""})
    assert blocks[16] == ("paragraph", "<p>&lt;div&gt;raw html&lt;/div&gt;</p>")
    assert blocks[17][1]["language"] == "text"
    assert blocks[-1] == ("footnotes", {"notes": [{"label": "1", "text": "<p>The vendor's figure.</p>"}]})
    for reported in [
        "unknown topic 'no-such-topic'",
        "unknown author 'Nobody Known'",
        "level-4 heading became a subsection",
        "horizontal rule was left out",
        "html block has no block here and was kept as text",
        "code language 'cobol'",
    ]:
        assert reported in output, reported


@pytest.mark.django_db
def test_dry_run_writes_nothing_and_says_what_it_would_do(demo, article_folder):
    pages, images = ArticlePage.objects.count(), SiteImage.objects.count()
    output = run(article_folder, "--dry-run")
    assert "would create 'measuring-the-ridge-point'" in output and "dry run: nothing written" in output
    assert (ArticlePage.objects.count(), SiteImage.objects.count()) == (pages, images)


@pytest.mark.django_db
def test_import_is_idempotent_and_update_adds_a_draft_revision_never_touching_live(demo, tmp_path):
    live = demo.articles[0]
    live_body = blocks_of(live)
    source = tmp_path / "a.md"
    source.write_text(f"---\ntitle: {live.title!r}\nslug: {live.slug}\nsummary: New summary.\n---\n\nRewritten.\n")
    assert "skipped" in run(source)
    assert "updated" in run(source, "--update")
    assert "unchanged" in run(source, "--update")
    live.refresh_from_db()
    assert live.live and live.has_unpublished_changes
    assert blocks_of(live) == live_body  # the live page row keeps the published body
    draft = live.get_latest_revision_as_object()
    assert blocks_of(draft) == [("paragraph", "<p>Rewritten.</p>")] and draft.summary == "New summary."
    new = tmp_path / "new.md"
    new.write_text("---\ntitle: Brand new\nsummary: s\n---\n\nText.\n")
    run(new)
    run(new)
    assert ArticlePage.objects.filter(slug="brand-new").count() == 1
    assert ArticlePage.objects.get(slug="brand-new").revisions.count() == 1


MALFORMED = {
    "bad-yaml.md": ("---\ntitle: [unclosed\n---\n\nx\n", "not valid YAML"),
    "yaml-list.md": ("---\n- a\n- b\n---\n\nx\n", "the front matter must be a mapping"),
    "no-title.md": ("---\nsummary: s\n---\n\njust text\n", "no title"),
    "bad-date.md": ("---\ntitle: T1\ndate: next tuesday\n---\n\nx\n", "date 'next tuesday' is not a date"),
    "impossible-date.md": ("---\ntitle: T2\ndate: 2026-02-30\n---\n\nx\n", "day is out of range"),
    "number-date.md": ("---\ntitle: T3\ndate: [2026]\n---\n\nx\n", "is not a date"),
    # Stored in UTC, a time on the calendar's last day cannot be shown east of UTC (a 500).
    "last-day-date.md": (
        "---\ntitle: T7\ndate: 9999-12-31T23:59:00Z\n---\n\nx\n",
        "cannot be shown in every time zone",
    ),
    "long-summary.md": ("---\ntitle: T4\nsummary: " + "x" * 300 + "\n---\n\nx\n", "summary is longer"),
    "bad-slug.md": ("---\ntitle: T5\nslug: Not A Slug\n---\n\nx\n", "is not a slug"),
    "topics-mapping.md": ("---\ntitle: T6\ntopics: {a: 1}\n---\n\nx\n", "'topics' must be a list"),
    "title-mapping.md": ("---\ntitle: {a: 1}\n---\n\nx\n", "'title' must be text"),
}


def alias_bomb(levels: int, use: str = "title: *a{top}") -> str:
    """YAML whose anchors nest ``levels`` deep, ten aliases each ("billion laughs"): ``*a{top}``
    stands for 10**(levels + 1) strings. ``alias_bomb(6)`` has the shape of the 374-byte file that
    took 1.2 GB (10**7 strings)."""
    lines = ["a0: &a0 [" + ", ".join(["lol"] * 10) + "]"]
    lines += [f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 10) + "]" for level in range(1, levels + 1)]
    return "---\n" + "\n".join(lines) + "\n" + use.format(top=levels) + "\n---\n\nBody.\n"


DEEP = 20_000
# What a hostile file uses to exhaust the stack or memory, mostly in its front matter: refused as
# it is read, before any value is expanded, turned into text or quoted (never a 500, never gigabytes).
HOSTILE_FILES = {
    # JSON front matter (python-frontmatter reads it too): past Python's recursion limit.
    "json-deep-arrays.md": ('{\n"title": ' + "[" * DEEP + "]" * DEEP + "\n}\nbody\n", "nested too deeply to read"),
    "json-deep-objects.md": ('{\n"title": ' + '{"a": ' * DEEP + "1" + "}" * DEEP + "\n}\nbody\n", "nested too deeply"),
    "json-deep-in-topics.md": ('{\n"topics": [' + "[" * DEEP + "]" * DEEP + "]\n}\nx\n", "nested too deeply"),
    "json-nested-title.md": ('{\n"title": ' + "[" * 100 + "]" * 100 + "\n}\nx\n", "'title' must be text"),
    "json-list-title.md": ('{\n"title": [' + ", ".join(['"x"'] * 50_000) + "]\n}\nx\n", "'title' must be text"),
    "json-huge-number.md": ('{\n"title": ' + "9" * 5000 + "\n}\nx\n", "has a value that is not valid"),
    # The body nested as deep (emphasis in emphasis): markdown-it's syntax tree recurses per level.
    "md-deep-emphasis.md": ("---\ntitle: T17\n---\n\n" + "*" * DEEP + "x" + "*" * DEEP + "\n", "nested too deeply"),
    # YAML nesting, flow and block: refused at 20 levels (PyYAML's composer recurses per level).
    "yaml-deep-flow-sequences.md": ("---\ntitle: " + "[" * DEEP + "]" * DEEP + "\n---\nx\n", "deeper than 20 levels"),
    "yaml-deep-flow-mappings.md": ("---\ntitle: " + "{a: " * DEEP + "1" + "}" * DEEP + "\n---\nx\n", "deeper than 20"),
    "yaml-deep-block-sequences.md": ("---\ntitle:\n  " + "- " * 500 + "x\n---\nx\n", "deeper than 20 levels"),
    "yaml-deep-block-mappings.md": (
        "---\n" + "".join(" " * depth + f"k{depth}:\n" for depth in range(500)) + "---\nx\n",
        "deeper than 20 levels",
    ),
    "yaml-21-levels.md": ("---\ntitle: " + "[" * 20 + "x" + "]" * 20 + "\n---\nx\n", "than 20 levels on line 2"),
    # Anchors and aliases: refused at the first anchor, whichever key holds the bomb.
    "alias-bomb-title.md": (alias_bomb(6), "has an anchor (&name) on line 2"),
    "alias-bomb-unused-key.md": (alias_bomb(5, "title: Fine\nlols: *a{top}"), "has an anchor (&name) on line 2"),
    "alias-bomb-topics.md": (alias_bomb(5, "title: Fine\ntopics: *a{top}"), "has an anchor (&name)"),
    "alias-bomb-authors-list.md": (alias_bomb(5, "title: Fine\nauthors: [*a{top}, *a{top}]"), "has an anchor (&name)"),
    "alias-bomb-nested.md": (alias_bomb(5, "title: Fine\nseo:\n  meta: {{title: *a{top}}}"), "has an anchor (&name)"),
    "alias-bomb-date.md": (alias_bomb(5, "title: Fine\ndate: *a{top}"), "has an anchor (&name)"),
    "anchor-on-title.md": (
        "---\ntitle: &t Fine\nseo_title: *t\n---\nx\n",
        "has an anchor (&name) on line 2: anchors and aliases are not read",
    ),
    "alias-without-anchor.md": ("---\ntitle: *nowhere\n---\nx\n", "has an alias (*name) on line 2"),
    "merge-key.md": ("---\nbase: &b {title: T}\n<<: *b\n---\nx\n", "anchor (&name) on line 2"),
    # A value that is not text is refused by its type, before it is measured or made text.
    "title-long-list.md": ("---\ntitle: [" + ", ".join(["lol"] * 50_000) + "]\n---\nx\n", "'title' must be text"),
    "title-hex-number.md": ("---\ntitle: 0x" + "f" * 5000 + "\n---\nx\n", "'title' is a number too long"),
    "title-decimal-number.md": ("---\ntitle: " + "9" * 5000 + "\n---\nx\n", "has a value that is not valid"),
    "title-true.md": ("---\ntitle: yes\n---\nx\n", "'title' must be text"),
    "slug-list.md": ("---\ntitle: T8\nslug: [a, b]\n---\nx\n", "'slug' must be text"),
    "summary-mapping.md": ("---\ntitle: T9\nsummary: {a: [1, 2]}\n---\nx\n", "'summary' must be text"),
    "date-hex-number.md": ("---\ntitle: T10\ndate: 0x" + "f" * 5000 + "\n---\nx\n", "date (a very long number) is"),
    "date-long-text.md": ("---\ntitle: T11\ndate: " + "y" * 5000 + "\n---\nx\n", "date 'yyyyy"),
}

# A NUL in any text the import stores: refused, naming the field, as the editor's forms refuse it.
NUL_FIELDS = ["title", "slug", "summary", "seo_title", "search_description", "description", "image", "image_alt"]
NUL_IN_A_FIELD = {
    **{
        f"nul-in-{key}.md": (
            f'---\ntitle: T12\n{key}: "a\\0b"\n---\n\nx\n',
            f"'{key}': Null characters are not allowed.",
        )
        for key in NUL_FIELDS
    },
    "nul-in-topics.md": ('---\ntitle: T13\ntopics: ["GPU\\0 costs"]\n---\nx\n', "'topics': Null characters"),
    "nul-in-authors.md": ('---\ntitle: T14\nauthors: ["a", "b\\x00"]\n---\nx\n', "'authors': Null characters"),
    "nul-in-json-title.md": ('{\n"title": "a\\u0000b"\n}\nx\n', "'title': Null characters are not allowed."),
    "nul-in-body.md": ("---\ntitle: T15\n---\n\nPara\x00graph.\n", "'body': Null characters are not allowed."),
    "nul-in-heading.md": ("---\ntitle: T16\n---\n\n## Head\x00ing\n", "'body': Null characters are not allowed."),
    "nul-in-first-heading.md": ("# Ti\x00tle\n\nx\n", "'body': Null characters are not allowed."),
}
# Over the editor's limit on a field (blog.forms.FIELD_LIMITS): refused, so that no imported
# draft has a value the editor would refuse on its next save.
OVER_THE_EDITORS_LIMITS = {
    "title-101.md": (
        "---\ntitle: " + "t" * 101 + "\n---\nx\n",
        "the title is longer than 100 characters (it has 101)",
    ),
    "first-heading-101.md": ("# " + "h" * 101 + "\n\nx\n", "the title is longer than 100 characters"),
    "title-255.md": ("---\ntitle: " + "t" * 255 + "\n---\nx\n", "the title is longer than 100 characters"),
    "seo-title-61.md": ("---\ntitle: T17\nseo_title: " + "s" * 61 + "\n---\nx\n", "'seo_title' is longer than 60"),
    "search-description-161.md": (
        "---\ntitle: T18\nsearch_description: " + "d" * 161 + "\n---\nx\n",
        "'search_description' is longer than 160",
    ),
    "description-161.md": ("---\ntitle: T19\ndescription: " + "d" * 161 + "\n---\nx\n", "'description' is longer"),
}
# A title that shows nothing (home.text_cleaning.has_visible_character), refused as the editor refuses it.
INVISIBLE_TITLES = {
    "title-zero-width.md": ('---\ntitle: "\\u200b\\u200d"\n---\nx\n', "the title shows nothing"),
    "title-zero-width-with-slug.md": ('---\ntitle: "\\u200b"\nslug: zw\n---\nx\n', "the title shows nothing"),
    "first-heading-zero-width.md": ("# \u200b\u2066\n\nx\n", "the title shows nothing"),
    "title-combining-accent.md": ('---\ntitle: "\\u0301"\n---\nx\n', "the title shows nothing"),
}
FAILING = MALFORMED | HOSTILE_FILES | NUL_IN_A_FIELD | OVER_THE_EDITORS_LIMITS | INVISIBLE_TITLES


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(FAILING))
def test_a_malformed_file_fails_clearly_and_writes_nothing_for_it(demo, tmp_path, name):
    text, message = FAILING[name]
    (tmp_path / name).write_text(text)
    (tmp_path / "zz-good.md").write_text("---\ntitle: A good one\nsummary: fine\n---\n\nText.\n")
    pages = ArticlePage.objects.count()
    output, error = run_failing(tmp_path)
    assert message in output
    assert f"{name}: failed" in output and name in error
    assert ArticlePage.objects.count() == pages + 1  # the good file still went in
    assert ArticlePage.objects.filter(slug="a-good-one").exists()


def yaml_escape(character: str) -> str:
    """``character`` as an escape in a YAML (or JSON-style) double-quoted string."""
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def stored_texts(page) -> tuple:
    """What an import stores as text on ``page``: title, summary, SEO title, search description,
    card alt text, and the slugs of the topics and authors its names found."""
    fields = (page.title, page.summary, page.seo_title, page.search_description, page.image_alt)
    return (*fields, [topic.slug for topic in page.topics.all()], [author.slug for author in page.authors.all()])


# What the editor's forms remove (home.text_cleaning). A lone surrogate reaches only the front
# matter, as an escape: a UTF-8 file cannot hold one, so the body gets none.
REMOVED = ["\x01", "\x08", "\x0b", "\x0c", "\x1b", "\x1f", "\ufffe", "\uffff", "\ud800", "\udfff"]


@pytest.mark.django_db
@pytest.mark.parametrize("bad", REMOVED, ids=ascii)
def test_control_characters_are_removed_from_every_stored_text_as_the_editor_removes_them(demo, tmp_path, bad):
    escaped = yaml_escape(bad)
    raw = "" if "\ud800" <= bad <= "\udfff" else bad
    (tmp_path / "card.png").write_bytes(png_bytes("purple"))
    (tmp_path / "post.md").write_text(
        "---\n"
        f'title: "Idle{escaped} hours"\n'
        "slug: idle-hours-imported\n"
        f'summary: "Sum{escaped}mary"\n'
        f'seo_title: "Se{escaped}o"\n'
        f'search_description: "Me{escaped}ta"\n'
        "image: card.png\n"
        f'image_alt: "Al{escaped}t"\n'
        f'topics: ["GPU{escaped} costs"]\n'
        f'authors: ["Cedana{escaped} Editorial"]\n'
        "---\n\n"
        f"## Head{raw}ing\n\nPara{raw}graph with *em{raw}phasis*.\n\n- it{raw}em\n\n"
        f"```python\nprint({raw}1)\n```\n\n| A{raw} | B |\n| --- | --- |\n| 1 | 2{raw} |\n\n> Quo{raw}te\n\n"
        f'![Fig{raw}ure](card.png "Cap{raw}tion")\n'
    )
    run(tmp_path / "post.md")
    page = ArticlePage.objects.get(slug="idle-hours-imported")
    assert stored_texts(page) == ("Idle hours", "Summary", "Seo", "Meta", "Alt", ["gpu-costs"], ["cedana-editorial"])
    stored = page.body.get_prep_value()
    assert without_invalid_characters(stored) == stored
    blocks = blocks_of(page)
    assert blocks[0] == ("heading", {"text": "Heading", "level": "h2", "anchor": ""})
    assert blocks[1] == ("paragraph", "<p>Paragraph with <i>emphasis</i>.</p><ul><li>item</li></ul>")
    assert blocks[2][1]["source"] == "print(1)"
    assert blocks[3][1]["data"] == [["A", "B"], ["1", "2"]]
    assert blocks[4] == ("quote", {"quote": "Quote", "attribution": ""})
    assert (blocks[5][1]["alt_text"], blocks[5][1]["caption"]) == ("Figure", "Caption")
    assert SiteImage.objects.get(pk=blocks[5][1]["image"]).description == "Figure"


@pytest.mark.django_db
@pytest.mark.parametrize("character", ["\x00", "\x01", "\x0b", "\x1f", "\x7f", "\ufffe"], ids=ascii)
def test_the_import_refuses_removes_and_keeps_what_the_editor_does(client, demo, editor, tmp_path, character):
    """The same title through the page editor and through the import: both refuse a NUL, both
    remove the other control characters, both keep U+007F (delete)."""
    article = demo.articles[3]
    client.force_login(editor)
    url = reverse("wagtailadmin_pages:edit", args=(article.pk,))
    response = client.post(url, article_form_data(article.slug, title=f"Idle{character} hours"))
    if response.status_code == 302:
        in_the_editor = ArticlePage.objects.get(pk=article.pk).get_latest_revision_as_object().title
    else:
        assert "Null characters are not allowed." in response.content.decode()
        in_the_editor = "refused"
    (tmp_path / "post.md").write_text(
        f'---\ntitle: "Idle{yaml_escape(character)} hours"\nslug: idle-import\n---\n\nx\n'
    )
    try:
        run(tmp_path / "post.md")
    except CommandError:
        imported = "refused"
    else:
        imported = ArticlePage.objects.get(slug="idle-import").title
    assert imported == in_the_editor
    assert imported == {"\x00": "refused", "\x7f": "Idle\x7f hours"}.get(character, "Idle hours")


@pytest.mark.django_db
def test_front_matter_keys_that_are_not_text_and_json_front_matter_import(demo, tmp_path):
    """YAML keys may be numbers or dates (they neither sort with text nor pass as keyword
    arguments: python-frontmatter's Post was a TypeError); JSON front matter is not body text."""
    (tmp_path / "keys.md").write_text("---\ntitle: Odd keys\n1: one\n2026-01-01: day\nfoo: bar\n---\n\nText.\n")
    (tmp_path / "json.md").write_text('{\n"title": "From JSON",\n"summary": "s"\n}\n\nJust the body.\n')
    output = run(tmp_path)
    assert "front matter 1 is not an article field" in output
    assert "front matter a date value is not an article field" in output
    assert "front matter 'foo' is not an article field" in output
    assert blocks_of(ArticlePage.objects.get(slug="from-json")) == [("paragraph", "<p>Just the body.</p>")]


@pytest.mark.django_db
def test_not_utf8_and_duplicate_slugs_are_refused(demo, tmp_path):
    (tmp_path / "latin1.md").write_bytes("---\ntitle: Café\n---\n\nx\n".encode("latin-1"))
    output, error = run_failing(tmp_path / "latin1.md")
    assert "not UTF-8" in error
    folder = tmp_path / "dupes"
    folder.mkdir()
    (folder / "a.md").write_text("---\ntitle: Same\nsummary: s\n---\n\nA.\n")
    (folder / "b.md").write_text("---\ntitle: Other\nslug: same\nsummary: s\n---\n\nB.\n")
    output, error = run_failing(folder)
    assert "slug 'same' is also the slug of a.md" in output
    assert ArticlePage.objects.filter(slug="same").count() == 1


def zip_of(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.django_db
@pytest.mark.parametrize("evil", ["../evil.md", "/etc/evil.md", "a/../../evil.md", "C:/evil.md", "a\\..\\evil.md"])
def test_zip_slip_is_refused_before_anything_is_read(demo, tmp_path, evil):
    archive = tmp_path / "posts.zip"
    archive.write_bytes(zip_of({"ok.md": b"---\ntitle: Ok\n---\n\nx\n", evil: b"---\ntitle: Evil\n---\n\nx\n"}))
    pages = ArticlePage.objects.count()
    _output, error = run_failing(archive)
    assert "paths outside its folder" in error and "nothing imported" in error
    assert ArticlePage.objects.count() == pages


@pytest.mark.django_db
def test_zip_with_images_imports_and_bad_zips_and_huge_files_are_refused(demo, tmp_path, settings):
    archive = tmp_path / "posts.zip"
    markdown = b"---\ntitle: Zipped\nsummary: s\n---\n\n![A teal box](img/box.png)\n\n![Escape](../../outside.png)\n"
    archive.write_bytes(zip_of({"post/zipped.md": markdown, "post/img/box.png": png_bytes("teal")}))
    output = run(archive)
    page = ArticlePage.objects.get(slug="zipped")
    assert [kind for kind, _value in comparable_body(page.body)] == ["image", "paragraph"]
    assert "../../outside.png is not beside the file" in output
    (tmp_path / "broken.zip").write_bytes(b"PK\x03\x04 not really")
    assert "not a readable zip" in run_failing(tmp_path / "broken.zip")[1]
    (tmp_path / "huge.md").write_text("---\ntitle: Huge\n---\n\n" + "x" * (1024 * 1024 + 1))
    assert "larger than 1024 KB" in run_failing(tmp_path / "huge.md")[1]
    (tmp_path / "notes.txt").write_text("x")
    assert "not a .md file" in run_failing(tmp_path / "notes.txt")[1]


@pytest.mark.django_db
def test_images_that_are_not_images_are_reported_and_kept_as_text(demo, tmp_path):
    (tmp_path / "fake.png").write_bytes(b"<svg xmlns='http://www.w3.org/2000/svg'/>")
    (tmp_path / "a.svg").write_text("<svg/>")
    (tmp_path / "post.md").write_text(
        "---\ntitle: Pictures\nsummary: s\n---\n\n![x](fake.png)\n\n![y](a.svg)\n\n![z](https://example.com/z.png)\n"
    )
    output = run(tmp_path / "post.md")
    assert "image fake.png was refused" in output
    assert "image a.svg is not a" in output
    assert "is not in the import (no network)" in output
    page = ArticlePage.objects.get(slug="pictures")
    assert [kind for kind, _value in comparable_body(page.body)] == ["paragraph"] * 3


@pytest.mark.django_db
def test_the_same_image_file_is_reused_not_copied(demo, tmp_path):
    (tmp_path / "box.png").write_bytes(png_bytes("olive"))
    for slug in ("one", "two"):
        (tmp_path / f"{slug}.md").write_text(f"---\ntitle: {slug}\nsummary: s\n---\n\n![An olive box](box.png)\n")
    images = SiteImage.objects.count()
    run(tmp_path)
    assert SiteImage.objects.count() == images + 1


@pytest.mark.django_db
def test_links_between_imported_files_become_page_links_whatever_the_order(demo, tmp_path):
    (tmp_path / "a-first.md").write_text("---\ntitle: First\nsummary: s\n---\n\nSee [the second](b-second.md).\n")
    (tmp_path / "b-second.md").write_text(
        "---\ntitle: Second\nslug: second\nsummary: s\n---\n\nSee [first](a-first.md#x).\n"
    )
    run(tmp_path)
    first, second = (
        ArticlePage.objects.get(slug=slug).get_latest_revision_as_object() for slug in ("first", "second")
    )
    assert f'id="{second.pk}"' in comparable_body(first.body)[0][1]
    assert f'id="{first.pk}"' in comparable_body(second.body)[0][1]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "name, written",
    [
        ("café.md", "café.md"),
        ("café.md", "caf%C3%A9.md"),
        ("my notes.md", "<my notes.md>"),
        ("my notes.md", "my%20notes.md"),
        ("100%.md", "100%25.md"),
    ],
)
def test_a_link_to_a_file_whose_name_needs_encoding_is_a_page_link(demo, tmp_path, name, written):
    """markdown-it percent-encodes a link's target, as it does an image's: the file is found by
    its decoded name."""
    (tmp_path / "a-first.md").write_text(f"---\ntitle: First\nsummary: s\n---\n\nSee [the other]({written}).\n")
    (tmp_path / name).write_text("---\ntitle: Other\nslug: other\nsummary: s\n---\n\nText.\n")
    run(tmp_path)
    first, other = (ArticlePage.objects.get(slug=slug).get_latest_revision_as_object() for slug in ("first", "other"))
    assert f'id="{other.pk}"' in comparable_body(first.body)[0][1]


@pytest.mark.django_db
def test_parent_topic_adds_the_topic_and_blocks_that_do_not_validate_become_text(demo, tmp_path):
    (tmp_path / "t.md").write_text(
        "---\ntitle: Under a topic\nsummary: s\n---\n\nBad math $x^$ here.\n\n$$\n\\frac{a}\n$$\n"
    )
    output = run(tmp_path / "t.md", "--parent", "gpu-costs")
    page = ArticlePage.objects.get(slug="under-a-topic")
    assert [topic.slug for topic in page.topics.all()] == ["gpu-costs"]
    assert page.get_parent().specific == demo.blog
    assert [kind for kind, _value in comparable_body(page.body)] == ["paragraph", "paragraph"]
    assert "block 1 (paragraph) does not validate" in output and "block 2 (math) does not validate" in output
    assert "--parent 999999: not a blog index or topic" in run_failing(tmp_path / "t.md", "--parent", "999999")[1]


@pytest.mark.django_db
def test_no_markdown_found_is_an_error(demo, tmp_path):
    assert "No Markdown files or exports found" in run_failing(tmp_path)[1]
    assert "no such file" in run_failing(Path(tmp_path / "missing.md"))[1]


def corrupt_member(data: bytes, name: str) -> bytes:
    """``data`` (a zip) with the stored bytes of member ``name`` flipped, so its CRC fails."""
    archive = zipfile.ZipFile(io.BytesIO(data))
    info = archive.getinfo(name)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    damaged = bytearray(data)
    damaged[start] ^= 0xFF
    return bytes(damaged)


@pytest.mark.django_db
def test_a_damaged_zip_member_is_a_clear_error_and_a_damaged_image_is_reported(demo, tmp_path):
    markdown = b"---\ntitle: Damaged\nsummary: s\n---\n\n![A box](box.png)\n"
    members = {"post.md": markdown, "box.png": png_bytes("maroon")}
    archive = tmp_path / "damaged-md.zip"
    archive.write_bytes(corrupt_member(zip_of(members), "post.md"))
    assert "post.md cannot be unpacked" in run_failing(archive)[1]
    archive = tmp_path / "damaged-image.zip"
    archive.write_bytes(corrupt_member(zip_of(members), "box.png"))
    assert "image box.png cannot be unpacked (Bad CRC-32 for file 'box.png'): kept as text" in run(archive)


@pytest.mark.django_db
def test_an_image_over_the_upload_limit_is_not_read(demo, tmp_path, settings):
    settings.WAGTAILIMAGES_MAX_UPLOAD_SIZE = 1024
    (tmp_path / "big.png").write_bytes(png_bytes("gray", (1600, 900)) + b"\0" * 2048)
    (tmp_path / "post.md").write_text("---\ntitle: Big picture\nsummary: s\n---\n\n![A big box](big.png)\n")
    assert "or is larger than 1.0\xa0KB" in run(tmp_path / "post.md")


def patched_zip(data: bytes, name: str, *, flags: int = 0, method: int | None = None, crc_xor: int = 0) -> bytes:
    """``data`` (a zip) with member ``name`` as other zip tools write what zipfile does not read:
    ``flags`` OR-ed into its general purpose flags (bit 0: encrypted), its compression method set
    to ``method`` (9 Deflate64, 99 AES) or its CRC-32 XOR-ed with ``crc_xor`` (a bad CRC), in
    both its local header and its central directory entry (the zip format's byte offsets)."""
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo(name)
    patched = bytearray(data)
    central = data.find(b"PK\x01\x02")
    while data[central + 46 : central + 46 + struct.unpack_from("<H", data, central + 28)[0]] != name.encode():
        central = data.find(b"PK\x01\x02", central + 1)
    for header, flag_at, method_at, crc_at in ((info.header_offset, 6, 8, 14), (central, 8, 10, 16)):
        struct.pack_into("<H", patched, header + flag_at, info.flag_bits | flags)
        struct.pack_into("<H", patched, header + method_at, info.compress_type if method is None else method)
        struct.pack_into("<I", patched, header + crc_at, info.CRC ^ crc_xor)
    return bytes(patched)


ZIPPED_POST = (
    b"---\ntitle: Zipped card\nsummary: s\nimage: images/card.png\nimage_alt: A card\n---\n\n"
    b"![A card](images/card.png)\n"
)
# A zip member other tools write and zipfile cannot read: the patch, and what the report says why.
UNREADABLE_MEMBERS = {
    "encrypted": ({"flags": 0x1}, "cannot be unpacked: it is encrypted (zip it again without a password)"),
    "deflate64": (
        {"method": 9},
        "cannot be unpacked: it uses a compression method (9, Deflate64) that is not supported",
    ),
    "aes": ({"method": 99}, "cannot be unpacked: it is encrypted"),
    "bad-crc": ({"crc_xor": 1}, "cannot be unpacked (Bad CRC-32 for file"),
}


def zip_with_unreadable(member: str, case: str) -> bytes:
    """A zip of ZIPPED_POST (``post.md``) and its card image with ``member`` patched as ``case``."""
    return patched_zip(
        zip_of({"post.md": ZIPPED_POST, "images/card.png": png_bytes("coral")}), member, **UNREADABLE_MEMBERS[case][0]
    )


@pytest.mark.django_db
@pytest.mark.parametrize("case", sorted(UNREADABLE_MEMBERS))
def test_an_unreadable_markdown_member_fails_the_zip_naming_it_and_why(demo, tmp_path, case):
    """Encrypted, Deflate64 or AES, a bad CRC: a RuntimeError or NotImplementedError from zipfile
    was a traceback (a 500 in the admin); now the zip fails naming the member and the reason."""
    archive = tmp_path / "posts.zip"
    archive.write_bytes(zip_with_unreadable("post.md", case))
    pages = ArticlePage.objects.count()
    _output, error = run_failing(archive)
    assert f"posts.zip: post.md {UNREADABLE_MEMBERS[case][1]}" in error and "nothing imported" in error
    assert "ZipInfo" not in error  # zipfile's own message quotes its whole record
    assert ArticlePage.objects.count() == pages


@pytest.mark.django_db
@pytest.mark.parametrize("case", sorted(UNREADABLE_MEMBERS))
def test_an_unreadable_image_member_is_reported_and_the_article_imported_without_it(demo, tmp_path, case):
    archive = tmp_path / "posts.zip"
    archive.write_bytes(zip_with_unreadable("images/card.png", case))
    output = run(archive)
    assert "post.md: created 'zipped-card'" in output
    # Once as the card image (front matter), once as the figure (line 8).
    assert output.count(f"image images/card.png {UNREADABLE_MEMBERS[case][1]}") == 2
    assert f"line 8: image images/card.png {UNREADABLE_MEMBERS[case][1]}" in output
    page = ArticlePage.objects.get(slug="zipped-card")
    assert page.image is None and [kind for kind, _value in comparable_body(page.body)] == ["paragraph"]


@pytest.mark.django_db
def test_a_zip_of_a_version_zipfile_does_not_read_is_not_a_readable_zip(demo, tmp_path):
    """zipfile raises NotImplementedError ("zip file version 25.0") on opening such a zip."""
    data = bytearray(zip_of({"post.md": ZIPPED_POST}))
    data[data.find(b"PK\x01\x02") + 6] = 250  # the central directory's "version needed to extract"
    (tmp_path / "new.zip").write_bytes(bytes(data))
    assert "new.zip: not a readable zip file (zip file version 25.0)" in run_failing(tmp_path / "new.zip")[1]


# Body image names markdown-it percent-encodes (or that are spelled so): found by their decoded
# name, as the card image of the same name in the front matter is.
IMAGE_NAMES = {
    "accent": ("images/café.png", "images/café.png"),
    "space-in-angle-brackets": ("<images/my card.png>", "images/my card.png"),
    "space-spelled-%20": ("images/my%20card.png", "images/my card.png"),
    "emoji": ("images/📈.png", "images/📈.png"),
    "bidi-override": ("images/\u202egnp.png", "images/\u202egnp.png"),
    "percent-sign": ("images/100%.png", "images/100%.png"),
}


@pytest.mark.django_db
@pytest.mark.parametrize("case", sorted(IMAGE_NAMES))
def test_body_images_with_spaces_and_non_ascii_names_are_found(demo, tmp_path, case):
    reference, member = IMAGE_NAMES[case]
    markdown = f"---\ntitle: Named image\nsummary: s\n---\n\n![A named chart]({reference})\n"
    archive = tmp_path / "posts.zip"
    archive.write_bytes(zip_of({"post.md": markdown.encode(), member: png_bytes("indigo")}))
    output = run(archive)
    assert "image " not in output, output
    page = ArticlePage.objects.get(slug="named-image")
    [(kind, value)] = comparable_body(page.body)
    assert kind == "image" and value["alt_text"] == "A named chart"


# Decoded targets go through every check a written one does: what leaves the import, names a
# network URL or holds a NUL is not read, and the report names it with what does not print escaped.
REFUSED_IMAGES = {
    "dot-dot-slash": ("%2e%2e%2fsecret.png", "image ../secret.png is not beside the file"),
    "dot-dot-slash-deeper": (
        "images/%2e%2e/%2E%2E%2Fsecret.png",
        "image images/../../secret.png is not beside the file",
    ),
    "absolute": ("%2Fsecret.png", "image /secret.png is not beside the file"),
    "backslash": ("..%5Csecret.png", "image ..\\secret.png is not beside the file"),
    "nul": ("images/card%00.png", "image images/card\\x00.png is not beside the file"),
    "network": (
        "https%3A//example.com/card.png",
        "image https://example.com/card.png is not in the import (no network)",
    ),
}


@pytest.mark.django_db
@pytest.mark.parametrize("case", sorted(REFUSED_IMAGES))
def test_decoded_image_names_keep_every_safety_check(demo, tmp_path, case):
    reference, message = REFUSED_IMAGES[case]
    (tmp_path / "secret.png").write_bytes(png_bytes("black"))  # beside the import's folder, not in it
    folder = tmp_path / "posts"
    (folder / "images").mkdir(parents=True)
    (folder / "images" / "card.png").write_bytes(png_bytes("black"))
    (folder / "post.md").write_text(f"---\ntitle: Refused image\nsummary: s\n---\n\n![A secret]({reference})\n")
    images = SiteImage.objects.count()
    output = run(folder)
    assert message in output and "\x00" not in output
    page = ArticlePage.objects.get(slug="refused-image")
    assert [kind for kind, _value in comparable_body(page.body)] == ["paragraph"]
    assert SiteImage.objects.count() == images


@pytest.mark.django_db
def test_long_values_are_shortened_in_the_report(demo, tmp_path):
    """A 5,000-character code language, image path, link or directive is named by its start,
    never whole (and a path past the file system's name limit reads as missing, never a traceback)."""
    long = "x" * 5000
    (tmp_path / "post.md").write_text(
        f"---\ntitle: Long values\nsummary: s\n---\n\n```{long}\ncode\n```\n\n![An image](images/{long}.png)\n\n"
        f"![A card]({long}/{long}.png)\n\n[a link]({long}.md)\n\n```{{{long}}}\nx\n```\n"
    )
    output = run(tmp_path / "post.md")
    notes = [line for line in output.splitlines() if line.startswith("    - ")]
    assert len(notes) == 5 and all(len(note) < 200 and "…" in note for note in notes), notes
    assert "code language 'xxxx" in output and "image images/xxxx" in output and "link to xxxx" in output
