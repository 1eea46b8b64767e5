"""Machine-readable output is valid: sitemap.xml against the sitemap 0.9 XML schema, and each
reader page's JSON-LD parses and carries the properties its type needs."""

import json
import re
from datetime import datetime
from pathlib import Path

import pytest
from lxml import etree

from .reader_pages import make_every_block_article, reader_paths
from .sitemaps import section_documents

pytestmark = pytest.mark.django_db

# sitemaps.org's schema, as the npm package `sitemap` 9.0.1 ships it (schema/sitemap.xsd, MIT);
# it cannot be loaded from its public URL in tests.
SITEMAP_SCHEMA = Path(__file__).parent / "schemas" / "sitemap-0.9.xsd"
LD_JSON = re.compile(r'<script type="application/ld\+json">(.*?)</script>', re.S)


def sitemap_schema():
    return etree.XMLSchema(etree.parse(str(SITEMAP_SCHEMA)))


def test_sitemap_validates_against_the_sitemap_schema(client, demo):
    article = make_every_block_article(demo.blog, demo.topics["gpu-costs"])
    schema = sitemap_schema()
    namespace = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locations = []
    for content in section_documents(client):  # the index's own shape: tests/sitemaps.py
        document = etree.fromstring(content)
        assert schema.validate(document), schema.error_log
        locations += document.xpath("//s:url/s:loc/text()", namespaces=namespace)
    assert f"http://localhost{article.url}" in locations


def test_the_sitemap_schema_rejects_a_bad_lastmod():
    bad = (
        b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://localhost/</loc>'
        b"<lastmod>yesterday</lastmod></url></urlset>"
    )
    assert not sitemap_schema().validate(etree.fromstring(bad))


def iso_datetime(value: str) -> datetime:
    """Parse an ISO 8601 date-time as schema.org's DateTime expects, with its time zone."""
    parsed = datetime.fromisoformat(value)
    assert parsed.tzinfo is not None, value
    return parsed


def check_website(data: dict, root: str):
    assert data["name"] and data["url"] == f"{root}/"
    action = data["potentialAction"]
    assert action["@type"] == "SearchAction"
    assert action["target"]["urlTemplate"] == f"{root}/search/?query={{search_term_string}}"
    assert action["query-input"] == "required name=search_term_string"


def check_breadcrumbs(data: dict, root: str, url: str):
    items = data["itemListElement"]
    assert [item["position"] for item in items] == list(range(1, len(items) + 1))
    for item in items:
        assert item["@type"] == "ListItem" and item["name"] and item["item"].startswith(f"{root}/")
    assert items[-1]["item"] == f"{root}{url.split('?')[0]}"


def check_blog_posting(data: dict, article, root: str):
    """Google's Article structured data: headline (at most 110 characters), image, dates with time
    zones, authors with name and URL, publisher; plus schema.org's mainEntityOfPage."""
    assert data["headline"] == article.title and len(data["headline"]) <= 110
    assert data["mainEntityOfPage"]["@id"] == data["url"] == f"{root}{article.url}"
    assert iso_datetime(data["datePublished"]) <= iso_datetime(data["dateModified"])
    assert data["author"] == [{"@type": "Person", "name": "Ada Test", "url": f"{root}/blog/authors/ada-test/"}]
    assert data["publisher"]["@type"] == "Organization" and data["publisher"]["name"]
    (image,) = data["image"]
    assert image["url"].startswith(f"{root}/media/") and (image["width"], image["height"]) == (1200, 630)


def test_every_reader_page_has_valid_json_ld(client, demo):
    root = "http://localhost"
    article = make_every_block_article(demo.blog, demo.topics["gpu-costs"])
    pages = {**reader_paths(article), "author": "/blog/authors/ada-test/"}
    for name, url in pages.items():
        response = client.get(url)
        head = response.content.decode().split("</head>", 1)[0]
        blocks = [json.loads(text) for text in LD_JSON.findall(head)]
        assert all(block["@context"] == "https://schema.org" for block in blocks), name
        by_type = {block["@type"]: block for block in blocks}
        assert len(by_type) == len(blocks), f"{name}: a type twice"
        check_website(by_type.pop("WebSite"), root)
        if name in {"search results", "404", "theme chooser"}:
            assert not by_type, name  # no page of the tree: the website only
            continue
        if name == "home":
            by_type.pop("BreadcrumbList", None)  # the home page is the top of the trail
        else:
            check_breadcrumbs(by_type.pop("BreadcrumbList"), root, url)
        if name == "article with every block":
            check_blog_posting(by_type.pop("BlogPosting"), article, root)
        assert not by_type, f"{name}: unexpected {set(by_type)}"
