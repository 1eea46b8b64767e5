"""``load_demo`` builds the seed's site and is idempotent."""

import io
import json
from pathlib import Path

from django.core.management import CommandError, call_command

from wagtail.models import Page, Revision, Site

import pytest

from blog.forms import FIELD_LIMITS
from blog.models import ArticlePage, Author, BlogIndexPage, TopicPage
from home.models import HomePage, SiteImage

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).resolve().parent.parent / "blog" / "demo" / "fixtures" / "demo_content.json"
SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"


def counts():
    return (Page.objects.count(), Revision.objects.count(), SiteImage.objects.count(), Author.objects.count())


def test_demo_builds_the_seed_site(demo):
    site = Site.objects.get(is_default_site=True)
    assert site.root_page.specific_class is HomePage
    assert BlogIndexPage.objects.get().url == "/blog/"
    assert {t.slug: t.articles.live().count() for t in TopicPage.objects.all()} == {
        "engineering": 1,
        "gpu-costs": 7,
        "inference-performance": 12,
    }
    assert ArticlePage.objects.live().count() == 20
    assert Author.objects.get().name == "Cedana Editorial"
    assert demo.blog.featured_article.title.startswith("The Era of Stateful Inference")


def test_every_article_has_a_drawn_card_image_with_the_seed_alt_text(demo):
    alt_texts = {entry["slug"]: entry["image"]["alt_text"] for entry in json.loads(FIXTURE.read_text())["articles"]}
    assert max(len(text) for text in alt_texts.values()) > 255  # longer than an image description column
    for article in demo.articles:
        assert article.image is not None
        assert article.image.width == 1200 and article.image.height == 675
        assert article.card_alt_text == alt_texts[article.slug]
        assert article.image.description == alt_texts[article.slug]


def test_fixture_facts_come_from_the_seed_pages():
    if not SEEDS.exists():
        pytest.skip("shared/seeds is not beside this checkout")
    seed_text = "".join(path.read_text() for path in SEEDS.glob("*.txt"))
    data = json.loads(FIXTURE.read_text())
    for article in data["articles"]:
        assert article["title"] in seed_text
        assert article["summary"] in seed_text
        assert article["image"]["alt_text"] in seed_text


def test_newest_first_order_follows_the_seeds(demo):
    gpu = [a.title for a in ArticlePage.objects.for_listing().filter(topics__slug="gpu-costs")]
    assert gpu[0] == "Cost per token and revenue per megawatt are the same number"
    assert gpu[1] == "Tasks per dollar: the economics of running your own coding models"


def test_load_demo_twice_changes_nothing(demo):
    before = counts()
    live_revisions = {a.pk: a.live_revision_id for a in ArticlePage.objects.all()}
    out = io.StringIO()
    call_command("load_demo", "--no-users", stdout=out)
    assert "0 changes" in out.getvalue()
    assert counts() == before
    assert {a.pk: a.live_revision_id for a in ArticlePage.objects.all()} == live_revisions


def test_load_demo_restores_an_edited_field_and_leaves_the_rest(demo):
    article = demo.articles[3]
    article.summary = "Edited by hand."
    article.save_revision().publish()
    out = io.StringIO()
    call_command("load_demo", "--no-users", stdout=out)
    assert "1 change" in out.getvalue()
    article.refresh_from_db()
    assert article.summary != "Edited by hand."


def test_load_demo_reports_a_broken_fixture(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(CommandError, match="Cannot read fixture"):
        call_command("load_demo", "--fixture", str(broken), "--no-users", stdout=io.StringIO())


def test_load_demo_creates_the_demo_logins_once(tmp_path, settings, django_user_model):
    settings.BASE_DIR = tmp_path
    settings.WAGTAIL_SITE_ROOT_URL = "http://127.0.0.1:8110"  # e.g. make run PORT=8110
    out = io.StringIO()
    call_command("load_demo", "--users", stdout=out)
    first = out.getvalue()
    assert "Demo logins at http://127.0.0.1:8110/admin/ :" in first
    stored = json.loads((tmp_path / "var" / "demo-logins.json").read_text())
    assert set(stored) == {"admin", "editor", "moderator"}
    for username in stored:
        assert f"user: {username}" in first and stored[username] in first
        assert django_user_model.objects.get(username=username).check_password(stored[username])
    assert django_user_model.objects.get(username="admin").is_superuser
    assert list(django_user_model.objects.get(username="editor").groups.values_list("name", flat=True)) == ["Editors"]
    assert list(django_user_model.objects.get(username="moderator").groups.values_list("name", flat=True)) == [
        "Moderators"
    ]
    out = io.StringIO()
    call_command("load_demo", "--users", stdout=out)
    assert stored["editor"] in out.getvalue()
    assert json.loads((tmp_path / "var" / "demo-logins.json").read_text()) == stored


def test_every_demo_article_fits_the_editors_field_limits(demo):
    """An editor who opens a demo article can save it as it is (the seed's longest summary is 176)."""
    for article in ArticlePage.objects.all():
        for field, (limit, _help) in FIELD_LIMITS.items():
            value = getattr(article, field) or ""
            assert len(value) <= limit, (article.slug, field, len(value))
