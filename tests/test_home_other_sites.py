"""Other sites: site search, autocomplete, feeds, listings and the sitemap show the requested
site's pages only; with no default site, a host no site serves gets 404s, never a 500."""

import re

from django.core.cache import cache
from django.test import Client

from wagtail.models import Page, Site

import pytest

from .factories import ArticlePageFactory, BlogIndexPageFactory, HomePageFactory, TopicPageFactory

pytestmark = pytest.mark.django_db

OTHER_HOST = "127.0.0.1"
WORD = "Zebrafish"
TITLE = f"{WORD} tanks at scale"


@pytest.fixture
def other_site(demo, forget_sites_afterwards):
    """A second site at 127.0.0.1 with its own blog; its article also carries a topic of the
    demo site's blog (topics are chosen from every site in the admin)."""
    home = HomePageFactory(parent=Page.get_first_root_node(), title="Other home", slug="other-home")
    blog = BlogIndexPageFactory(parent=home, title="Other blog")
    own_topic = TopicPageFactory(parent=blog, title="Aquaria", slug="aquaria")
    for page in (home, blog, own_topic):
        page.save_revision().publish()
    article = ArticlePageFactory(parent=blog, title=TITLE, topics=[own_topic, demo.topics["gpu-costs"]])
    article.save_revision().publish()
    Site.objects.create(hostname=OTHER_HOST, port=80, root_page=home, site_name="Other")
    cache.clear()
    return article


DEFAULT_SITE_URLS = [
    "/",
    "/blog/",
    "/blog/gpu-costs/",
    "/blog/feed/rss/",
    "/blog/feed/atom/",
    "/blog/gpu-costs/feed/rss/",
    "/blog/gpu-costs/feed/atom/",
    f"/search/?query={WORD}",
    f"/search/?query={WORD}&sort=newest",
    f"/search/?query={WORD}&topic=gpu-costs",
    f"/search/autocomplete/?q={WORD[:5]}",
    "/sitemap.xml",
    "/sitemap-blog-articlepage.xml",
    "/sitemap-blog-blogindexpage.xml",
]


@pytest.mark.parametrize("path", DEFAULT_SITE_URLS)
def test_the_default_site_shows_none_of_the_other_sites_pages(client, other_site, path):
    response = client.get(path, HTTP_HOST="localhost")
    assert response.status_code == 200, path
    body = response.content.decode()
    # The query itself is echoed on search pages: look for the article, not the word. The other
    # site's address is looked for as a URL: demo articles' code shows loopback addresses.
    assert TITLE not in body and other_site.url not in body and f"//{OTHER_HOST}/" not in body, path


@pytest.mark.parametrize(
    "path",
    [
        f"/search/?query={WORD}",
        f"/search/autocomplete/?q={WORD[:5]}",
        "/sitemap-blog-articlepage.xml",
        "/",
        "/blog/aquaria/",
    ],
)
def test_the_other_site_finds_its_own_pages(client, other_site, path):
    response = client.get(path, HTTP_HOST=OTHER_HOST)
    assert response.status_code == 200, path
    assert TITLE in response.content.decode() or other_site.slug in response.content.decode(), path


def test_the_other_sites_search_leaves_out_the_default_sites_articles(client, demo, other_site):
    word = demo.articles[0].title.split()[-1]

    def text(host):  # without tags: the matched word in a result's title is highlighted (<mark>)
        return re.sub(r"<[^>]+>", "", client.get("/search/", {"query": word}, HTTP_HOST=host).content.decode())

    assert demo.articles[0].title in text("localhost")
    assert demo.articles[0].title not in text(OTHER_HOST)


PUBLIC_URLS = [
    "/",
    "/blog/",
    "/blog/gpu-costs/",
    "/blog/feed/rss/",
    "/blog/gpu-costs/feed/atom/",
    "/blog/authors/someone/",
    "/search/",
    "/search/?query=gpu",
    "/search/?query=gpu&page=2",
    "/search/autocomplete/?q=gp",
    "/sitemap.xml",
    "/robots.txt",
    "/favicon.ico",
    "/api/v2/pages/",
    "/api/v2/pages/?type=blog.ArticlePage&fields=*",
    "/api/v2/images/",
    "/documents/1/report.pdf",
    "/review/not-a-token/",
    "/no-such-page/",
]


@pytest.mark.parametrize("host", ["localhost", "localhost:8080", "127.0.0.1:1"])
@pytest.mark.parametrize("path", PUBLIC_URLS)
def test_no_default_site_and_an_unknown_host_is_a_404(demo, host, path):
    Site.objects.update(is_default_site=False, hostname="testserver", port=80)
    cache.clear()
    response = Client(raise_request_exception=False).get(path, HTTP_HOST=host)
    assert response.status_code in (400, 404), (path, host, response.status_code)
    assert Client().get("/healthz", HTTP_HOST=host).status_code == 200


def test_the_configured_host_still_works_without_a_default_site(client, demo):
    Site.objects.update(is_default_site=False, hostname="testserver", port=80)
    cache.clear()
    for path in ("/", "/blog/", "/sitemap.xml", "/robots.txt", "/search/?query=gpu"):
        assert client.get(path).status_code == 200, path
