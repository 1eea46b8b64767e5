"""Security headers: a strict CSP for readers, a relaxed one for the admin, and the rest."""

import re
from pathlib import Path

from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.urls import reverse

from wagtail.test.utils.form_data import inline_formset, nested_form_data

import pytest
from bs4 import BeautifulSoup

from config.security_headers import SiteCSPMiddleware

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


def csp(response) -> dict[str, list[str]]:
    """The Content-Security-Policy header as {directive: [sources]}."""
    policy = {}
    for part in response["Content-Security-Policy"].split(";"):
        name, *sources = part.split()
        policy[name] = sources
    return policy


@pytest.fixture
def public_urls(demo):
    article = demo.articles[0]
    return ["/", "/blog/", demo.topics["gpu-costs"].url, article.url, "/search/?query=gpu", "/no-such-page/"]


def test_readers_get_a_strict_policy(client, public_urls):
    for url in public_urls:
        response = client.get(url)
        assert response.status_code in {200, 404}, url
        policy = csp(response)
        assert policy["default-src"] == ["'self'"], url
        assert policy["script-src"] == ["'self'"], url  # no nonce unless a template asks for one
        assert policy["style-src"] == ["'self'"], url
        assert policy["object-src"] == ["'none'"]
        assert policy["base-uri"] == ["'self'"]
        assert policy["form-action"] == ["'self'"]
        assert policy["frame-ancestors"] == ["'none'"]
        assert set(policy["frame-src"]) == {
            "https://www.youtube.com",
            "https://www.youtube-nocookie.com",
            "https://player.vimeo.com",
        }
        for sources in policy.values():
            assert "'unsafe-inline'" not in sources and "'unsafe-eval'" not in sources, url


def test_readers_get_the_other_security_headers(client, public_urls):
    for url in public_urls:
        response = client.get(url)
        assert response["X-Content-Type-Options"] == "nosniff"
        assert response["Referrer-Policy"] == "strict-origin-when-cross-origin"
        assert response["X-Frame-Options"] == "DENY"
        assert response["Cross-Origin-Opener-Policy"] == "same-origin"
        permissions = dict(item.strip().split("=") for item in response["Permissions-Policy"].split(","))
        for feature in ("camera", "microphone", "geolocation", "payment", "usb"):
            assert permissions[feature] == "()", feature


def inline_code(html: str, nonce: str | None) -> list[str]:
    """Inline scripts (other than data blocks or nonced ones), <style> elements and style attributes."""
    soup = BeautifulSoup(html, "html.parser")
    found = []
    for script in soup.find_all("script"):
        is_data = script.get("type", "").lower() in {"application/json", "application/ld+json"}
        if not script.get("src") and not is_data and not (nonce and script.get("nonce") == nonce):
            found.append(str(script)[:80])
    found += [str(style)[:80] for style in soup.find_all("style")]
    found += [f"<{tag.name} style=...>" for tag in soup.find_all(style=True)]
    found += [f"<{tag.name} {name}=...>" for tag in soup.find_all(True) for name in tag.attrs if name.startswith("on")]
    return found


def test_public_pages_have_no_inline_script_or_style(client, public_urls):
    for url in public_urls:
        response = client.get(url)
        nonce = re.search(r"'nonce-([^']+)'", response["Content-Security-Policy"])
        assert inline_code(response.content.decode(), nonce and nonce.group(1)) == [], url


def test_templates_have_no_inline_script_or_style():
    offenders = []
    for template in TEMPLATES.rglob("*.html"):
        text = template.read_text()
        for match in re.finditer(r"<script\b[^>]*>", text):
            tag = match.group(0)
            if "src=" not in tag and "nonce=" not in tag and "application/ld+json" not in tag:
                offenders.append(f"{template.name}: {tag}")
        if re.search(r"<style\b|\sstyle=|\son[a-z]+=", text):
            offenders.append(f"{template.name}: inline style or event handler")
    assert offenders == []


def test_editors_signed_in_on_public_pages_load_the_user_bar_from_this_origin(client, demo, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("csp-ed", "c@example.com", "Csp-Editor-Pass-1"))
    response = client.get(demo.articles[0].url)
    html = response.content.decode()
    assert "wagtail-userbar" in html
    assert inline_code(html, None) == []
    for script in BeautifulSoup(html, "html.parser").find_all("script", src=True):
        assert script["src"].startswith(("/", "//testserver/")), script["src"]


def test_a_template_can_allow_one_inline_script_with_the_nonce():
    request = RequestFactory().get("/blog/")
    middleware = SiteCSPMiddleware(lambda req: HttpResponse(f'<script nonce="{req.csp_nonce}">1</script>'))
    middleware.process_request(request)
    response = middleware.process_response(request, middleware.get_response(request))
    nonce = re.search(r'nonce="([^"]+)"', response.content.decode()).group(1)
    assert f"'nonce-{nonce}'" in csp(response)["script-src"]
    assert len(nonce) >= 22  # 16 random bytes, base64


def test_the_admin_gets_its_relaxed_policy(client, django_user_model):
    login = client.get("/admin/login/")
    client.force_login(django_user_model.objects.create_superuser("csp-ad", "a@example.com", "Csp-Admin-Pass-12"))
    for response in (login, client.get("/admin/"), client.get("/admin/images/")):
        assert response.status_code == 200
        policy = csp(response)
        assert policy["frame-ancestors"] == ["'self'"]
        assert "'unsafe-inline'" in policy["script-src"] and "'unsafe-inline'" in policy["style-src"]
        assert policy["object-src"] == ["'none'"]
        assert policy["default-src"] == ["'self'"]
        assert not any("gravatar" in source for source in policy["img-src"])  # avatars are not fetched
        assert response["X-Frame-Options"] == "DENY"


def test_admin_preview_may_be_framed_by_the_admin(client, demo, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("csp-pv", "p@example.com", "Csp-Preview-Pass-1"))
    home = demo.home
    data = nested_form_data(
        {
            "title": home.title,
            "slug": home.slug,
            "hero_heading": "Preview heading",
            "hero_intro": "",
            "latest_count": 3,
            "comments": inline_formset([]),
        }
    )
    url = reverse("wagtailadmin_pages:preview_on_edit", args=[home.pk])
    assert client.post(url, data).json()["is_valid"] is True
    response = client.get(url)
    assert response.status_code == 200
    assert "Preview heading" in response.content.decode()
    assert response["X-Frame-Options"] == "SAMEORIGIN"
    policy = csp(response)
    assert policy["frame-ancestors"] == ["'self'"]
    # Otherwise the reader's strict policy: what editors preview is what readers get.
    assert policy["script-src"] == ["'self'"] and policy["style-src"] == ["'self'"]


def test_served_documents_keep_wagtails_own_sandboxing_policy(demo):
    from django.core.files.base import ContentFile

    from wagtail.documents import get_document_model

    document = get_document_model()(title="doc")
    document.file.save("doc.txt", ContentFile(b"hello"), save=False)
    document.save()
    response = Client().get(document.url)
    assert response["Content-Security-Policy"] == "default-src 'none'"
    response.close()
