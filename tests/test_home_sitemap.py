"""sitemap.xml (Wagtail's sitemaps) and robots.txt."""

import re
import xml.etree.ElementTree as ET  # noqa: S405 - parses our own response in a test

import pytest

from blog.models import ArticlePage, TopicPage

from .sitemaps import NS, section_documents, section_paths

pytestmark = pytest.mark.django_db

# W3C Datetime, as the sitemap protocol requires for <lastmod>.
W3C_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$")


def sitemap_entries(client) -> dict[str, str]:
    """``{loc: lastmod}`` over every section page; a URL listed twice fails."""
    entries = {}
    for document in section_documents(client):
        root = ET.fromstring(document)  # noqa: S314
        assert root.tag == f"{NS}urlset"
        for url in root:
            assert url.tag == f"{NS}url"
            assert {child.tag for child in url} <= {f"{NS}loc", f"{NS}lastmod", f"{NS}changefreq", f"{NS}priority"}
            loc, lastmod = url.findtext(f"{NS}loc"), url.findtext(f"{NS}lastmod")
            assert loc.startswith("http://localhost/") and len(loc) < 2048
            assert lastmod and W3C_DATE.match(lastmod), (loc, lastmod)
            assert loc not in entries, loc
            entries[loc] = lastmod
    return entries


def test_sitemap_lists_every_live_page_with_lastmod(client, demo):
    entries = sitemap_entries(client)
    assert "http://localhost/" in entries
    assert "http://localhost/blog/" in entries
    for topic in TopicPage.objects.live():
        assert f"http://localhost{topic.url}" in entries
    for article in ArticlePage.objects.live():
        assert f"http://localhost{article.url}" in entries
    article = ArticlePage.objects.get(slug=demo.articles[0].slug)
    assert entries[f"http://localhost{article.url}"].startswith(article.last_published_at.date().isoformat())
    assert "http://localhost/blog/authors/cedana-editorial/" in entries
    authors = {
        f"http://localhost/blog/authors/{slug}/"
        for slug in ArticlePage.objects.live().filter(authors__live=True).values_list("authors__slug", flat=True)
    }
    assert {url for url in entries if "/blog/authors/" in url} == authors
    assert len(entries) == 1 + 1 + TopicPage.objects.count() + ArticlePage.objects.live().count() + len(authors)


def test_an_author_pages_lastmod_is_their_latest_listed_articles_publish(client, demo):
    from datetime import timedelta

    from blog.models import Author

    author = Author.objects.get(slug="cedana-editorial")
    articles = list(ArticlePage.objects.live().filter(authors=author).order_by("pk"))
    assert len(articles) > 2
    # Spread the publish times so the latest is a known article, and hide the newest of them:
    # an expired article no longer counts (the sitemap lists what readers can reach).
    base = articles[0].last_published_at
    for offset, article in enumerate(articles):
        ArticlePage.objects.filter(pk=article.pk).update(last_published_at=base + timedelta(days=offset))
    ArticlePage.objects.filter(pk=articles[-1].pk).update(expire_at=base)
    entries = sitemap_entries(client)
    expected = (base + timedelta(days=len(articles) - 2)).date().isoformat()
    assert entries["http://localhost/blog/authors/cedana-editorial/"].startswith(expected)


def test_sitemap_leaves_out_drafts_private_future_and_expired_pages(client, hidden_articles):
    hidden, visible = hidden_articles.hidden, hidden_articles.visible
    entries = sitemap_entries(client)
    assert f"http://localhost{visible.url}" in entries
    for page in hidden:
        assert f"http://localhost/blog/{page.slug}/" not in entries


def test_robots_txt_points_to_the_sitemap(client, demo):
    response = client.get("/robots.txt")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    lines = response.content.decode().splitlines()
    assert "User-agent: *" in lines
    assert "Disallow: /admin/" in lines
    assert "Sitemap: http://localhost/sitemap.xml" in lines
    assert client.post("/robots.txt").status_code == 405


def test_the_index_lists_one_section_per_page_type(client, demo):
    assert section_paths(client) == [
        "/sitemap-home-homepage.xml",
        "/sitemap-blog-blogindexpage.xml",
        "/sitemap-blog-topicpage.xml",
        "/sitemap-blog-articlepage.xml",
    ]


def test_the_index_gives_the_sites_addresses_whatever_the_host_header(client, demo, settings):
    """The full-page cache keeps one copy of the index for every Host reaching the site: with the
    request's own host in it, one request with an odd port made every reader's index point there."""
    settings.PAGE_CACHE_SECONDS = 600
    client.get("/sitemap.xml", HTTP_HOST="localhost:9999")
    for host in ("localhost:9999", "127.0.0.1", "testserver"):
        index = client.get("/sitemap.xml", HTTP_HOST=host).content.decode()
        locations = re.findall(r"<loc>([^<]*)</loc>", index)
        assert locations and all(loc.startswith("http://localhost/sitemap-") for loc in locations), (host, locations)


@pytest.mark.parametrize("page_size", [1, 7, 10, 97, 98, 1000])
def test_sections_are_paged_and_every_page_is_listed_once(client, demo, settings, page_size):
    settings.SITEMAP_PAGE_SIZE = page_size
    articles = ArticlePage.objects.live().count()
    pages = [path for path in section_paths(client) if path.startswith("/sitemap-blog-articlepage.xml")]
    assert len(pages) == -(-articles // page_size)
    assert pages[1:] == [f"/sitemap-blog-articlepage.xml?p={n}" for n in range(2, len(pages) + 1)]
    entries = sitemap_entries(client)
    assert sum("/blog/authors/" not in url for url in entries) == 1 + 1 + TopicPage.objects.count() + articles


@pytest.mark.parametrize(
    "path",
    [
        "/sitemap-blog-articlepage.xml?p=2",
        "/sitemap-blog-articlepage.xml?p=0",
        "/sitemap-blog-articlepage.xml?p=-1",
        "/sitemap-blog-articlepage.xml?p=x",
        "/sitemap-blog-articlepage.xml?p=1e9",
        "/sitemap-blog-articlepage.xml?p=99999999999999999999999",
        "/sitemap-blog-articlepage.xml?p=",
        "/sitemap-blog-articlepage.xml?p=%00",
        "/sitemap-nothing.xml",
        "/sitemap-wagtailcore-page.xml",
        "/sitemap-.xml",
        "/sitemap-blog-articlepage.xml/",
    ],
)
def test_a_page_or_section_that_does_not_exist_is_a_404(client, demo, path):
    assert client.get(path).status_code == 404


def test_a_section_page_costs_the_same_queries_at_any_page(client, demo, settings, django_assert_max_num_queries):
    settings.SITEMAP_PAGE_SIZE = 10
    client.get("/sitemap-blog-articlepage.xml")  # the site and content types are remembered
    counts = []
    for page in (1, 5, 10):
        with django_assert_max_num_queries(10) as captured:
            assert client.get(f"/sitemap-blog-articlepage.xml?p={page}").status_code == 200
        counts.append(len(captured))
    assert len(set(counts)) == 1, counts
