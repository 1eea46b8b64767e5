"""Only reader-visible text is searched: block settings and labels (heading levels, anchors,
code languages, callout kinds, button URLs, table options) are not in the search index."""

from django.test import Client

import pytest

from blog.models import ArticlePage

from .factories import ArticlePageFactory

pytestmark = pytest.mark.django_db

BODY = [
    {"type": "heading", "value": {"text": "Quokka heading", "level": "h3", "anchor": "wombatanchor"}},
    {"type": "paragraph", "value": "<p>Plain words about numbats.</p>"},
    {
        "type": "code",
        "value": {"language": "rust", "filename": "platypus_main.rs", "source": "fn echidna() {}"},
    },
    {"type": "callout", "value": {"kind": "takeaway", "title": "Bilby title", "text": "<p>Dingo text.</p>"}},
    {
        "type": "cta",
        "value": {"heading": "Kookaburra offer", "text": "", "label": "Book wallaby", "url": "/cassowary-signup/"},
    },
    {
        "type": "table",
        "value": {
            "data": [["Bandicoot", "Cost"], ["Possum", "$1"]],
            "first_row_is_table_header": True,
            "first_col_is_header": False,
            "table_caption": "Tasmanian caption",
        },
    },
]

READER_TEXT = [
    "Quokka",
    "numbats",
    "echidna",
    "Bilby",
    "Dingo",
    "Kookaburra",
    "wallaby",
    "Bandicoot",
    "Possum",
    "Tasmanian",
]
SETTINGS = ["h3", "wombatanchor", "rust", "Rust", "takeaway", "cassowary", "/cassowary-signup/"]


@pytest.fixture
def article(demo):
    block_names = set(ArticlePage.body.field.stream_block.child_blocks)
    assert {item["type"] for item in BODY} <= block_names, block_names
    topics = [demo.topics["gpu-costs"]]
    article = ArticlePageFactory(parent=demo.blog, title="Marsupial notes", topics=topics, body=BODY)
    article.save_revision().publish()
    return ArticlePage.objects.get(pk=article.pk)


def searchable_text(article) -> str:
    block = ArticlePage.body.field.stream_block
    return " ".join(block.get_searchable_content(article.body))


@pytest.mark.parametrize("word", READER_TEXT)
def test_reader_visible_text_is_indexed(article, word):
    assert word in searchable_text(article)
    assert "Marsupial notes" in Client().get("/search/", {"query": word}).content.decode(), word


def test_the_code_filename_is_indexed_as_written(article):
    # Not searched for over HTTP: PostgreSQL's parser keeps "platypus_main.rs" as one file token.
    assert "platypus_main.rs" in searchable_text(article).split()


@pytest.mark.parametrize("word", SETTINGS)
def test_settings_and_labels_are_not_indexed(article, word):
    assert word not in searchable_text(article).split(), word
    assert "Marsupial notes" not in Client().get("/search/", {"query": word}).content.decode(), word
