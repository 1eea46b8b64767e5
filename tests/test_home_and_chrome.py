"""Home page, site chrome from site settings, error pages and the admin."""

import re

from wagtail.models import Site

import pytest

from home.models import SiteChromeSettings

pytestmark = pytest.mark.django_db


def test_home_page_leads_into_the_blog(client, demo):
    html = client.get("/").content.decode()
    assert demo.home.hero_heading in html
    assert 'href="/blog/"' in html
    assert html.count('class="card"') == demo.home.latest_count
    assert demo.articles[0].title in html


def test_site_chrome_comes_from_site_settings(client, demo):
    chrome = SiteChromeSettings.for_site(Site.objects.get(is_default_site=True))
    chrome.demo_label = "Book a call"
    chrome.demo_url = "https://example.com/call"
    chrome.save()
    html = client.get("/blog/").content.decode()
    assert '<a href="https://example.com/call" class="button button--compact">Book a call</a>' in html


def test_site_settings_reject_javascript_links(demo):
    chrome = SiteChromeSettings.for_site(Site.objects.get(is_default_site=True))
    chrome.login_url = "javascript:alert(1)"
    with pytest.raises(Exception, match="site path"):
        chrome.full_clean()


def test_unknown_url_gives_the_styled_404(client, demo):
    response = client.get("/blog/no-such-article/")
    assert response.status_code == 404
    assert "Page not found." in response.content.decode()


def test_500_page_needs_no_database(django_assert_num_queries):
    from django.template.loader import render_to_string

    with django_assert_num_queries(0):
        html = render_to_string("500.html")
    assert "Something went wrong." in html


def test_admin_login_page_loads(client):
    assert client.get("/admin/login/").status_code == 200


def test_admin_editor_opens_for_an_article(admin_client, demo):
    article = demo.articles[0]
    response = admin_client.get(f"/admin/pages/{article.pk}/edit/")
    assert response.status_code == 200
    assert article.title in response.content.decode()


def test_pages_link_the_icon_and_favicon_ico_redirects_to_it(client, demo):
    from django.contrib.staticfiles import finders

    html = client.get("/").content.decode()
    icon = re.search(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">', html).group(1)
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"] == icon
    assert finders.find("img/favicon.svg")
    assert client.post("/favicon.ico").status_code == 405
