"""Issue 17's reader-page defects and themes, checked without a browser: the featured article
shown once with counts that match, page titles that name the brand once, "Updated" only when it
differs, the header's product Login, the dev server's own error pages, and the theme switch
that leaves the page HTML (and so the full-page cache) the same in both themes."""

import logging
import re
from datetime import timedelta
from html import unescape

from django.core.exceptions import ValidationError
from django.http import Http404
from django.test import RequestFactory, override_settings
from django.utils import timezone

import pytest

from home.models import SiteChromeSettings, validate_not_cms_admin
from home.templatetags.seo_tags import brand_title

from .factories import ArticlePageFactory

pytestmark = pytest.mark.django_db


def showing(html: str) -> str:
    match = re.search(r"Showing [^<]*", html)
    return " ".join(match.group(0).split()) if match else ""


def card_titles(html: str) -> list[str]:
    return [unescape(title) for title in re.findall(r'<h[23] class="card__title"><a href="[^"]+">([^<]+)</a>', html)]


def featured_title(html: str) -> str:
    return unescape(re.search(r'<h3 class="featured__title"><a href="[^"]+">([^<]+)</a>', html).group(1))


def title_of(html: str) -> str:
    return re.search(r"<title>(.*?)</title>", html, re.S).group(1)


# Featured article ----------------------------------------------------------------------------


def test_the_featured_article_is_shown_once_across_every_page_of_the_blog(client, demo):
    first = client.get("/blog/").content.decode()
    featured = featured_title(first)
    shown = [featured, *card_titles(first)]
    assert showing(first) == f"Showing {len(shown)} of {len(demo.articles)} posts"
    page, html = 1, first
    while 'rel="next"' in html:
        page += 1
        html = client.get(f"/blog/?page={page}").content.decode()
        cards = card_titles(html)
        start = len(shown) + 1
        shown += cards
        if start == len(shown):  # one card on the last page: "Showing post 98 of 98", not "98–98"
            assert showing(html) == f"Showing post {start} of {len(demo.articles)}"
        else:
            assert showing(html) == f"Showing {start}–{len(shown)} of {len(demo.articles)} posts"
        assert 'class="featured"' not in html
    assert sorted(shown) == sorted(article.title for article in demo.articles)  # each exactly once
    assert f"All posts · {len(demo.articles)}" in first


def test_a_topic_page_leaves_the_featured_article_out_of_its_cards_and_counts_it(client, demo):
    featured = demo.blog.get_featured_article()
    topic = featured.topics.first()
    html = client.get(topic.url).content.decode()
    in_topic = [article for article in demo.articles if topic in article.topics.all()]
    assert featured_title(html) == featured.title
    assert featured.title not in card_titles(html)
    assert showing(html) == f"Showing {len(card_titles(html)) + 1} of {len(in_topic)} post{'s' * (len(in_topic) != 1)}"


def test_a_topic_without_the_featured_article_counts_only_its_cards(client, demo):
    html = client.get("/blog/gpu-costs/").content.decode()
    assert showing(html) == "Showing 7 of 7 posts" and len(card_titles(html)) == 7


def test_an_editors_choice_of_featured_article_is_left_out_of_the_cards(client, demo):
    chosen = demo.articles[5]
    demo.blog.featured_article = chosen
    demo.blog.save_revision().publish()
    html = client.get("/blog/").content.decode()
    assert featured_title(html) == chosen.title
    assert chosen.title not in card_titles(html)
    assert demo.articles[0].title in card_titles(html)  # the newest is a card again


# Titles and dates ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "brand", "expected"),
    [
        ("How to choose a GPU", "cedana", "How to choose a GPU · cedana blog"),
        ("Cedana", "cedana", "Cedana"),
        ("Cedana blog: field reports", "cedana", "Cedana blog: field reports"),
        ("Why CEDANA checkpoints", "cedana", "Why CEDANA checkpoints"),
        ("", "cedana", "cedana blog"),
        ("   ", "cedana", "cedana blog"),
        ("Search", "", "Search · cedana blog"),
        ("Search", None, "Search · cedana blog"),
        ("Notes", "<b>acme</b>", "Notes · &lt;b&gt;acme&lt;/b&gt; blog"),
    ],
)
def test_brand_title_names_the_brand_once(title, brand, expected):
    assert brand_title(title, brand) == expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/", "Cedana"),
        ("/blog/", "Cedana blog: field reports &amp; engineering deep-dives"),
        ("/blog/gpu-costs/", "GPU costs · cedana blog"),
        ("/blog/?page=2", "Cedana blog: field reports &amp; engineering deep-dives (page 2)"),
        ("/search/?query=gpu", "Search: gpu · cedana blog"),
        ("/blog/no-such-page/", "Page not found · cedana blog"),
    ],
)
def test_page_titles_do_not_repeat_the_brand(client, demo, path, expected):
    html = client.get(path).content.decode()
    assert title_of(html) == expected
    assert title_of(html).lower().count("cedana") == 1


def test_updated_is_shown_only_when_it_differs_from_published(client, demo):
    same_day = ArticlePageFactory(parent=demo.blog, title="Published today")
    older = ArticlePageFactory(parent=demo.blog, title="Published last month")
    older.date_published = timezone.now() - timedelta(days=30)
    older.save_revision().publish()
    same = client.get(same_day.url).content.decode()
    assert "Published <time" in same and "Updated" not in same.split('class="article__byline"')[1].split("</p>")[0]
    byline = client.get(older.url).content.decode().split('class="article__byline"')[1].split("</p>")[0]
    assert "Published <time" in byline and "· Updated <time" in byline


def test_an_article_with_fewer_than_two_headings_has_no_contents_column(client, demo):
    article = ArticlePageFactory(parent=demo.blog, title="One heading")  # the factory's body: one h2
    html = client.get(article.url).content.decode()
    assert 'class="toc"' not in html and 'class="article__layout"' in html
    two = ArticlePageFactory(
        parent=demo.blog,
        title="Two headings",
        body=[{"type": "heading", "value": {"text": t, "level": "h2", "anchor": ""}} for t in ("One", "Two")],
    )
    assert 'class="article__layout article__layout--toc"' in client.get(two.url).content.decode()


# Header Login ----------------------------------------------------------------------------------


def test_header_login_goes_to_the_product_and_no_reader_page_links_the_admin(client, demo):
    html = client.get("/blog/").content.decode()
    header = html.split('<header class="site-header">')[1].split("</header>")[0]
    assert '<a href="https://app.cedana.ai/login" class="link-quiet">Login</a>' in header
    assert "/admin" not in header and "/admin" not in html.split('<footer class="site-footer">')[1]


def test_the_setting_default_is_the_product_login():
    assert SiteChromeSettings._meta.get_field("login_url").default == "https://app.cedana.ai/login"


@pytest.mark.parametrize("value", ["/admin/", "/admin", "/admin/pages/", "/admin/login/?next=/"])
def test_the_login_setting_refuses_the_cms_admin(value):
    with pytest.raises(ValidationError, match="product's login address"):
        validate_not_cms_admin(value)


@pytest.mark.parametrize(
    "value", ["https://app.cedana.ai/login", "/login/", "/administrators/", "https://x.io/admin/"]
)
def test_the_login_setting_accepts_product_addresses(value):
    validate_not_cms_admin(value)


def test_the_login_setting_form_reports_an_admin_address(demo):
    chrome = SiteChromeSettings.for_site(demo.home.get_site())
    chrome.login_url = "/admin/"
    with pytest.raises(ValidationError) as error:
        chrome.full_clean()
    assert "login_url" in error.value.message_dict


# The dev server's error pages ------------------------------------------------------------------


def dev_middleware() -> list[str]:
    from config.settings import dev

    return dev.MIDDLEWARE


def test_dev_settings_use_the_site_error_pages_innermost_but_for_axes():
    """Innermost, so that it sees the URL resolver's 404 before any other middleware answers,
    and its pages pass through the others as the handlers' do in production; django-axes stays
    last, as it requires (home/dev_error_pages.py)."""
    assert dev_middleware()[-2:] == ["home.dev_error_pages.SiteErrorPagesMiddleware", "axes.middleware.AxesMiddleware"]


def test_under_debug_a_missing_page_shows_the_sites_own_404(client, demo, caplog):
    with override_settings(DEBUG=True, MIDDLEWARE=dev_middleware()), caplog.at_level(logging.INFO, "django.request"):
        for path in ("/blog/no-such-page/", "/blog/gpu-costs/missing/", "/blog/?page=999", "/blog/?page=abc"):
            response = client.get(path)
            assert response.status_code == 404, path
            html = response.content.decode()
            assert "Page not found." in html and "technical_404" not in html and "URLconf" not in html, path
    assert any(
        "404 reason for /blog/?page" in r.getMessage() or "404 reason" in r.getMessage() for r in caplog.records
    )


@pytest.mark.parametrize("character", ["\x00", "\x1b", "\n", "\u202e"])
def test_under_debug_the_404_reason_is_logged_without_raw_control_characters(db, caplog, character):
    """The path and the reason are logged with ``%r``: a ``%00`` in a media URL wrote a NUL byte
    into the console log (found by the new-user pass)."""
    from home.dev_error_pages import SiteErrorPagesMiddleware

    middleware = SiteErrorPagesMiddleware(lambda request: None)
    request = RequestFactory().get(f"/media/a{character}b")
    with caplog.at_level(logging.INFO, "django.request"):
        response = middleware.process_exception(request, Http404(f'"/var/media/a{character}b" does not exist'))
    assert response.status_code == 404
    (reason,) = [r.getMessage() for r in caplog.records if r.getMessage().startswith("404 reason")]
    assert character not in reason and "a" in reason


def test_under_debug_a_crash_shows_the_sites_own_500_and_logs_the_traceback(caplog):
    from home.dev_error_pages import SiteErrorPagesMiddleware

    middleware = SiteErrorPagesMiddleware(lambda request: None)
    request = RequestFactory().get("/blog/broken/")
    for error in (RuntimeError("boom"), KeyError("missing"), ZeroDivisionError()):
        with caplog.at_level(logging.ERROR, "django.request"):
            response = middleware.process_exception(request, error)
        assert response.status_code == 500
        assert "Something went wrong." in response.content.decode()
        assert caplog.records[-1].exc_info[1] is error  # the traceback reaches the console
    assert middleware.process_exception(request, Http404("gone")).status_code == 404


def test_permission_and_bad_request_errors_are_left_to_django():
    from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation

    from home.dev_error_pages import SiteErrorPagesMiddleware

    middleware = SiteErrorPagesMiddleware(lambda request: None)
    request = RequestFactory().get("/")
    for error in (PermissionDenied(), BadRequest(), SuspiciousOperation()):
        assert middleware.process_exception(request, error) is None


# Screenshots ------------------------------------------------------------------------------------


def test_the_readme_shows_every_reader_page_at_both_widths_in_both_themes():
    """Issue 17's "done when": a screenshot of every reader page type that ``make screenshots``
    takes (docs/screenshots/capture_reader.py), at 390 and 1440 px, light and dark, is in
    docs/screenshots/ and linked from the README."""
    import importlib.util
    from pathlib import Path

    from django.conf import settings

    root = Path(settings.BASE_DIR)
    script = root / "docs" / "screenshots" / "capture_reader.py"
    spec = importlib.util.spec_from_file_location("capture_reader", script)
    capture = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(capture)
    assert capture.WIDTHS == {"phone": 390, "desktop": 1440}
    assert {"home", "index", "topic", "article", "author", "search", "404"} <= set(capture.PAGES)
    readme = (root / "README.md").read_text()
    for name in capture.PAGES:
        for device in capture.WIDTHS:
            for suffix in capture.THEMES.values():
                path = f"docs/screenshots/reader-{name}-{device}{suffix}.png"
                assert (root / path).stat().st_size > 5000, path
                assert f"]({path})" in readme, path
