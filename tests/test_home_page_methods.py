"""Reader pages served by Wagtail (and their routes: feeds, author pages) answer only the methods
that read them (home/wagtail_hooks.py, ``only_reading_methods``), and every refused method gets
the site's 405 page, not an empty body (home/method_not_allowed.py)."""

import pytest
from bs4 import BeautifulSoup

pytestmark = pytest.mark.django_db

READER_PATHS = [
    "/",
    "/blog/",
    "/blog/gpu-costs/",
    "/blog/authors/cedana-editorial/",
    "/blog/feed/rss/",
    "/blog/gpu-costs/feed/atom/",
]
WRITING_METHODS = ["post", "put", "patch", "delete", "trace"]


@pytest.mark.parametrize("method", WRITING_METHODS)
def test_a_method_that_writes_is_a_405_on_every_reader_page(client, demo, method):
    for path in [*READER_PATHS, demo.articles[0].url]:
        response = getattr(client, method)(path)
        assert response.status_code == 405, (method, path)
        assert response["Allow"] == "GET, HEAD, OPTIONS", path
        assert b"<article" not in response.content, path


def test_options_names_the_methods_and_sends_no_page(client, demo):
    for path in [*READER_PATHS, demo.articles[0].url]:
        response = client.options(path)
        assert response.status_code == 200, path
        assert response["Allow"] == "GET, HEAD, OPTIONS", path
        assert response.content == b"", path


def test_reading_methods_still_serve_the_page(client, demo):
    for path in [*READER_PATHS, demo.articles[0].url]:
        assert client.get(path).status_code == 200, path
        head = client.head(path)
        assert head.status_code == 200 and head.content == b"", path


def test_a_missing_page_is_still_a_404_whatever_the_method(client, demo):
    assert client.delete("/blog/no-such-page/").status_code == 404


# Each kind of address that refuses a method, with methods it refuses: Wagtail pages and their
# routes (our hook), Django views behind require_safe / require_http_methods, an admin action
# that only takes POST.
REFUSING_ADDRESSES = [
    ("post", "/"),
    ("delete", "/blog/gpu-costs/"),
    ("put", "/blog/feed/rss/"),
    ("delete", "/search/?query=gpu"),
    ("put", "/search/autocomplete/?q=gpu"),
    ("post", "/search/autocomplete/?q=gpu"),
    ("post", "/sitemap.xml"),
    ("patch", "/sitemap-blog-articlepage.xml"),
    ("delete", "/robots.txt"),
    ("post", "/favicon.ico"),
    ("put", "/theme/"),
    ("post", "/theme.css"),
    ("delete", "/healthz"),
    ("post", "/readyz"),
]


def assert_is_the_405_page(response, method: str, allowed: str):
    assert response.status_code == 405
    assert response["Allow"] == allowed
    assert response["Content-Type"].startswith("text/html")
    assert int(response["Content-Length"]) == len(response.content)
    page = BeautifulSoup(response.content, "html.parser")
    assert page.select_one(".eyebrow").get_text() == "Error 405"
    intro = " ".join(page.select_one(".blog-hero__intro").get_text().split())
    assert f"used the method {method}," in intro
    assert f"it accepts {allowed}." in intro


@pytest.mark.parametrize(("method", "path"), REFUSING_ADDRESSES)
def test_a_refused_method_gets_the_405_page_naming_what_the_address_takes(client, demo, method, path):
    response = getattr(client, method)(path)
    assert response.status_code == 405, path
    assert_is_the_405_page(response, method.upper(), response["Allow"])
    actions = BeautifulSoup(response.content, "html.parser").select(".error-page__actions a")
    assert [link["href"] for link in actions] == ["/", "/blog/"]


def test_an_article_names_its_methods_on_the_405_page(client, demo):
    assert_is_the_405_page(client.post(demo.articles[0].url), "POST", "GET, HEAD, OPTIONS")


@pytest.mark.parametrize(
    ("method", "shown"),
    [
        ("FROB", "the method FROB,"),
        ("propfind", "the method PROPFIND,"),  # Django upper-cases the method
        ("M-SEARCH", "the method M-SEARCH,"),
        ("A" * 200, "the method " + "A" * 20 + "…,"),
        ("<script>alert(1)</script>", "a method that is not valid HTTP,"),
        ("A\x01B", "a method that is not valid HTTP,"),
        ("DEL\x7f", "a method that is not valid HTTP,"),
        ("\xdf", "a method that is not valid HTTP,"),  # ß, which upper-cases to SS
        ("M\xc3\xa9TH", "a method that is not valid HTTP,"),  # UTF-8 read as Latin-1
        ("GET POST", "a method that is not valid HTTP,"),
    ],
    ids=["unknown", "lower-case", "dash", "long", "markup", "control", "delete-char", "latin-1", "utf-8", "space"],
)
def test_any_method_is_shown_as_a_token_or_not_at_all(client, demo, method, shown):
    response = client.generic(method, "/blog/")
    assert response.status_code == 405
    body = response.content.decode()
    assert "<script>alert" not in body
    assert not any(ord(character) < 32 and character not in "\n\t" for character in body)
    intro = " ".join(BeautifulSoup(body, "html.parser").select_one(".blog-hero__intro").get_text().split())
    assert f"The request used {shown} which this address does not accept" in intro


@pytest.mark.parametrize("method", ["post", "delete", "options"])
def test_a_static_file_refusing_a_method_gets_the_405_page(settings, method):
    """WhiteNoise's 405 has no body and no Content-Type. WhiteNoise serves from the static
    folders (as under ``make run``) in a client made after the setting changed."""
    from django.test import Client

    settings.WHITENOISE_USE_FINDERS = True
    client = Client()
    assert client.get("/static/css/site.css").status_code == 200
    response = getattr(client, method)("/static/css/site.css")
    assert_is_the_405_page(response, method.upper(), "GET, HEAD")


def test_an_admin_action_that_takes_only_post_gets_the_405_page_with_a_way_back(client, demo, editor):
    client.force_login(editor)
    response = client.get("/admin/calendar/move/")
    assert_is_the_405_page(response, "GET", "POST")
    actions = BeautifulSoup(response.content, "html.parser").select(".error-page__actions a")
    assert [link["href"] for link in actions] == ["/admin/"]


def test_a_405_with_a_body_keeps_it(client, demo):
    """The API's 405 is JSON already."""
    response = client.post("/api/v2/pages/")
    assert response.status_code == 405
    assert response["Content-Type"] == "application/json"
    assert b"Error 405" not in response.content


# Views that only read, each exempt from the CSRF check (no method they take writes anything),
# so that a browser-like client's POST or DELETE learns the method is refused, not that its form
# lacked a token.
READ_ONLY_VIEWS = [
    "/search/?query=gpu",
    "/search/autocomplete/?q=gpu",
    "/sitemap.xml",
    "/sitemap-blog-articlepage.xml",
    "/robots.txt",
    "/favicon.ico",
    "/theme.css",
    "/healthz",
    "/readyz",
    "/review/not-a-token/",
]


@pytest.mark.parametrize("method", ["post", "delete", "put"])
def test_a_read_only_view_refuses_a_writing_method_with_405_even_with_csrf_checks_on(demo, method):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    for path in READ_ONLY_VIEWS:
        # Each is a real address (the made-up reviewer token aside), so the 405 is the method's.
        assert strict.get(path).status_code in (200, 301) or path.startswith("/review/"), path
        response = getattr(strict, method)(path)
        assert response.status_code == 405, (method, path)
        assert_is_the_405_page(response, method.upper(), response["Allow"])


# Pages and their routes refuse a writing method with the 405 page whether or not the request
# carries a CSRF token: the CSRF failure view answers as the page would (home/method_not_allowed.py,
# ``csrf_failure``), not with the "allow cookies" page, which is for forms.
CSRF_CHECKED_METHODS = ["POST", "PUT", "DELETE", "PATCH", "PROPFIND", "FOO", "M-SEARCH", "mkcol"]


def page_addresses(demo) -> list[str]:
    """Every kind of address Wagtail serves: the home page, the blog index, topics, articles,
    and the routes of ``RoutablePageMixin`` pages (the blog's and each topic's RSS and Atom
    feeds, author pages, and an unknown author, which the route takes and the view 404s)."""
    from blog.models import Author

    topics = list(demo.topics.values())[:3]
    return [
        "/",
        "/blog/",
        *(topic.url for topic in topics),
        *(article.url for article in list(demo.articles)[:3]),
        "/blog/feed/rss/",
        "/blog/feed/atom/",
        *(topic.url + "feed/rss/" for topic in topics),
        *(topic.url + "feed/atom/" for topic in topics),
        *(f"/blog/authors/{slug}/" for slug in Author.objects.values_list("slug", flat=True)[:3]),
        "/blog/authors/no-such-author/",
    ]


def client_with_token():
    """A browser-like client (CSRF checks on) and the token its cookie holds."""
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.get("/admin/login/")
    return client, client.cookies["csrftoken"].value


@pytest.mark.parametrize("method", CSRF_CHECKED_METHODS)
def test_a_page_refuses_a_writing_method_with_the_405_page_token_or_not(demo, method):
    client, token = client_with_token()
    for path in page_addresses(demo):
        if method == "POST":  # once: each is a real page, so the 405 is the method's
            assert client.get(path).status_code == 200 or path.endswith("/no-such-author/"), path
        for headers in ({}, {"HTTP_X_CSRFTOKEN": token}):
            response = client.generic(method, path, **headers)
            assert response.status_code == 405, (method, path, headers)
            assert_is_the_405_page(response, method.upper(), "GET, HEAD, OPTIONS")
            assert b"Allow cookies" not in response.content, path


def test_no_page_at_the_address_is_a_404_token_or_not(demo, hidden_articles):
    """A path Wagtail routes to no page (a missing slug, a draft, a scheduled page, an unknown
    feed route) is the 404 page for a writing method too."""
    client, token = client_with_token()
    draft, _private, _expired, future = hidden_articles.hidden
    for path in ("/blog/no-such-page/", "/blog/feed/nope/", f"/blog/{draft.slug}/", f"/blog/{future.slug}/"):
        for method in ("POST", "DELETE", "PROPFIND"):
            for headers in ({}, {"HTTP_X_CSRFTOKEN": token}):
                response = client.generic(method, path, **headers)
                assert response.status_code == 404, (method, path, headers)
                assert "Page not found." in response.content.decode(), (method, path)


def test_a_private_page_refuses_a_writing_method_as_it_does_with_a_token(demo, hidden_articles):
    client, token = client_with_token()
    private = hidden_articles.hidden[1]
    for headers in ({}, {"HTTP_X_CSRFTOKEN": token}):
        assert_is_the_405_page(client.post(private.url, **headers), "POST", "GET, HEAD, OPTIONS")


@pytest.mark.parametrize("signed_in", [False, True], ids=["anonymous", "editor"])
def test_an_admin_view_that_only_reads_refuses_a_writing_method_with_the_405_page(demo, editor, signed_in):
    """A class-based view that dispatches with Django's own ``View.dispatch`` and has no handler
    for the method; the page offers the way back to the admin."""
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    if signed_in:
        client.force_login(editor)
    for path in ("/admin/", "/admin/calendar/"):
        for method in ("POST", "DELETE"):
            response = client.generic(method, path)
            assert response.status_code == 405, (method, path)
            assert_is_the_405_page(response, method, response["Allow"])
            assert "POST" not in response["Allow"] and "GET" in response["Allow"], path
            actions = BeautifulSoup(response.content, "html.parser").select(".error-page__actions a")
            assert [link["href"] for link in actions] == ["/admin/"]
