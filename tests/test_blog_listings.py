"""Blog index and topic pages: the seed's structure, counts, paging and what is left out."""

import re

import pytest

from blog.models import ArticlePage
from tests.factories import ArticlePageFactory, TopicPageFactory

pytestmark = pytest.mark.django_db


def showing(html: str) -> str:
    match = re.search(r"Showing [^<]*posts?", html)
    return " ".join(match.group(0).split()) if match else ""


def card_titles(html: str) -> list[str]:
    return re.findall(r'<h[23] class="card__title"><a href="[^"]+">([^<]+)</a>', html)


def test_blog_index_matches_the_seed(client, demo):
    html = client.get("/blog/").content.decode()
    assert "Writing from the<br><em>cedana team.</em>" in html
    assert "Engineering notes, benchmarks, and field reports covering how we build" in html
    assert "All posts · 98" in html
    assert "insights from the team." in html
    assert ">Login<" in html and ">Schedule demo<" in html
    # The featured article and 12 cards: the featured one is not a card too (tests/test_reader_design.py).
    assert showing(html) == "Showing 13 of 98 posts"
    assert len(card_titles(html)) == 12
    # The featured article block: badge, its topic, title, "Updated" and the byline.
    featured = html.split('class="featured"', 1)[1].split("</section>", 1)[0]
    assert "The Era of Stateful Inference: How to Improve Cost per Token." in featured
    assert ">Featured<" in featured and ">Engineering<" in featured
    assert "Updated" in featured and "Cedana Editorial" in featured and "read" in featured


def test_gpu_costs_topic_shows_its_seven_posts_newest_first(client, demo):
    html = client.get("/blog/gpu-costs/").content.decode()
    assert showing(html) == "Showing 7 of 7 posts"
    titles = card_titles(html)
    assert titles[0] == "Cost per token and revenue per megawatt are the same number"
    assert titles[-1] == "How to put a dollar figure on the GPU-hours that produced nothing"
    assert len(titles) == 7
    assert 'aria-current="page">GPU costs<' in html


def test_inference_topic_and_card_fields(client, demo):
    html = client.get("/blog/inference-performance/").content.decode()
    assert showing(html) == "Showing 12 of 22 posts"
    assert card_titles(html)[0] == "How to choose a GPU for LLM inference"
    # Alt text is the seed's illustration description; summary and byline appear on the card.
    assert 'alt="Cedana. Blueprint of a document with a folded corner and seven rows.' in html
    assert "Build an inference GPU shortlist using your traffic, memory needs" in html
    assert "· Cedana Editorial" in html


def test_second_page_lists_the_rest_with_links_both_ways(client, demo):
    first = client.get("/blog/").content.decode()
    assert 'href="?page=2" rel="next"' in first
    second = client.get("/blog/?page=2")
    html = second.content.decode()
    assert second.status_code == 200
    assert showing(html) == "Showing 14–25 of 98 posts"
    assert len(card_titles(html)) == 12
    assert 'href="?page=1" rel="prev"' in html
    assert set(card_titles(html)).isdisjoint(card_titles(first))


@pytest.mark.parametrize(
    "page", ["abc", "0", "-1", "99999", "1.5", "", " 1", "1e3", "9999999999999999999999", "%00", "２"]
)
@pytest.mark.parametrize("url", ["/blog/", "/blog/gpu-costs/"])
def test_bad_page_numbers_are_404_never_500(client, demo, url, page):
    response = client.get(url, {"page": page})
    assert response.status_code == 404


def test_repeated_page_parameter_uses_the_last_value(client, demo):
    assert client.get("/blog/?page=abc&page=1").status_code == 200


def test_drafts_private_future_and_expired_articles_are_left_out(client, hidden_articles):
    visible = hidden_articles.visible
    for url in ("/blog/", "/blog/gpu-costs/", "/"):
        html = client.get(url).content.decode()
        for hidden in hidden_articles.hidden:
            assert hidden.title not in html, (url, hidden.title)
        assert visible.title in html, url
    assert showing(client.get("/blog/gpu-costs/").content.decode()) == "Showing 8 of 8 posts"


def test_featured_article_falls_back_to_the_newest_when_unpublished(client, demo):
    featured = demo.blog.featured_article
    featured.unpublish()
    html = client.get("/blog/").content.decode()
    block = html.split('class="featured"', 1)[1].split("</section>", 1)[0]
    newest = ArticlePage.objects.for_listing().first()
    assert newest.title in block and featured.title not in block


def test_empty_topic_says_so(client, demo):
    # A new topic whose only article is unpublished (unpublishing a demo topic's thirty-odd
    # articles one by one took most of this test's time).
    topic = TopicPageFactory(parent=demo.blog, title="Quantum annealing", slug="quantum-annealing")
    topic.save_revision().publish()
    ArticlePageFactory(parent=demo.blog, topics=[topic]).unpublish()
    response = client.get(topic.url)
    assert response.status_code == 200
    html = response.content.decode()
    assert "No posts here yet." in html
    assert showing(html) == "Showing 0 of 0 posts"
