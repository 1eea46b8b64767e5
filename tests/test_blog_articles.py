"""Article pages: fields readers see, table of contents, related posts, dates."""

from django.utils.html import escape

import pytest

from blog.models import SUMMARY_MAX_LENGTH

pytestmark = pytest.mark.django_db

BREAK_EVEN = "/blog/how-much-utilization-improvement-do-you-need-to-break-even-on-gpu-checkpointing/"


def test_demo_articles_render_with_their_fields(client, demo):
    """Every eighth of the demo's 98 (the rest would only make more renditions; every body is
    validated and rendered in tests/test_blog_demo.py)."""
    assert len(demo.articles) == 98
    for article in demo.articles[::8]:
        response = client.get(article.url)
        assert response.status_code == 200, article.url
        html = response.content.decode()
        assert f'<h1 class="article__title">{escape(article.title)}</h1>' in html
        assert escape(article.summary) in html
        assert all(escape(author.name) in html for author in article.authors.all())
        assert len(article.body) >= 5
        assert len({block.block_type for block in article.body}) >= 3


def test_article_page_has_toc_anchors_key_figure_and_code(client, demo):
    html = client.get(BREAK_EVEN).content.decode()
    article = next(a for a in demo.articles if a.url == BREAK_EVEN)
    toc = article.table_of_contents
    assert len(toc) >= 3
    for item in toc:
        assert f'href="#{item["anchor"]}"' in html
        assert f'id="{item["anchor"]}"' in html
    assert "5.7" in html and "block-key-figure" in html
    assert '<div class="highlight">' in html
    assert "min read" in html


def test_related_articles_share_a_topic(demo):
    article = next(a for a in demo.articles if a.url == BREAK_EVEN)
    related = list(article.get_related_articles())
    assert len(related) == 3
    assert all(r.topics.filter(slug="gpu-costs").exists() for r in related)
    assert article not in related


def test_reading_time_counts_body_words(demo):
    article = demo.articles[0]
    assert article.word_count > 500
    assert article.reading_time_minutes == max(1, round(article.word_count / 230))


def test_summary_limit_is_enforced_by_the_model(demo):
    article = demo.articles[0]
    article.summary = "x" * (SUMMARY_MAX_LENGTH + 1)
    with pytest.raises(Exception) as error:
        article.full_clean()
    assert "summary" in str(error.value)


def test_date_published_is_set_on_first_publish_and_kept_on_republish(demo):
    from .factories import ArticlePageFactory

    article = ArticlePageFactory(parent=demo.blog, live=False, date_published=None, topics=[demo.topics["gpu-costs"]])
    assert article.date_published is None
    article.save_revision().publish()
    article.refresh_from_db()
    first = article.date_published
    assert first is not None
    article.summary = "Changed."
    article.save_revision().publish()
    article.refresh_from_db()
    assert article.date_published == first
    assert article.last_published_at >= first


def test_heading_ids_are_unique_unicode_and_match_the_contents(client, demo):
    """Repeated, non-Latin and template-colliding headings each get their own id, and the
    contents list links to exactly those ids."""
    import re

    article = demo.articles[0]
    headings = [
        ("Results", ""),
        ("Results", ""),
        ("Обзор", ""),
        ("日本語", ""),
        ("Related heading", ""),  # slug "related-heading" is the related-posts section's id
        ("Toc heading", ""),
        ("Anything", "results-2"),  # an explicit anchor keeps its id; the repeat moves on to -3
    ]
    article.body = [
        {"type": "heading", "value": {"text": text, "level": "h2", "anchor": anchor}} for text, anchor in headings
    ]
    article.save_revision().publish()

    html = client.get(article.url).content.decode()
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert len(ids) == len(set(ids)), sorted(ids)
    heading_ids = re.findall(r'<h2 id="([^"]+)" class="section-heading">', html)
    expected = ["results", "results-3", "обзор", "日本語", "related-heading-2", "toc-heading-2", "results-2"]
    assert heading_ids == expected
    toc_links = re.findall(r'<li class="toc__item[^"]*"><a href="#([^"]+)">', html)
    assert toc_links == heading_ids
