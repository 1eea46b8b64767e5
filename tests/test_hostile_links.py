"""Every "same-site" link field refuses scheme-relative links in all the spellings browsers read
as another host (issue 15, "Links to other hosts"): one validator, ``home.links.validate_link``,
on the call-to-action block, rich text links and the header and footer settings."""

from django.core.exceptions import ValidationError
from django.urls import reverse

from wagtail.models import Site

import pytest

from blog.blocks import CallToActionBlock
from home.links import is_other_host_path, validate_link
from home.models import SiteChromeSettings
from home.rich_text_safety import remove_active_content

from .admin_forms import article_form_data
from .test_blog_admin_hostile_body import draftail

SECTION = ("heading", {"text": "Setting the scene", "level": "h2", "anchor": ""})
CHROME_FIELDS = ("brand_name", "brand_tagline", "login_label", "login_url", "demo_label", "demo_url", "footer_text")

# Every spelling a browser resolves to evil.example (WHATWG URL: tab/LF/CR removed anywhere,
# leading C0 controls and spaces stripped, "\" read as "/").
OTHER_HOST = [
    "//evil.example",
    "//evil.example/path",
    "/\\evil.example",
    "\\/evil.example",
    "\\\\evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r\n/evil.example",
    "\t//evil.example",
    " //evil.example",
    "\x01//evil.example",
    "/\\\tevil.example",
    "//\tevil.example",
    "///evil.example",
    "/\\/evil.example",
    "//evil.example:443/@x",
]
# Other refusals: other schemes and what is not a link.
NOT_LINKS = ["javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:text/html,x", "evil.example", "ftp://x", "about"]
SAME_SITE = ["/", "/blog/", "/blog/?q=a//b", "/a/\\b", "/blog/a//b", "#costs", "https://cedana.ai/"]
SAME_SITE += ["HTTP://x.example", "https://example.com//x", "mailto:a@b.c", "tel:+441234"]


@pytest.mark.parametrize("url", OTHER_HOST)
def test_scheme_relative_spellings_are_refused(url):
    assert is_other_host_path(url)
    with pytest.raises(ValidationError):
        validate_link(url)


@pytest.mark.parametrize("url", NOT_LINKS)
def test_other_schemes_are_refused(url):
    with pytest.raises(ValidationError):
        validate_link(url)


@pytest.mark.parametrize("url", SAME_SITE)
def test_site_paths_and_full_addresses_are_accepted(url):
    validate_link(url)
    assert not is_other_host_path(url)


@pytest.mark.parametrize("url", OTHER_HOST)
def test_call_to_action_refuses_and_blanks_other_hosts(url):
    block = CallToActionBlock()
    value = {"heading": "Talk to us", "text": "", "label": "Book", "url": url}
    typed = block.to_python({**value, "url": "/ok/"})
    typed["url"] = url  # as the form posts it
    with pytest.raises(ValidationError):
        block.clean(typed)
    assert block.to_python(value)["url"] == ""  # stored data that skipped the form


@pytest.mark.parametrize("url", OTHER_HOST)
def test_stored_rich_text_loses_an_other_host_href(url):
    html = f'<p><a href="{url}">x</a> <a href="/blog/">y</a></p>'
    cleaned = remove_active_content(html)
    assert "evil.example" not in cleaned
    assert 'href="/blog/"' in cleaned


@pytest.mark.django_db
@pytest.mark.parametrize("url", OTHER_HOST[:8] + NOT_LINKS[3:])
def test_rich_text_link_to_another_host_is_a_form_error(client, demo, editor, url):
    article = demo.articles[3]
    client.force_login(editor)
    body = [SECTION, ("paragraph", draftail({"url": url}))]
    response = client.post(
        reverse("wagtailadmin_pages:edit", args=(article.pk,)), article_form_data(article.slug, body=body)
    )
    assert response.status_code == 200, url
    html = response.content.decode()
    assert "The page could not be saved due to validation errors" in html
    assert "Enter a site path starting with" in html or "control characters" in html, url


@pytest.mark.django_db
def test_rich_text_link_to_a_site_path_or_full_address_saves(client, demo, editor):
    article = demo.articles[3]
    client.force_login(editor)
    body = [SECTION]
    body += [("paragraph", draftail({"url": url})) for url in ("/blog/", "https://cedana.ai/", "#costs")]
    response = client.post(
        reverse("wagtailadmin_pages:edit", args=(article.pk,)), article_form_data(article.slug, body=body)
    )
    assert response.status_code == 302, response.content.decode()[:2000]


@pytest.mark.django_db
@pytest.mark.parametrize("field", ["login_url", "demo_url"])
@pytest.mark.parametrize("url", OTHER_HOST[:6])
def test_header_and_footer_links_refuse_other_hosts(admin_client, field, url):
    site = Site.objects.get(is_default_site=True)
    settings = SiteChromeSettings.for_site(site)
    data = {name: getattr(settings, name) for name in CHROME_FIELDS}
    data[field] = url
    edit_url = reverse("wagtailsettings:edit", args=("home", "sitechromesettings", site.pk))
    response = admin_client.post(edit_url, data)
    assert response.status_code == 200, url
    assert getattr(SiteChromeSettings.objects.get(site=site), field) != url
    assert "another website" in response.content.decode() or "control characters" in response.content.decode()
