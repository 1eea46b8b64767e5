"""Author pages at /blog/authors/<slug>/, linked from article bylines."""

import re

import pytest

from .factories import ArticlePageFactory, AuthorFactory

pytestmark = pytest.mark.django_db


def card_titles(html: str) -> list[str]:
    return re.findall(r'<h[23] class="card__title"><a href="[^"]+">([^<]+)</a>', html)


def test_author_page_lists_the_authors_articles(client, demo):
    response = client.get("/blog/authors/cedana-editorial/")
    assert response.status_code == 200
    html = response.content.decode()
    assert '<h1 id="listing-heading">Cedana Editorial</h1>' in html
    assert "<title>Cedana Editorial</title>" in html  # the name says the brand: no " · cedana blog"
    assert len(card_titles(html)) == 12
    assert "Showing 12 of 22 posts" in " ".join(html.split())
    assert 'href="?page=2" rel="next"' in html
    assert '<link rel="canonical" href="http://localhost/blog/authors/cedana-editorial/">' in html
    second = client.get("/blog/authors/cedana-editorial/?page=2").content.decode()
    assert len(card_titles(second)) == 10


def test_author_page_shows_only_that_authors_live_articles(client, demo):
    author = AuthorFactory(name="Ada Example", slug="ada-example")
    topics = [demo.topics["gpu-costs"]]
    mine = ArticlePageFactory(parent=demo.blog, topics=topics, authors=[author], title="Ada's post")
    ArticlePageFactory(parent=demo.blog, topics=topics, authors=[author], title="Ada's draft", live=False)
    html = client.get("/blog/authors/ada-example/").content.decode()
    assert card_titles(html) == [mine.title.replace("'", "&#x27;")]


def test_article_byline_links_to_the_author_page(client, demo):
    html = client.get(demo.articles[0].url).content.decode()
    assert '<a href="/blog/authors/cedana-editorial/" rel="author">Cedana Editorial</a>' in html


@pytest.mark.parametrize(
    "url",
    [
        "/blog/authors/nobody/",
        "/blog/authors/",
        "/blog/authors/cedana-editorial/extra/",
        "/blog/authors/%3Cscript%3E/",
        "/blog/authors/cedana-editorial/?page=abc",
        "/blog/authors/cedana-editorial/?page=99",
    ],
)
def test_bad_author_urls_are_404(client, demo, url):
    assert client.get(url).status_code == 404
