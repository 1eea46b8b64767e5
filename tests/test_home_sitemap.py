"""sitemap.xml (Wagtail's sitemaps) and robots.txt."""

import re
import xml.etree.ElementTree as ET  # noqa: S405 - parses our own response in a test

import pytest

from blog.models import ArticlePage, TopicPage

pytestmark = pytest.mark.django_db

NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
# W3C Datetime, as the sitemap protocol requires for <lastmod>.
W3C_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$")


def sitemap_entries(client) -> dict[str, str]:
    response = client.get("/sitemap.xml")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/xml")
    root = ET.fromstring(response.content)  # noqa: S314
    assert root.tag == f"{NS}urlset"
    entries = {}
    for url in root:
        assert url.tag == f"{NS}url"
        assert {child.tag for child in url} <= {f"{NS}loc", f"{NS}lastmod", f"{NS}changefreq", f"{NS}priority"}
        loc, lastmod = url.findtext(f"{NS}loc"), url.findtext(f"{NS}lastmod")
        assert loc.startswith("http://localhost/") and len(loc) < 2048
        assert lastmod and W3C_DATE.match(lastmod), (loc, lastmod)
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
