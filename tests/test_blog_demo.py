"""``load_demo`` builds the seed's site and is idempotent: the captured articles unchanged plus
our own, 98 in all, with the captures' counts and paging ("All posts · 98", "Showing 7 of 7
posts", "Showing 12 of 22 posts"); its drawings are cached on disk and renditions are left to
the first reader in the test settings."""

import io
import json
import logging
import re
from datetime import datetime
from pathlib import Path

from django.core.cache import caches
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils.html import escape

from wagtail.models import Page, Revision, Site

import pytest

from blog.demo import illustration_cache, illustrations
from blog.demo.management.commands.load_demo import DEFAULT_FIXTURE, demo_logins_file
from blog.forms import FIELD_LIMITS
from blog.models import ArticlePage, Author, BlogIndexPage, TopicPage
from home.models import HomePage, SiteImage, SiteRendition

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).resolve().parent.parent / "blog" / "demo" / "fixtures" / "demo_content.json"
SEEDS = Path(__file__).resolve().parent / "seeds"  # copies of the captured pages (shared/seeds/)
FIXTURE_DATA = json.loads(FIXTURE.read_text())
CAPTURED = [entry for entry in FIXTURE_DATA["articles"] if entry.get("captured")]
OURS = [entry for entry in FIXTURE_DATA["articles"] if not entry.get("captured")]
# A seed card: description, byline, title, summary, "read →" (tests/seeds/README.md).
SEED_CARD = re.compile(r"^(Cedana\. Blueprint of .+)\n· Cedana Editorial\n\n(.+)\n\n(.+)\n\nread →", re.MULTILINE)


def seed_cards(name: str) -> list[tuple[str, str, str]]:
    """``(description, title, summary)`` of each card on a seed page, in the page's order."""
    return SEED_CARD.findall((SEEDS / name).read_text())


def showing(html: str) -> str:
    match = re.search(r"Showing [^<]*", html)
    return " ".join(match.group(0).split()) if match else ""


def card_titles(html: str) -> list[str]:
    return re.findall(r'<h[23] class="card__title"><a href="[^"]+">([^<]+)</a>', html)


def counts():
    return (Page.objects.count(), Revision.objects.count(), SiteImage.objects.count(), Author.objects.count())


def test_demo_builds_the_seed_site(demo):
    site = Site.objects.get(is_default_site=True)
    assert site.root_page.specific_class is HomePage
    assert BlogIndexPage.objects.get().url == "/blog/"
    assert {t.slug: t.articles.live().count() for t in TopicPage.objects.all()} == {
        "engineering": 69,
        "gpu-costs": 7,
        "inference-performance": 22,
    }
    assert ArticlePage.objects.live().count() == 98
    assert Author.objects.count() == 7
    assert demo.blog.featured_article.title.startswith("The Era of Stateful Inference")
    editorial = Author.objects.get(slug="cedana-editorial")
    captured = {entry["slug"] for entry in CAPTURED}
    assert all(editorial in article.authors.all() for article in demo.articles if article.slug in captured)


def test_every_article_has_a_drawn_card_image_with_the_seed_alt_text(demo):
    alt_texts = {entry["slug"]: entry["image"]["alt_text"] for entry in json.loads(FIXTURE.read_text())["articles"]}
    assert max(len(text) for text in alt_texts.values()) > 255  # longer than an image description column
    for article in demo.articles:
        assert article.image is not None
        assert article.image.width == 1200 and article.image.height == 675
        assert article.card_alt_text == alt_texts[article.slug]
        assert article.image.description == alt_texts[article.slug]


def test_fixture_facts_come_from_the_seed_pages():
    """Every card of both captures is a captured article, unchanged; nothing else is marked so."""
    cards = seed_cards("blog-topic-gpu-costs.txt") + seed_cards("blog-topic-inference-performance.txt")
    assert len(cards) == 7 + 12
    by_title = {entry["title"]: entry for entry in CAPTURED}
    for description, title, summary in cards:
        entry = by_title[title]
        assert (entry["summary"], entry["image"]["alt_text"], entry["authors"]) == (
            summary,
            description,
            ["cedana-editorial"],
        )
    for name, topic in (
        ("blog-topic-gpu-costs.txt", "gpu-costs"),
        ("blog-topic-inference-performance.txt", "inference-performance"),
    ):
        newest_first = sorted((e for e in CAPTURED if topic in e["topics"]), key=lambda e: e["first_published_at"])[
            ::-1
        ]
        assert [title for _d, title, _s in seed_cards(name)] == [e["title"] for e in newest_first]
    featured = [entry for entry in CAPTURED if entry.get("featured")]
    assert len(featured) == 1 and featured[0]["title"].startswith("The Era of Stateful Inference")
    assert len(CAPTURED) == len(cards) + 1


def test_our_articles_are_our_own_and_each_one_different():
    """The 78 articles beyond the captures: titles, summaries and drawings not taken from the
    seed, each drawing its own, with a real body (sections, and code, tables or quotes)."""
    seed_text = "".join(path.read_text() for path in SEEDS.glob("*.txt"))
    assert len(OURS) == 98 - len(CAPTURED)
    every = FIXTURE_DATA["articles"]
    for field in ("slug", "title", "summary"):
        assert len({entry[field] for entry in every}) == len(every), field
    assert len({entry["image"]["alt_text"] for entry in every}) == len(every)
    for entry in OURS:
        alt_text, body = entry["image"]["alt_text"], entry["body"]
        assert entry["title"] not in seed_text and alt_text not in seed_text, entry["slug"]
        assert alt_text.startswith("Cedana. Blueprint of ") and len(alt_text) > 150, entry["slug"]
        kinds = [block["type"] for block in body]
        assert kinds.count("heading") >= 2 and kinds.count("paragraph") >= 2, entry["slug"]
        assert {"code", "table", "quote"} & set(kinds), entry["slug"]
        words = sum(len(re.sub(r"<[^>]+>", " ", json.dumps(block["value"])).split()) for block in body)
        assert words > 300, (entry["slug"], words)
    # Spread out: several authors, no two articles on one day, two years of writing.
    assert len({author for entry in OURS for author in entry["authors"]}) >= 6
    dates = [datetime.fromisoformat(entry["first_published_at"].replace("Z", "+00:00")) for entry in every]
    assert len({date.date() for date in dates}) == len(dates)
    assert (max(dates) - min(dates)).days > 700
    motifs = {illustrations.choose_motif(entry["image"]["alt_text"]) for entry in OURS}
    assert len(motifs) >= 12


def test_the_captured_articles_are_the_newest_of_their_topics():
    """Ours are older than every captured article in the two captured topics, so the topic pages'
    first pages show the captured cards in the captured order."""
    for topic in ("gpu-costs", "inference-performance"):
        captured = [e["first_published_at"] for e in CAPTURED if topic in e["topics"]]
        ours = [e["first_published_at"] for e in OURS if topic in e["topics"]]
        assert not ours or max(ours) < min(captured), topic


@pytest.mark.parametrize(
    ("topic", "count"),
    [("gpu-costs", 7), ("inference-performance", 22)],
)
def test_topic_pages_show_the_captured_cards_counts_and_paging(client, demo, topic, count):
    url = f"/blog/{topic}/"
    html = client.get(url).content.decode()
    assert "All posts · 98" in html
    assert showing(html) == f"Showing {min(count, 12)} of {count} posts"
    # The captured cards, newest first (the seed's order: test_fixture_facts_come_from_the_seed_pages).
    captured = sorted((e for e in CAPTURED if topic in e["topics"]), key=lambda e: e["first_published_at"])
    assert card_titles(html) == [escape(entry["title"]) for entry in reversed(captured)]
    if count <= 12:
        assert 'rel="next"' not in html and "Load more" not in html
        return
    assert '<a href="?page=2" rel="next" class="button">Load more</a>' in html
    second = client.get(url, {"page": 2}).content.decode()
    assert showing(second) == f"Showing 13–{count} of {count} posts"
    assert len(card_titles(second)) == count - 12
    assert set(card_titles(second)).isdisjoint(card_titles(html))
    assert "Load more" not in second and 'href="?page=1" rel="prev"' in second
    assert client.get(url, {"page": 3}).status_code == 404


def test_blog_index_counts_98_and_loads_more_to_the_last_page(client, demo):
    """Pages 1, 2, 8 and 9 of 9 (the others would only make renditions for more cards): the
    featured article and 12 cards on page 1, then 12 cards a page; the featured article is not
    a card too, so 97 cards in all (tests/test_reader_design.py)."""
    featured = demo.blog.get_featured_article()
    cards = [article for article in ArticlePage.objects.for_listing() if article.pk != featured.pk]
    assert len(cards) == 97
    for number in (1, 2, 8, 9):
        html = client.get("/blog/", {"page": number}).content.decode()
        assert "All posts · 98" in html
        first, last = 12 * (number - 1), min(12 * number, 97)  # a slice of the cards
        expected = {1: "Showing 13 of 98 posts", 9: "Showing post 98 of 98"}.get(  # page 9: one card
            number, f"Showing {first + 2}–{last + 1} of 98 posts"
        )
        assert showing(html) == expected
        assert ("Load more" in html) is (number < 9)
        if number < 9:
            assert f'<a href="?page={number + 1}" rel="next" class="button">Load more</a>' in html
        assert card_titles(html) == [escape(article.title) for article in cards[first:last]]
    assert client.get("/blog/", {"page": 10}).status_code == 404


def test_every_demo_body_is_valid_and_renders(demo):
    """Each article's body passes the editor's validation (block limits, code languages, links)
    and renders; the article pages themselves are in tests/test_blog_articles.py."""
    stream_block = ArticlePage.body.field.stream_block
    for article in ArticlePage.objects.all():
        stream_block.clean(article.body)
        html = str(article.body)
        assert html.count("<h2") >= 2 and "<p>" in html, article.slug


def test_the_illustration_cache_draws_each_drawing_once(tmp_path, monkeypatch):
    drawn = []
    real = illustrations.render_png
    monkeypatch.setattr(illustrations, "render_png", lambda *a, **k: drawn.append(a) or real(*a, **k))
    args = {"seed": "a-slug", "size": (320, 180)}
    first = illustration_cache.cached_png("Cedana. Blueprint of a ring of six circles.", folder=tmp_path, **args)
    again = illustration_cache.cached_png("Cedana. Blueprint of a ring of six circles.", folder=tmp_path, **args)
    assert first == again == real("Cedana. Blueprint of a ring of six circles.", **args)
    assert len(drawn) == 1 and len(list(tmp_path.iterdir())) == 1
    # Each input that changes the pixels is a new file: description, seed and size.
    illustration_cache.cached_png("Cedana. Blueprint of a ring of seven circles.", folder=tmp_path, **args)
    illustration_cache.cached_png(
        "Cedana. Blueprint of a ring of six circles.", folder=tmp_path, seed="b", size=(320, 180)
    )
    illustration_cache.cached_png(
        "Cedana. Blueprint of a ring of six circles.", folder=tmp_path, seed="a-slug", size=(400, 225)
    )
    assert len(drawn) == 4 and len(list(tmp_path.glob("*.png"))) == 4


def test_the_illustration_cache_key_follows_the_drawing_code(monkeypatch):
    key = illustration_cache.cache_key("A drawing.", "seed", (320, 180))
    illustration_cache.drawing_code_digest.cache_clear()
    monkeypatch.setattr(illustration_cache.PIL, "__version__", "0.0.1")
    try:
        assert illustration_cache.cache_key("A drawing.", "seed", (320, 180)) != key
    finally:
        illustration_cache.drawing_code_digest.cache_clear()


@pytest.mark.parametrize(
    "damage",
    [b"", b"\x89PNG\r\n\x1a\n", b"not a png at all", b"\x00" * 64, "truncated", "directory"],
)
def test_a_damaged_cache_file_is_drawn_again(tmp_path, damage):
    args = {"seed": "s", "size": (160, 90)}
    good = illustration_cache.cached_png("Cedana. Blueprint of a vessel.", folder=tmp_path, **args)
    (path,) = tmp_path.glob("*.png")
    path.unlink()
    if damage == "directory":
        path.mkdir()
    else:
        path.write_bytes(good[: len(good) // 2] if damage == "truncated" else damage)
    assert illustration_cache.cached_png("Cedana. Blueprint of a vessel.", folder=tmp_path, **args) == good


def test_an_unwritable_cache_only_costs_the_drawing(tmp_path, caplog):
    blocked = tmp_path / "a-file-not-a-folder"
    blocked.write_text("")
    with caplog.at_level(logging.WARNING, logger="blog.demo.illustration_cache"):
        png = illustration_cache.cached_png("Cedana. Blueprint of a tree.", folder=blocked, seed="s", size=(160, 90))
    assert png.startswith(illustration_cache.PNG_SIGNATURE)
    assert "not written" in caplog.text


@pytest.mark.parametrize(
    ("configured", "expected"),
    [("", None), ("/srv/demo-drawings", Path("/srv/demo-drawings")), ("~/drawings", Path.home() / "drawings")],
)
def test_the_cache_folder_follows_the_setting(settings, configured, expected):
    settings.DEMO_ILLUSTRATION_CACHE = configured
    assert illustration_cache.cache_dir() == expected


def test_the_cache_folder_defaults_to_the_users_cache(settings, monkeypatch, tmp_path):
    settings.DEMO_ILLUSTRATION_CACHE = None
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert illustration_cache.cache_dir() == tmp_path / "cedana-blog" / "illustrations"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert illustration_cache.cache_dir() == Path.home() / ".cache" / "cedana-blog" / "illustrations"


def test_the_test_settings_leave_renditions_to_the_first_reader(client, demo, django_capture_on_commit_callbacks):
    """Publishing makes no renditions here; a reader page makes its own. (The suite's prepared
    database holds the demo's renditions, tests/demo_database.py: this test starts without.)"""
    SiteRendition.objects.all().delete()  # the rows come back with the rollback; files stay
    caches["renditions"].clear()  # Wagtail's rendition cache outlives earlier tests' rollbacks
    article = demo.articles[0]
    with django_capture_on_commit_callbacks(execute=True):
        article.save_revision().publish()
    assert not SiteRendition.objects.exists()
    response = client.get(article.url)
    assert response.status_code == 200
    made = SiteRendition.objects.filter(image=article.image)
    assert made.exists()
    assert all(
        rendition.url in response.content.decode() for rendition in made if "1200x630" not in rendition.filter_spec
    )


def publish_with_renditions_on(settings, article, capture_on_commit_callbacks):
    """Publish ``article`` with ``BLOG_RENDITIONS_ON_PUBLISH`` on, its card image's renditions
    deleted first (the prepared database holds them already: tests/demo_database.py)."""
    settings.BLOG_RENDITIONS_ON_PUBLISH = True
    SiteRendition.objects.filter(image=article.image).delete()
    caches["renditions"].clear()
    with capture_on_commit_callbacks(execute=True):
        article.save_revision().publish()


def test_renditions_on_publish_when_the_setting_is_on(settings, demo, django_capture_on_commit_callbacks):
    from blog.renditions import ARTICLE_RENDITION_SPECS

    article = demo.articles[1]
    publish_with_renditions_on(settings, article, django_capture_on_commit_callbacks)
    made = set(SiteRendition.objects.filter(image=article.image).values_list("filter_spec", flat=True))
    assert made == set(ARTICLE_RENDITION_SPECS)


def test_the_api_shows_renditions_that_publishing_made(settings, client, demo, django_capture_on_commit_callbacks):
    """The API's image fields ask for specs that publishing makes: the first API request after a
    publish makes no rendition (a spec of its own cost 0.15 s an article, 3.9 s for 20)."""
    article = demo.articles[2]
    publish_with_renditions_on(settings, article, django_capture_on_commit_callbacks)
    made = SiteRendition.objects.filter(image=article.image).count()
    response = client.get(f"/api/v2/pages/{article.pk}/")
    assert response.status_code == 200
    assert response.json()["image_card"]["url"].endswith(".fill-800x450.format-webp.webp")
    assert SiteRendition.objects.filter(image=article.image).count() == made


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


def test_make_run_keeps_what_was_edited_and_follows_the_address_it_serves(demo, settings, django_user_model):
    """``make run`` loads the demo with ``--keep-content``: on a database that has it, a published
    edit of an article, an author, a topic, the site settings and a deleted login survive (they
    were all put back on every start), and the Site still moves to the address served."""
    from home.models import SiteChromeSettings

    article, topic = demo.articles[3], demo.topics["gpu-costs"]
    article.title = "Corrected title by an editor"
    article.save_revision().publish()
    draft = demo.articles[4]
    draft.summary = "A draft of a new summary."
    draft.save_revision()
    topic.intro = "Edited intro."
    topic.save_revision().publish()
    author = Author.objects.order_by("pk").first()
    author.role = "Edited role"
    author.save()
    site = Site.objects.get(is_default_site=True)
    chrome = SiteChromeSettings.for_site(site)
    chrome.brand_tagline = "Edited tagline"
    chrome.save()
    django_user_model.objects.create_user("editor", password="a-long-test-password")
    django_user_model.objects.filter(username="editor").delete()  # a demo login deleted on purpose
    settings.WAGTAIL_SITE_ROOT_URL = "http://127.0.0.1:8123"  # make run PORT=8123
    revisions = Revision.objects.count()

    out = io.StringIO()
    call_command("load_demo", "--keep-content", "--users", stdout=out)

    assert "already loaded" in out.getvalue() and "1 change" in out.getvalue()
    assert "user: editor" not in out.getvalue()
    assert not django_user_model.objects.filter(username="editor").exists()
    assert Revision.objects.count() == revisions
    article.refresh_from_db()
    assert article.title == "Corrected title by an editor" and article.live
    assert (
        ArticlePage.objects.get(pk=draft.pk).get_latest_revision().as_object().summary == "A draft of a new summary."
    )
    assert TopicPage.objects.get(pk=topic.pk).intro == "Edited intro."
    assert Author.objects.get(pk=author.pk).role == "Edited role"
    assert SiteChromeSettings.for_site(site).brand_tagline == "Edited tagline"
    site.refresh_from_db()
    assert (site.hostname, site.port) == ("127.0.0.1", 8123)


def test_keep_content_loads_the_demo_where_there_is_none(demo, tmp_path):
    """The first ``make run``: no home page yet, so ``--keep-content`` loads the demo (here a
    fixture of one article, to keep the test short)."""
    fixture = json.loads(DEFAULT_FIXTURE.read_text())
    fixture["articles"] = fixture["articles"][:1]
    small = tmp_path / "demo.json"
    small.write_text(json.dumps(fixture))
    demo.home.delete()
    out = io.StringIO()
    call_command("load_demo", "--keep-content", "--no-users", "--fixture", str(small), stdout=out)
    assert "Demo content loaded: 1 articles" in out.getvalue()
    assert list(ArticlePage.objects.live().values_list("slug", flat=True)) == [fixture["articles"][0]["slug"]]


def test_load_demo_redraws_a_changed_drawing_and_drops_its_old_renditions(demo):
    """After the drawing code changes (issue 17 darkened the labels), ``load_demo`` replaces the
    image's file; its renditions of the old drawing go too, as Wagtail's image edit view does."""
    article = demo.articles[0]
    image = article.image
    image.get_rendition("width-400")
    SiteImage.objects.filter(pk=image.pk).update(file_hash="an older drawing")
    call_command("load_demo", "--no-users", stdout=io.StringIO())
    image.refresh_from_db()
    assert image.file_hash != "an older drawing"
    assert not SiteRendition.objects.filter(image=image).exists()


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
    assert "Demo logins at http://127.0.0.1:8110/admin/ (kept in " in first
    stored = json.loads(demo_logins_file().read_text())
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
    assert json.loads(demo_logins_file().read_text()) == stored


def test_make_runs_sqlite_database_keeps_its_logins_in_var_demo_logins_json(tmp_path, settings, monkeypatch):
    settings.BASE_DIR = tmp_path
    monkeypatch.setitem(connection.settings_dict, "NAME", str(tmp_path / "var" / "db.sqlite3"))
    monkeypatch.setattr(connection, "vendor", "sqlite")
    assert demo_logins_file() == tmp_path / "var" / "demo-logins.json"


def test_each_database_keeps_its_own_demo_logins(tmp_path, settings, monkeypatch, django_user_model):
    """Loading the demo into a second database (e.g. PostgreSQL after SQLite) writes that
    database's passwords beside the first's, never over them."""
    settings.BASE_DIR = tmp_path
    call_command("load_demo", "--users", stdout=io.StringIO())
    first_file = demo_logins_file()
    first = json.loads(first_file.read_text())
    # Another database: same settings, another name, none of the demo users yet.
    django_user_model.objects.filter(username__in=first).delete()
    monkeypatch.setitem(connection.settings_dict, "NAME", f"{connection.settings_dict['NAME']}-second")
    out = io.StringIO()
    call_command("load_demo", "--users", stdout=out)
    second_file = demo_logins_file()
    second = json.loads(second_file.read_text())
    assert second_file != first_file
    assert json.loads(first_file.read_text()) == first
    assert set(second) == set(first) and second != first
    assert second["editor"] in out.getvalue() and str(second_file) in out.getvalue()
    assert django_user_model.objects.get(username="editor").check_password(second["editor"])


@pytest.mark.parametrize(
    "root_url",
    ["127.0.0.1:8000", "ftp://127.0.0.1", "http://", "http://127.0.0.1:99999", "https://x.example:8443", "http://h/x"],
)
def test_load_demo_checks_its_settings_before_writing_anything(settings, demo, root_url):
    settings.WAGTAIL_SITE_ROOT_URL = root_url
    HomePage.objects.update(title="Edited home")  # load_demo would restore the fixture's title
    with CaptureQueriesContext(connection) as queries, pytest.raises(CommandError, match="WAGTAIL_SITE_ROOT_URL"):
        call_command("load_demo", "--no-users", stdout=io.StringIO())
    writes = [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))]
    assert writes == [], root_url
    assert HomePage.objects.get().title == "Edited home"


def test_every_demo_article_fits_the_editors_field_limits(demo):
    """An editor who opens a demo article can save it as it is (the seed's longest summary is 176)."""
    for article in ArticlePage.objects.all():
        for field, (limit, _help) in FIELD_LIMITS.items():
            value = getattr(article, field) or ""
            assert len(value) <= limit, (article.slug, field, len(value))


def test_the_prepared_database_holds_the_admin_thumbnails(admin_client, demo, monkeypatch):
    """tests/demo_database.py makes the thumbnails Wagtail's image library and chooser show, so
    an admin test listing images makes no rendition (each one would, after each rollback)."""
    from wagtail.images.models import AbstractImage

    made = []
    original = AbstractImage.generate_rendition_file

    def generate(image, filter, **kwargs):
        made.append((image.pk, filter.spec))
        return original(image, filter, **kwargs)

    monkeypatch.setattr(AbstractImage, "generate_rendition_file", generate)
    for url in ("/admin/images/", "/admin/images/chooser/", "/admin/images/?p=2"):
        assert admin_client.get(url).status_code == 200, url
    assert made == []
