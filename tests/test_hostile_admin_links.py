"""No setting shows readers a link into this site's CMS admin (docs/features.md: the admin "is
refused there and linked from no reader page"), in any spelling that leads there: relative or
absolute, on any of the site's hosts and any port, scheme-relative, with repeated slashes,
dot segments, percent-encoding, backslashes, another case or whitespace
(``home.links.points_at_cms_admin``, behind ``home.models.validate_not_cms_admin``).

The forms here are each one the first validator (a prefix check of ``/admin``) let through; the
plain ``/admin/`` forms are in tests/test_reader_design.py. They go through the admin's own
settings form, as an editor posts it."""

from django.urls import reverse

from wagtail.models import Site

import pytest
from bs4 import BeautifulSoup

from home.models import SiteChromeSettings, validate_not_cms_admin

pytestmark = pytest.mark.django_db

CHROME_FIELDS = ("brand_name", "brand_tagline", "login_label", "login_url", "demo_label", "demo_url", "footer_text")
# Every link field of the settings that carries the rule (found, not listed, so a new one is tested).
ADMIN_REFUSING_FIELDS = [
    field.name
    for field in SiteChromeSettings._meta.get_fields()
    if validate_not_cms_admin in getattr(field, "validators", [])
]
MESSAGE = "Enter the product's login address"

# The test settings' own hosts: the default Site (localhost), ALLOWED_HOSTS (testserver,
# localhost, 127.0.0.1) and WAGTAILADMIN_BASE_URL (http://127.0.0.1:8000), and loopback.
HOSTILE = [
    # The tester's three.
    "http://127.0.0.1:8000/admin/",
    "http://localhost:8000/admin/",
    "http://127.0.0.1:8000//admin/",
    # Any of the site's hosts, any scheme and port, with user information, query or fragment.
    "https://localhost/admin/",
    "http://testserver/admin/pages/",
    "https://127.0.0.1:8443/admin/login/?next=/",
    "http://user:secret@localhost:8000/admin/",
    "http://localhost/admin#top",
    "http://localhost:8000/admin",
    "HTTP://LOCALHOST:8000/admin/",
    "http://LocalHost./admin/",
    # Scheme-relative (validate_link refuses these as well).
    "//localhost/admin/",
    "//127.0.0.1:8000/admin/",
    # Repeated slashes and dot segments, plain and percent-encoded.
    "/.//admin/",  # sent as //admin/, which nginx's merge_slashes makes /admin/
    "/blog/..//admin/",
    "/./admin/",
    "/x/../admin/",
    "/blog/gpu-costs/../../admin/",
    "/%2e/admin/",
    "/x/%2E%2E/admin/",
    "/x/.%2e/admin/",
    "/../admin/",
    "http://localhost:8000/x/../admin/",
    "http://localhost:8000/blog//../admin/",
    # Percent-encoded letters and slashes (the server decodes them), once or twice.
    "/%61dmin/",
    "/%61%64%6d%69%6e/",
    "/admin%2F",
    "/admin%2fpages%2f",
    "/%2561dmin/",
    "http://127.0.0.1:8000/%61dmin/",
    # Another case.
    "/ADMIN/",
    "/Admin/pages/",
    "/%41DMIN/",
    # Backslashes, read as "/" by browsers.
    "\\admin\\",
    "/admin\\pages\\",
    "http://localhost:8000\\admin\\",
    # Whitespace and control characters, which browsers strip or remove.
    "/ad\tmin/",
    "/adm\nin/",
    "/admin\r\n/",
    "http://local\thost:8000/admin/",
    # Loopback and unspecified addresses in every form browsers accept.
    "http://127.0.0.2:8000/admin/",
    "http://127.1:8000/admin/",
    "http://2130706433/admin/",
    "http://0x7f000001/admin/",
    "http://0x7f.0.0.1/admin/",
    "http://0177.0.0.1/admin/",
    "http://0.0.0.0:8000/admin/",
    "http://0/admin/",
    "http://[::1]:8000/admin/",
    "http://[0:0:0:0:0:0:0:1]/admin/",
    "http://[::ffff:127.0.0.1]/admin/",
    "http://[::]:8000/admin/",
    "http://app.localhost:8000/admin/",
    "http://%6cocalhost:8000/admin/",
    "http://ｌｏｃａｌｈｏｓｔ:8000/admin/",  # full-width letters, mapped by IDNA
    "http://127。0。0。1:8000/admin/",  # ideographic full stops
]

# Addresses that are not this site's admin: a product's login, another host's /admin/, site
# paths that only start like it, the admin only in a query.
PRODUCT_ADDRESSES = [
    "https://app.example.com/login",
    "https://app.cedana.ai/login?next=/admin/",
    "https://app.example.com/admin/",
    "https://login.example.com:8443/sso#admin",
    "http://localhost.example.com/admin/",
    "http://127.0.0.1.example.com/admin/",
    "/login/",
    "/administrators/",
    "/blog/admin/",
    "http://localhost:8000/blog/",
]


def post_chrome(admin_client, site, **changes):
    chrome = SiteChromeSettings.for_site(site)
    data = {name: getattr(chrome, name) for name in CHROME_FIELDS} | changes
    return admin_client.post(reverse("wagtailsettings:edit", args=("home", "sitechromesettings", site.pk)), data)


def page_text(response) -> str:
    return BeautifulSoup(response.content, "html.parser").get_text()


def header_and_footer_links(client, path: str) -> list[str]:
    page = BeautifulSoup(client.get(path).content, "html.parser")
    return [link["href"] for part in page.select(".site-header, .site-footer") for link in part.select("a[href]")]


def test_the_login_link_is_the_field_that_refuses_the_admin():
    assert ADMIN_REFUSING_FIELDS == ["login_url"]


@pytest.mark.parametrize("field", ADMIN_REFUSING_FIELDS)
@pytest.mark.parametrize("url", HOSTILE)
def test_the_settings_form_refuses_every_spelling_of_this_sites_admin(admin_client, client, demo, field, url):
    site = Site.objects.get(is_default_site=True)
    before = getattr(SiteChromeSettings.objects.get(site=site), field)
    response = post_chrome(admin_client, site, **{field: url})
    assert response.status_code == 200, url  # the form again, with its error
    assert getattr(SiteChromeSettings.objects.get(site=site), field) == before
    assert MESSAGE in page_text(response), url
    for path in ("/", "/blog/", demo.articles[0].url):
        assert "admin" not in " ".join(header_and_footer_links(client, path)).lower(), path


def test_every_host_of_this_site_counts(admin_client, client, demo, settings, forget_sites_afterwards):
    """Wagtail sites' hostnames, the hosts of WAGTAILADMIN_BASE_URL and WAGTAIL_SITE_ROOT_URL,
    ALLOWED_HOSTS entries (a domain pattern covering its subdomains; ``*`` names no host)."""
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "blog.example.com", ".example.org", "*"]
    settings.WAGTAILADMIN_BASE_URL = "https://cms.example.net"
    settings.WAGTAIL_SITE_ROOT_URL = "https://www.example.net:8443"
    Site.objects.create(hostname="Other.Example.IO", port=443, root_page=demo.home)
    site = Site.objects.get(is_default_site=True)
    refused = [
        "https://blog.example.com/admin/",
        "https://BLOG.example.com.:8443/admin/pages/",
        "https://example.org/admin/",
        "https://staff.example.org/admin/",
        "https://cms.example.net/admin/",
        "//cms.example.net/admin/",
        "https://www.example.net:8443/admin/",
        "https://www.example.net/%61dmin/",
        "https://other.example.io/admin/",
        "http://other.example.io:8000/x/../admin",
    ]
    for url in refused:
        response = post_chrome(admin_client, site, login_url=url)
        assert response.status_code == 200 and MESSAGE in page_text(response), url
    for url in ("https://example.com/admin/", "https://example.org.evil.test/admin/", "https://net/admin/"):
        assert post_chrome(admin_client, site, login_url=url).status_code == 302, url
        assert SiteChromeSettings.objects.get(site=site).login_url == url


@pytest.mark.parametrize("url", PRODUCT_ADDRESSES)
def test_a_product_login_address_is_still_saved_and_shown(admin_client, client, demo, url):
    """Unchanged behaviour kept: these passed the first validator and must pass this one."""
    site = Site.objects.get(is_default_site=True)
    assert post_chrome(admin_client, site, login_url=url).status_code == 302, url
    assert SiteChromeSettings.objects.get(site=site).login_url == url
    assert url in header_and_footer_links(client, "/blog/")
