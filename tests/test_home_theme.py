"""The reader's theme (home/theme.py): /theme.css imports the dark palette as the ``theme``
cookie says, /theme/ stores the choice without JavaScript, and page HTML is the same in both
themes, so the full-page cache never serves one theme's page for the other."""

import re

import pytest

from home.theme import THEME_COOKIE

pytestmark = pytest.mark.django_db

DARK_IMPORT = '@import url("/static/css/dark.css");'
SYSTEM_IMPORT = '@import url("/static/css/dark.css") (prefers-color-scheme: dark);'


@pytest.mark.parametrize(
    ("cookie", "expected"),
    [
        (None, SYSTEM_IMPORT),
        ("system", SYSTEM_IMPORT),
        ("dark", DARK_IMPORT),
        ("light", ":root { color-scheme: light; }"),
        ("blue", SYSTEM_IMPORT),
        ("", SYSTEM_IMPORT),
        ("DARK", SYSTEM_IMPORT),
        ("dark; light", SYSTEM_IMPORT),
        ("<script>", SYSTEM_IMPORT),
    ],
)
def test_theme_stylesheet_follows_the_cookie(client, cookie, expected):
    if cookie is not None:
        client.cookies[THEME_COOKIE] = cookie
    response = client.get("/theme.css")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/css; charset=utf-8"
    assert response.content.decode().strip() == expected
    assert "Cookie" in response["Vary"]
    assert response["Cache-Control"] == "private, no-cache"
    assert "X-Page-Cache" not in response  # never stored in the shared full-page cache


def test_theme_stylesheet_answers_304_while_the_theme_is_unchanged(client):
    client.cookies[THEME_COOKIE] = "dark"
    etag = client.get("/theme.css")["ETag"]
    assert client.get("/theme.css", HTTP_IF_NONE_MATCH=etag).status_code == 304
    client.cookies[THEME_COOKIE] = "light"
    assert client.get("/theme.css", HTTP_IF_NONE_MATCH=etag).status_code == 200


@pytest.mark.parametrize("method", ["put", "delete", "patch"])
def test_theme_stylesheet_refuses_other_methods(client, method):
    assert getattr(client, method)("/theme.css").status_code == 405


@pytest.mark.parametrize("path", ["/", "/blog/", "/blog/gpu-costs/", "/blog/?page=2", "/search/?query=gpu"])
def test_page_html_is_the_same_in_every_theme(client, demo, path):
    pages = {}
    for theme in (None, "light", "dark"):
        client.cookies.pop(THEME_COOKIE, None)
        if theme:
            client.cookies[THEME_COOKIE] = theme
        pages[theme] = client.get(path).content
    assert pages[None] == pages["light"] == pages["dark"]
    assert b'<link rel="stylesheet" href="/theme.css" id="theme-stylesheet">' in pages[None]


def test_the_header_links_the_theme_chooser_with_the_way_back(client, demo):
    html = client.get("/blog/?page=2").content.decode()
    assert 'href="/theme/?next=/blog/%3Fpage%3D2" class="site-header__icon theme-toggle" data-theme-toggle' in html


def test_the_chooser_shows_the_current_theme(client, demo):
    client.cookies[THEME_COOKIE] = "dark"
    html = client.get("/theme/?next=/blog/").content.decode()
    assert 'value="dark"' in html and re.search(r'value="dark"[^>]*checked', html)
    assert 'name="next" value="/blog/"' in html


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_choosing_a_theme_sets_the_cookie_and_returns_to_the_page(client, theme):
    response = client.post("/theme/", {"theme": theme, "next": "/blog/gpu-costs/?page=2"})
    assert response.status_code == 303
    assert response["Location"] == "/blog/gpu-costs/?page=2"
    cookie = response.cookies[THEME_COOKIE]
    assert cookie.value == theme and cookie["samesite"] == "Lax" and int(cookie["max-age"]) > 30 * 24 * 3600


def test_choosing_the_device_theme_deletes_the_cookie(client):
    client.cookies[THEME_COOKIE] = "dark"
    response = client.post("/theme/", {"theme": "system", "next": "/blog/"})
    assert response.status_code == 303 and response.cookies[THEME_COOKIE]["max-age"] == 0


@pytest.mark.parametrize(
    "next_url",
    [
        "https://evil.example/",
        "//evil.example/",
        "javascript:alert(1)",
        "http://testserver.evil/",
        "",
        "\\\\evil.example",
    ],
)
def test_the_way_back_stays_on_this_site(client, next_url):
    response = client.post("/theme/", {"theme": "dark", "next": next_url})
    assert response.status_code == 303 and response["Location"] == "/"


@pytest.mark.parametrize(
    "data", [{"theme": "blue"}, {"theme": ""}, {}, {"theme": "dark" * 100}, {"theme": ["dark", "x"]}]
)
def test_an_unknown_theme_is_a_form_error_not_a_crash(client, demo, data):
    response = client.post("/theme/", data)
    assert response.status_code == 400
    assert 'class="form-error"' in response.content.decode()
    assert THEME_COOKIE not in response.cookies
