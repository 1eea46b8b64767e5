"""Reading the sitemap as a crawler does: the index at ``/sitemap.xml``, then each section page it lists."""

import xml.etree.ElementTree as ET  # noqa: S405 - parses our own responses in tests
from urllib.parse import urlsplit

NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def section_paths(client, **headers) -> list[str]:
    """The path (with ``?p=N``) of every section page the index lists."""
    index = client.get("/sitemap.xml", **headers)
    assert index.status_code == 200
    root = ET.fromstring(index.content)  # noqa: S314
    assert root.tag == f"{NS}sitemapindex"
    paths = []
    for loc in root.iter(f"{NS}loc"):
        url = urlsplit(loc.text)
        paths.append(url.path + (f"?{url.query}" if url.query else ""))
    return paths


def section_documents(client, **headers) -> list[bytes]:
    """The XML of every section page the index lists, each a 200."""
    documents = []
    for path in section_paths(client, **headers):
        response = client.get(path, **headers)
        assert response.status_code == 200, path
        assert response["Content-Type"].startswith("application/xml"), path
        documents.append(response.content)
    return documents


def sitemap_text(client, **headers) -> str:
    """Every section page's XML, joined: for tests that look for a URL anywhere in the sitemap."""
    return "".join(document.decode() for document in section_documents(client, **headers))
