"""What editors type reaches readers escaped; ``javascript:`` links never reach them.

Two ways in: the admin editor (Draftail, whose converter drops unsafe links, and the block
validators), and stored data that skipped the editor (an import or fixture), which the blocks
clean when they load it (``home.rich_text_safety``, ``CallToActionBlock.to_python``).
"""

import json
import re

from django.test import Client
from django.urls import reverse

from wagtail.test.utils.form_data import inline_formset, nested_form_data, streamfield
from wagtail.whitelist import check_url

import pytest
from bs4 import BeautifulSoup

from blog.blocks import ParagraphBlock
from blog.models import ArticlePage
from home.rich_text_safety import allow_list, remove_active_content

from .factories import ArticlePageFactory

pytestmark = pytest.mark.django_db

SCRIPT = '<script>alert("xss")</script>'
ATTRIBUTE_BREAKOUT = '"><img src=x onerror=alert(1)>'
PAYLOAD = f"{SCRIPT}{ATTRIBUTE_BREAKOUT}"
UNSAFE_URLS = [
    "javascript:alert(1)",
    "JavaScript:alert(1)",
    " javascript:alert(1)",
    "java\tscript:alert(1)",
    "jav&#x09;ascript:alert(1)",
    "vbscript:msgbox(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
]


def assert_no_script(html: str):
    """Parse ``html`` as a browser would: no script element, no on* attribute, no unsafe URL."""
    soup = BeautifulSoup(html, "html.parser")
    # The site's own scripts are allowed: JSON-LD data blocks and files under /static/js/.
    scripts = [
        s
        for s in soup.find_all("script")
        if s.get("type") != "application/ld+json" and not (s.get("src") or "").startswith("/static/js/")
    ]
    assert not scripts, "a script element reached the page"
    for tag in soup.find_all(True):
        for name, value in tag.attrs.items():
            assert not name.startswith("on"), f"<{tag.name} {name}> reached the page"
            if name in {"href", "src", "action", "formaction"}:
                assert check_url(value) is not None, f"<{tag.name} {name}={value!r}> reached the page"


# Stored data as an import or fixture could write it, bypassing the editor's forms.
STORED_RICH_TEXT = (
    '<p>Read <a href="javascript:alert(1)">one</a>, <a href="JaVaScRiPt:alert(2)">two</a>, '
    "<A HREF='jav&#x09;ascript:alert(3)'>three</A>, <a href=\"data:text/html,hi\">four</a> and "
    '<a href="https://example.com/ok">the safe one</a>.</p>'
    '<script>alert(4)</script><p onclick="alert(5)">click</p><iframe src="https://evil.example/"></iframe>'
)


def test_remove_active_content_keeps_clean_html_byte_for_byte():
    clean = '<p>Hi <a href="https://example.com/">there</a> and <a linktype="page" id="3">a page</a>.</p>'
    assert remove_active_content(clean) is clean


def test_remove_active_content_keeps_wagtail_placeholders_and_safe_links():
    html = remove_active_content(STORED_RICH_TEXT + '<a linktype="page" id="3">page</a>')
    assert_no_script(html)
    assert '<a href="https://example.com/ok">the safe one</a>' in html
    assert '<a id="3" linktype="page">page</a>' in html or '<a linktype="page" id="3">page</a>' in html
    for text in ("one", "two", "three", "four", "click"):
        assert text in html


@pytest.fixture
def hostile_article(demo):
    """An article whose stored body has hostile text in every block's every text field."""
    image = demo.articles[0].image
    body = [
        {"type": "heading", "value": {"text": PAYLOAD, "level": "h2", "anchor": ""}},
        {"type": "paragraph", "value": STORED_RICH_TEXT},
        {"type": "image", "value": {"image": image.pk, "alt_text": PAYLOAD, "caption": PAYLOAD}},
        {"type": "code", "value": {"language": "python", "filename": PAYLOAD, "source": PAYLOAD}},
        {
            "type": "table",
            "value": {
                "data": [[PAYLOAD, "b"], ["c", PAYLOAD]],
                "first_row_is_table_header": True,
                "first_col_is_header": True,
                "table_caption": PAYLOAD,
            },
        },
        {"type": "quote", "value": {"quote": PAYLOAD, "attribution": PAYLOAD}},
        {"type": "callout", "value": {"kind": "warning", "title": PAYLOAD, "text": STORED_RICH_TEXT}},
        {"type": "key_figure", "value": {"value": "<b>1", "unit": SCRIPT[:24], "label": PAYLOAD}},
        {"type": "embed", "value": {"video": f"https://www.youtube.com/watch?v={PAYLOAD}", "caption": PAYLOAD}},
        {"type": "cta", "value": {"heading": PAYLOAD, "text": PAYLOAD, "label": "Go", "url": "javascript:alert(6)"}},
        {"type": "cta", "value": {"heading": "Two", "text": "", "label": "Go", "url": "jav\tascript:alert(7)"}},
        # Math stored without the form: as LaTeX, inside \text{}, as a link, and inline.
        {"type": "math", "value": PAYLOAD},
        {"type": "math", "value": f"\\text{{{PAYLOAD}}}"},
        {"type": "math", "value": "\\href{javascript:alert(8)}{x}"},
        {
            "type": "paragraph",
            "value": "<p>Inline $\\text{&lt;img src=x onerror=alert(1)&gt;}$, "
            "$\\text{&lt;script&gt;alert(1)&lt;/script&gt;}$ and $\\href{javascript:alert(9)}{x}$.</p>",
        },
    ]
    return ArticlePageFactory(
        parent=demo.blog,
        title=f"Title {PAYLOAD}",
        summary=f"Summary {PAYLOAD}",
        image_alt=PAYLOAD,
        body=body,
        topics=[demo.topics["gpu-costs"]],
    )


@pytest.fixture
def no_embed_fetch(monkeypatch):
    """The embed block would ask YouTube for the player; offline, it shows its plain link."""
    monkeypatch.setattr("wagtail.embeds.blocks.embed_to_frontend_html", lambda *args, **kwargs: "")


def test_every_block_escapes_what_editors_typed(client, hostile_article, no_embed_fetch):
    response = client.get(hostile_article.url)
    assert response.status_code == 200
    html = response.content.decode()
    assert_no_script(html)
    assert ATTRIBUTE_BREAKOUT not in html
    # The text is shown, escaped: once each in heading, alt, caption, filename, table (2 cells and
    # the caption), quote, attribution, callout title, key figure label, embed caption, CTA heading
    # and text, plus the page's title and summary.
    assert html.count("&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt;") >= 14
    assert "&lt;b&gt;1" in html  # the key figure's value
    # Both CTAs fall back to the site's demo link instead of the stored javascript: URLs.
    cta_links = re.findall(r'<section class="block-cta">.*?<a class="button" href="([^"]*)"', html, re.S)
    assert cta_links == ["https://cedana.ai/", "https://cedana.ai/"]
    # The safe link in the stored rich text survives, in the paragraph and the callout.
    assert html.count('href="https://example.com/ok"') == 2


def test_article_listing_and_search_escape_titles_and_summaries(client, hostile_article):
    for url in ("/blog/", "/blog/gpu-costs/", "/search/?query=Summary"):
        html = client.get(url).content.decode()
        assert_no_script(html)
        assert "Title &lt;script&gt;" in html, url


def contentstate_with_link(url: str) -> str:
    """Draftail's JSON for one paragraph "click here" whose first word links to ``url``."""
    return json.dumps(
        {
            "blocks": [
                {
                    "key": "a1b2c",
                    "type": "unstyled",
                    "depth": 0,
                    "text": "click here",
                    "inlineStyleRanges": [],
                    "entityRanges": [{"offset": 0, "length": 5, "key": 0}],
                    "data": {},
                }
            ],
            "entityMap": {"0": {"type": "LINK", "mutability": "MUTABLE", "data": {"url": url}}},
        }
    )


@pytest.mark.parametrize("url", UNSAFE_URLS)
def test_the_editor_drops_unsafe_link_urls(url):
    widget = ParagraphBlock().field.widget
    stored = widget.value_from_datadict({"body": contentstate_with_link(url)}, {}, "body")
    assert "click</a> here" in stored
    assert_no_script(stored)


def test_the_editor_keeps_safe_link_urls():
    widget = ParagraphBlock().field.widget
    stored = widget.value_from_datadict({"body": contentstate_with_link("https://example.com/")}, {}, "body")
    assert '<a href="https://example.com/">click</a>' in stored


@pytest.fixture
def admin_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("rt-admin", "rt@example.com", "Rich-Text-Pass-1"))
    return client


def article_form(demo, body_blocks, slug):
    article = demo.articles[0]
    data = nested_form_data(
        {
            "title": "Editor-typed article",
            "slug": slug,
            "summary": "A summary.",
            "search_description": "A summary.",
            "image": article.image.pk,
            "image_alt": "Alt text.",
            "body": streamfield(body_blocks),
            "date_published": "",
            "comments": inline_formset([]),
            "action-publish": "publish",
        }
    )
    data["topics"] = [demo.topics["gpu-costs"].pk]
    data["authors"] = [article.authors.first().pk]
    return data


def test_a_javascript_link_typed_in_the_admin_editor_never_reaches_readers(admin_client, demo):
    data = article_form(
        demo,
        [
            ("paragraph", contentstate_with_link("javascript:alert(document.cookie)")),
            ("callout", {"kind": "note", "title": "", "text": contentstate_with_link("JAVASCRIPT:alert(1)")}),
        ],
        slug="editor-typed",
    )
    response = admin_client.post(reverse("wagtailadmin_pages:add", args=("blog", "articlepage", demo.blog.pk)), data)
    assert response.status_code == 302, response.context["form"].errors if response.context else response
    page = ArticlePage.objects.get(slug="editor-typed")
    assert page.live
    stored = json.dumps(page.body.get_prep_value())
    assert "click</a> here" in stored and "alert" not in stored
    html = Client().get(page.url).content.decode()  # a reader, not the signed-in editor
    assert "click</a> here" in html
    assert_no_script(html)


@pytest.mark.parametrize("url", ["javascript:alert(1)", "//evil.example/", "data:text/html,hi"])
def test_a_cta_with_an_unsafe_url_is_refused_by_the_admin_form(admin_client, demo, url):
    data = article_form(demo, [("cta", {"heading": "Hi", "text": "", "label": "Go", "url": url})], slug="cta-bad")
    response = admin_client.post(reverse("wagtailadmin_pages:add", args=("blog", "articlepage", demo.blog.pk)), data)
    assert response.status_code == 200
    assert not ArticlePage.objects.filter(slug="cta-bad").exists()
    assert "Enter a site path starting with /" in response.content.decode()


# Active elements with elements inside them: removing the outer one removes its children, which
# the cleaner must then skip (a feed of an article with a formula was a 500 on it).
NESTED_ACTIVE = [
    '<svg><g onload="alert(1)"><circle r="1"></circle></g></svg>',
    "<math><semantics><mi>x</mi><annotation>x</annotation></semantics></math>",
    '<form action="https://evil.example/"><input name="a"><button>go</button></form>',
    '<object data="x"><param name="a" value="b"><embed src="x"></object>',
    "<frameset><frame src='x'><frame src='y'></frameset>",
    '<svg><svg><a href="javascript:alert(1)">deep</a></svg></svg>',
]


@pytest.mark.parametrize("active", NESTED_ACTIVE)
def test_remove_active_content_removes_nested_active_elements_whole(active):
    html = remove_active_content(f"<p>before</p>{active}<p>after</p>")
    assert_no_script(html)
    assert "<p>before</p>" in html and "<p>after</p>" in html
    soup = BeautifulSoup(html, "html.parser")
    assert not soup.find_all(["svg", "math", "form", "object", "frameset", "frame", "input", "param"])


def test_allow_list_keeps_what_the_caller_lists_with_its_attributes_checked():
    cleaner = allow_list({"math", "mi"}, {"math": {"display"}})
    html = cleaner.clean('<math display="block" onclick="alert(1)"><mi>x</mi></math><svg><g></g></svg>')
    assert html == '<math display="block"><mi>x</mi></math>'


# The allow-list (nh3): what is not Wagtail's stored rich-text format goes, whatever it is.
@pytest.mark.parametrize(
    ("stored", "cleaned"),
    [
        # Unknown elements lose their tags and keep their text; unknown attributes go.
        (
            '<p class="x" style="color:red" data-x="1" title="t">a<font color="red">b</font>'
            '<marquee>c</marquee><custom-el foo=1>d</custom-el><span lang="en">e</span></p>'
            '<details open><summary lang="en">f</summary></details><h2 id="x" onclick="x">g</h2>',
            "<p>abcde</p>f<h2>g</h2>",
        ),
        ('<p><img src="x.png" alt="x">text</p><video src="v.mp4"></video>', "<p>text</p>"),
        # javascript: and data: URLs, in any spelling, and another host behind a path.
        (
            '<p><a href="javascript:alert(1)">a</a><a href=" JaVaScRiPt:alert(1)">b</a>'
            '<a href="jav&#x09;ascript:alert(1)">c</a><a href="data:text/html;base64,PHNjcmlwdD4=">d</a>'
            '<a href="vbscript:msgbox(1)">e</a><a href="//evil.example/">f</a><a href="/\\evil.example/">g</a></p>',
            "<p><a>a</a><a>b</a><a>c</a><a>d</a><a>e</a><a>f</a><a>g</a></p>",
        ),
        # A media embed's url is checked too; an <embed> that is not Wagtail's goes.
        (
            '<embed embedtype="media" url="javascript:alert(1)">'
            '<embed src="x.swf" type="application/x-shockwave-flash">',
            '<embed embedtype="media"/>',
        ),
        # Comments go; what is left is written in Wagtail's format (<br/>, <embed .../>).
        (
            '<p>a<!-- <script>x</script> --><br>b</p><embed embedtype="image" id="3">',
            '<p>a<br/>b</p><embed embedtype="image" id="3"/>',
        ),
    ],
)
def test_the_sanitiser_is_an_allow_list(stored, cleaned):
    assert remove_active_content(stored) == cleaned


def test_wagtail_links_and_embeds_are_kept_byte_for_byte():
    stored = (
        '<h2 data-block-key="h1">Costs</h2><p data-block-key="a1">See <a linktype="page" id="42">the page</a>, '
        '<a linktype="document" id="7">the sheet</a>, <a href="/blog/#costs">a path</a>, '
        '<a href="mailto:ops@example.org">ops</a> and <a href="tel:+15550100">call</a>.<br/>'
        "<b>bold</b> <i>italic</i> <code>x &lt; y</code> x<sup>2</sup> H<sub>2</sub>O <s>old</s> <kbd>Ctrl</kbd></p>"
        '<embed alt="A &quot;ridge&quot; plot" embedtype="image" format="fullwidth" id="12"/>'
        '<embed embedtype="media" url="https://www.youtube.com/watch?v=abc"/>'
        '<ul data-block-key="u1"><li data-block-key="l1">one</li></ul>'
        '<ol data-block-key="o1"><li data-block-key="l2">two</li></ol>'
        '<blockquote data-block-key="q1">quoted</blockquote><hr/>'
    )
    assert remove_active_content(stored) is stored


def test_wagtail_renders_the_cleaned_links_and_embeds(demo):
    """What the cleaner writes is still Wagtail's format: its rewriters turn the page link and the
    image embed into a page URL and a rendition (an ``<embed>`` left as nh3 writes it, without
    ``/>``, would reach readers as it is)."""
    from wagtail.rich_text import expand_db_html

    article, image = demo.articles[0], demo.articles[0].image
    stored = (
        f'<p onclick="x"><a linktype="page" id="{article.pk}">a</a></p>'
        f'<embed embedtype="image" id="{image.pk}" format="fullwidth" alt="A plot">'
    )
    html = expand_db_html(remove_active_content(stored))
    assert f'<a href="{article.url}">a</a>' in html
    assert "<embed" not in html and "<img" in html and 'alt="A plot"' in html
