"""Every public URL under hostile input (hypothesis): never a 500, never a draft or private page.

The headless API gets its own strategy over its parameters (``test_api_parameters``).

Each strategy runs MAX_EXAMPLES examples against the demo site plus three hidden pages whose
text carries a marker: a draft, a password-protected article and a group-only article, and a
live article whose unpublished newer revision carries the marker too. A response may be a
200, a redirect, a 400 (bad Host), 403, 404 or 405; never a 5xx, and never a marker.
"""

import uuid

from django.contrib.auth.models import Group
from django.test import Client

from wagtail.models import PageViewRestriction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .factories import ArticlePageFactory

pytestmark = pytest.mark.django_db

MAX_EXAMPLES = 100
HYPOTHESIS = settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    database=None,  # nothing written to .hypothesis/ in the work tree
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Markers no strategy below can produce (random hex, only known once the module loads).
DRAFT_MARKER = f"draftleak{uuid.uuid4().hex}"
PRIVATE_MARKER = f"privateleak{uuid.uuid4().hex}"
REVISION_MARKER = f"revisionleak{uuid.uuid4().hex}"
MARKERS = (DRAFT_MARKER, PRIVATE_MARKER, REVISION_MARKER)

# URLs other branches may add (feeds, sitemap, API); here they must at least not fail.
MAYBE_URLS = ["/feed/", "/blog/feed/", "/rss/", "/sitemap.xml", "/robots.txt", "/api/v2/pages/", "/documents/1/x.pdf"]
QUERY_KEYS = ["page", "query", "q", "topic", "tag", "author", "type", "fields", "order", "limit", "offset", "format"]

NASTY_VALUES = [
    "",
    "0",
    "-1",
    "1.5",
    "1e9",
    "99999999999999999999999",
    "²",
    "٢",
    "１",
    "0x10",
    " 1",
    "1 ",
    "'",
    '"',
    "\\",
    "%",
    "%%",
    "%00",
    "\x00",
    "\x00abc",
    "\r\nSet-Cookie: x=y",
    "<script>alert(1)</script>",
    "javascript:alert(1)",
    "' OR 1=1 --",
    '"; DROP TABLE wagtailcore_page; --',
    "{{ 7*7 }}",
    "{% debug %}",
    "${jndi:ldap://127.0.0.1/a}",
    "../../../../etc/passwd",
    "*",
    "(",
    ")",
    "AND",
    "NOT",
    '"unbalanced',
    "a" * 5000,
    "é" * 300,
    "\u202e\u200b\ufeff",
    "🙂" * 50,
    "draft",
    "private",
]

NASTY_HOSTS = [
    "",
    "evil.example.com",
    "testserver:99999",
    "testserver:-1",
    "testserver:abc",
    "[::1",
    "[::1]:80",
    "testserver.",
    "TESTSERVER",
    "test server",
    "testserver\r\nX-Injected: 1",
    "a" * 1000,
    "testserver@evil.example.com",
    "127.0.0.1",
    "localhost",
    "xn--nxasmq6b",
    "ünïcödé.example",
    "\x00",
]

# Header values travel as latin-1 in WSGI, so only those characters are generated.
latin1_text = st.text(alphabet=st.characters(max_codepoint=255), max_size=300)
any_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=300)
values = st.one_of(st.sampled_from(NASTY_VALUES), any_text, st.integers().map(str))


@pytest.fixture
def site_urls(demo):
    """Public URLs of the demo site plus the hidden pages' URLs, and the hidden pages set up."""
    gpu = demo.topics["gpu-costs"]
    draft = ArticlePageFactory(
        parent=demo.blog,
        live=False,
        title=f"Draft {DRAFT_MARKER}",
        slug="hidden-draft",
        summary=DRAFT_MARKER,
        topics=[gpu],
    )
    draft.save_revision()
    # Slugs without the markers: a URL is not a leak, the page's text is.
    password = ArticlePageFactory(
        parent=demo.blog,
        title=f"Password {PRIVATE_MARKER}",
        slug="hidden-password",
        summary=PRIVATE_MARKER,
        topics=[gpu],
    )
    PageViewRestriction.objects.create(page=password, restriction_type="password", password="s3cret-pass")  # noqa: S106
    group_only = ArticlePageFactory(
        parent=demo.blog, title=f"Group {PRIVATE_MARKER}", slug="hidden-group", summary=PRIVATE_MARKER, topics=[gpu]
    )
    PageViewRestriction.objects.create(page=group_only, restriction_type="groups").groups.set(
        [Group.objects.get(name="Editors")]
    )
    revised = demo.articles[0]
    revised.title = f"Revised {REVISION_MARKER}"
    revised.summary = REVISION_MARKER
    revised.save_revision()  # a newer draft of a live page; readers keep the published text

    public = ["/", "/blog/", "/search/", "/admin/login/", *MAYBE_URLS]
    public += [topic.url for topic in demo.topics.values()]
    public += [article.url for article in demo.articles[:3]]
    hidden = [f"/blog/{draft.slug}/", password.url, group_only.url]
    return public + hidden


def assert_safe(response, context):
    assert response.status_code < 500, (response.status_code, context)
    body = b"".join(response.streaming_content) if response.streaming else response.content
    text = body.decode("utf-8", "replace")
    for marker in MARKERS:
        assert marker not in text, (marker, context)
    for name, value in response.items():
        assert not any(marker in value for marker in MARKERS), (name, context)


@given(data=st.data())
@HYPOTHESIS
def test_query_parameters(site_urls, data):
    url = data.draw(st.sampled_from(site_urls), label="url")
    params = data.draw(st.dictionaries(st.sampled_from(QUERY_KEYS), values, max_size=4), label="params")
    response = Client().get(url, params)
    assert_safe(response, (url, params))


@given(data=st.data())
@HYPOTHESIS
def test_raw_query_strings(site_urls, data):
    """Broken percent-encoding, repeated keys and separators the form parser must survive."""
    url = data.draw(st.sampled_from(site_urls), label="url")
    pieces = st.one_of(
        st.sampled_from(
            ["page=", "query=", "topic=", "&", "=", "%", "%zz", "%ff", "%00", "+", ";", "?", "#", "page=2"]
        ),
        latin1_text.filter(lambda text: "#" not in text),
    )
    raw = "".join(data.draw(st.lists(pieces, max_size=12), label="query string"))
    response = Client().get(url, QUERY_STRING=raw)
    assert_safe(response, (url, raw))


@given(data=st.data())
@HYPOTHESIS
def test_paths(site_urls, data):
    """Random path segments after every known URL, raw and percent-encoded, in several methods."""
    base = data.draw(st.sampled_from(site_urls), label="base")
    segment = data.draw(st.one_of(st.sampled_from(NASTY_VALUES), any_text), label="segment")
    segment = segment.replace("?", "").replace("#", "")
    slash = data.draw(st.sampled_from(["", "/"]), label="slash")
    method = data.draw(st.sampled_from(["get", "head", "post", "options"]), label="method")
    client = Client()
    response = getattr(client, method)(base + segment + slash)
    assert_safe(response, (method, base, segment))


@given(data=st.data())
@HYPOTHESIS
def test_headers(site_urls, data):
    """Odd Host values (a 400, never a 500) and garbage in the headers pages read."""
    url = data.draw(st.sampled_from(site_urls), label="url")
    host = data.draw(st.one_of(st.sampled_from(NASTY_HOSTS), latin1_text), label="host")
    headers = {
        "HTTP_HOST": host,
        "HTTP_ACCEPT_LANGUAGE": data.draw(latin1_text, label="accept-language"),
        "HTTP_COOKIE": data.draw(latin1_text, label="cookie"),
        "HTTP_REFERER": data.draw(latin1_text, label="referer"),
        "HTTP_IF_NONE_MATCH": data.draw(latin1_text, label="if-none-match"),
        "HTTP_IF_MODIFIED_SINCE": data.draw(latin1_text, label="if-modified-since"),
        "HTTP_RANGE": data.draw(latin1_text, label="range"),
        "HTTP_X_FORWARDED_PROTO": data.draw(latin1_text, label="x-forwarded-proto"),
        "HTTP_X_FORWARDED_FOR": data.draw(latin1_text, label="x-forwarded-for"),
        "HTTP_USER_AGENT": data.draw(latin1_text, label="user-agent"),
    }
    response = Client().get(url, **headers)
    assert_safe(response, (url, headers))


# The API's own parameters and filterable fields (config/api.py checks them); each is given hostile
# values with and without ?type=blog.ArticlePage (which makes the article fields filterable).
API_KEYS = [
    "offset",
    "limit",
    "id",
    "html_path",
    "search",
    "search_operator",
    "order",
    "fields",
    "child_of",
    "ancestor_of",
    "descendant_of",
    "date_published",
    "go_live_at",
    "first_published_at",
    "title",
    "slug",
    "show_in_menus",
    "collection_id",
    "created_at",
    "width",
]
API_VALUES = st.one_of(
    values,
    st.sampled_from(["99999999999999999999", "9223372036854775807", "2026-01-01", "and", "or", '"', '">', 'a"b']),
)


@given(data=st.data())
@HYPOTHESIS
def test_api_parameters(site_urls, demo, data):
    """The headless API answers hostile parameters with a 4xx (a JSON message), never a 500."""
    article_id = demo.articles[0].pk
    url = data.draw(
        st.sampled_from(
            [
                "/api/v2/pages/",
                f"/api/v2/pages/{article_id}/",
                "/api/v2/pages/find/",
                "/api/v2/images/",
                "/api/v2/images/find/",
                "/api/v2/documents/",
                "/api/v2/documents/find/",
            ]
        ),
        label="url",
    )
    params = data.draw(st.dictionaries(st.sampled_from(API_KEYS), API_VALUES, max_size=3), label="params")
    if url.startswith("/api/v2/pages/") and data.draw(st.booleans(), label="typed"):
        params["type"] = "blog.ArticlePage"
    response = Client().get(url, params)
    assert_safe(response, (url, params))
    assert response.status_code in {200, 301, 302, 400, 404}, (url, params, response.status_code)


def test_the_hidden_pages_exist_and_are_hidden(client, site_urls):
    """The property tests above prove something only if the hidden pages are really there."""
    from blog.models import ArticlePage

    assert ArticlePage.objects.filter(title__contains=DRAFT_MARKER, live=False).exists()
    assert ArticlePage.objects.filter(title__contains=PRIVATE_MARKER, live=True).count() == 2
    for url in site_urls[-3:]:
        response = client.get(url)
        assert response.status_code in {200, 302, 404}, url
        assert_safe(response, url)


def test_bad_host_is_a_400():
    response = Client().get("/", HTTP_HOST="evil.example.com")
    assert response.status_code == 400
