"""Per-page SEO: title, meta description, canonical URL, Open Graph/Twitter tags and JSON-LD."""

import html as htmllib
import json
import re

from django.core.cache import cache

import pytest

from blog.models import ArticlePage
from home.models import SOCIAL_IMAGE_SPEC

from .factories import ArticlePageFactory, SiteImageFactory

pytestmark = pytest.mark.django_db

LD_JSON = re.compile(r'<script type="application/ld\+json">(.*?)</script>', re.S)


def head_of(client, url) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode().split("</head>", 1)[0]


def meta(head: str, key: str) -> str | None:
    """The content of ``<meta name|property="key">`` (unescaped), or None."""
    match = re.search(rf'<meta (?:name|property)="{re.escape(key)}" content="([^"]*)">', head)
    return htmllib.unescape(match.group(1)) if match else None


def canonical(head: str) -> str | None:
    match = re.search(r'<link rel="canonical" href="([^"]+)">', head)
    return match.group(1) if match else None


def json_ld(head: str) -> dict[str, dict]:
    """The page's JSON-LD blocks by ``@type``."""
    blocks = [json.loads(text) for text in LD_JSON.findall(head)]
    assert all(block["@context"] == "https://schema.org" for block in blocks)
    return {block["@type"]: block for block in blocks}


def test_article_head_has_description_canonical_and_social_tags(client, demo):
    article = ArticlePage.objects.get(pk=demo.articles[0].pk)
    head = head_of(client, article.url)
    url = f"http://localhost{article.url}"
    assert f"<title>{htmllib.escape(article.title, quote=False)} · cedana blog</title>" in head.replace("&#x27;", "'")
    assert meta(head, "description") == (article.search_description or article.summary)
    assert canonical(head) == url
    assert meta(head, "og:type") == "article"
    assert meta(head, "og:title") == article.title
    assert meta(head, "og:url") == url
    assert meta(head, "og:site_name") == "Cedana blog"
    social = r"http://localhost/media/images/.+\.fill-1200x630\.exact-1200x630\.png"
    assert re.fullmatch(social, meta(head, "og:image"))
    assert (meta(head, "og:image:width"), meta(head, "og:image:height")) == ("1200", "630")
    assert meta(head, "og:image:alt") == article.card_alt_text
    assert meta(head, "article:published_time") == article.date_published.isoformat()
    assert meta(head, "twitter:card") == "summary_large_image"
    assert meta(head, "twitter:image") == meta(head, "og:image")


def test_article_json_ld_has_blog_posting_breadcrumbs_and_website(client, demo):
    article = ArticlePage.objects.get(pk=demo.articles[0].pk)
    data = json_ld(head_of(client, article.url))
    assert set(data) == {"WebSite", "BreadcrumbList", "BlogPosting"}

    posting = data["BlogPosting"]
    url = f"http://localhost{article.url}"
    assert posting["headline"] == article.title
    assert posting["description"] == article.summary
    assert posting["url"] == url and posting["mainEntityOfPage"]["@id"] == url
    assert posting["datePublished"].startswith(article.date_published.date().isoformat())
    assert posting["dateModified"].startswith(article.updated_at.date().isoformat())
    assert posting["author"] == [
        {"@type": "Person", "name": "Cedana Editorial", "url": "http://localhost/blog/authors/cedana-editorial/"}
    ]
    assert posting["publisher"] == {"@type": "Organization", "name": "cedana", "url": "http://localhost/"}
    assert posting["image"][0]["url"].endswith(".fill-1200x630.exact-1200x630.png")
    assert (posting["image"][0]["width"], posting["image"][0]["height"]) == (1200, 630)

    crumbs = data["BreadcrumbList"]["itemListElement"]
    assert [(crumb["position"], crumb["name"]) for crumb in crumbs] == [(1, "Cedana"), (2, "Blog"), (3, article.title)]
    assert crumbs[-1]["item"] == url

    action = data["WebSite"]["potentialAction"]
    assert action["@type"] == "SearchAction"
    assert action["target"]["urlTemplate"] == "http://localhost/search/?query={search_term_string}"
    assert action["query-input"] == "required name=search_term_string"


def test_json_ld_cannot_be_broken_out_of(client, demo):
    title = "</script><script>alert(1)</script> & <!-- more"
    article = ArticlePageFactory(parent=demo.blog, topics=[demo.topics["gpu-costs"]], title=title)
    page_html = client.get(article.url).content.decode()
    assert "<script>alert(1)" not in page_html
    assert json_ld(page_html.split("</head>", 1)[0])["BlogPosting"]["headline"] == title


@pytest.mark.parametrize(
    ("url", "description_field"),
    [("/", "hero_intro"), ("/blog/", "hero_intro"), ("/blog/gpu-costs/", "intro")],
)
def test_listing_pages_fall_back_to_their_intro_and_are_websites(client, demo, url, description_field):
    page = {"/": demo.home, "/blog/": demo.blog, "/blog/gpu-costs/": demo.topics["gpu-costs"]}[url]
    head = head_of(client, url)
    assert getattr(page, description_field)
    assert meta(head, "description") == (page.search_description or getattr(page, description_field))
    assert canonical(head) == f"http://localhost{url}"
    assert meta(head, "og:type") == "website"
    assert "BlogPosting" not in json_ld(head)


def test_search_description_and_social_image_override_the_fallbacks(client, demo):
    article = ArticlePage.objects.get(pk=demo.articles[1].pk)
    article.search_description = "Written for search results."
    article.social_image = SiteImageFactory(file__width=1600, file__height=900, description="A wide picture.")
    article.save_revision().publish()
    head = head_of(client, article.url)
    assert meta(head, "description") == "Written for search results."
    assert meta(head, "og:image") == f"http://localhost{article.social_image.get_rendition(SOCIAL_IMAGE_SPEC).url}"
    assert meta(head, "og:image:alt") == "A wide picture."


def test_second_listing_page_is_its_own_canonical(client, demo):
    assert canonical(head_of(client, "/blog/?page=2")) == "http://localhost/blog/?page=2"


def test_pages_without_a_page_object_only_describe_the_website(client, demo):
    head = head_of(client, "/search/?query=gpu")
    assert canonical(head) is None
    assert set(json_ld(head)) == {"WebSite"}
    assert '<meta name="robots" content="noindex">' in head


@pytest.mark.parametrize(
    "url", ["/", "/blog/", "/blog/gpu-costs/", "/search/?query=gpu", "/blog/authors/cedana-editorial/"]
)
def test_no_inline_executable_scripts(client, demo, url):
    page_html = client.get(url).content.decode()
    for tag in re.findall(r"<script\b[^>]*>", page_html):
        assert 'type="application/ld+json"' in tag or " src=" in tag, tag


def test_missing_image_file_leaves_the_card_image_out_instead_of_failing(client, demo):
    # Wagtail caches renditions by image id, and ids are reused after a test's rollback.
    cache.clear()
    article = ArticlePageFactory(
        parent=demo.blog, topics=[demo.topics["gpu-costs"]], title="Lost picture", image=SiteImageFactory()
    )
    article.image.file.storage.delete(article.image.file.name)
    assert not article.image.renditions.exists()
    head = head_of(client, article.url)
    assert meta(head, "og:image") is None and meta(head, "twitter:card") == "summary"
    assert "BlogPosting" in json_ld(head)
    assert client.get("/blog/gpu-costs/feed/rss/").status_code == 200
