"""``manage.py load_demo``: build the demo site from ``blog/demo/fixtures/demo_content.json``."""

import hashlib
import json
import re
import secrets
from argparse import BooleanOptionalAction
from datetime import datetime
from io import BytesIO
from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.files.images import ImageFile
from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.utils.text import Truncator

from wagtail.images import get_image_model
from wagtail.models import Page, Site

from blog.demo.illustration_cache import cached_png
from blog.forms import SEARCH_DESCRIPTION_MAX_LENGTH
from blog.models import ArticlePage, Author, BlogIndexPage, TopicPage
from blog.roles import EDITORS, MODERATORS, ensure_editorial_roles
from home.models import HomePage, SiteChromeSettings

DEFAULT_FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "demo_content.json"
CARD_IMAGE_SIZE = (1200, 675)  # 16:9, the largest card/hero rendition the templates ask for
BODY_IMAGE_SIZE = (1200, 600)


def site_host_and_port(root_url: str) -> tuple[str, int]:
    """``("127.0.0.1", 8000)`` from ``"http://127.0.0.1:8000"``: a Wagtail Site's hostname and
    port for a root URL. Without a port: 80 for http, 443 for https (Wagtail's ``Site.root_url``
    turns 443 back into https). Raises CommandError for anything but ``scheme://host[:port]``.
    """
    try:
        parts = urlsplit(root_url)
        port = parts.port
    except ValueError as error:
        raise CommandError(f"WAGTAIL_SITE_ROOT_URL {root_url!r}: {error}") from error
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path.strip("/") or parts.query:
        raise CommandError(f"WAGTAIL_SITE_ROOT_URL must look like http://127.0.0.1:8000 (got {root_url!r}).")
    if parts.scheme == "https" and port not in (None, 443):
        raise CommandError("WAGTAIL_SITE_ROOT_URL: Wagtail serves https URLs on port 443 only.")
    return parts.hostname, port or (443 if parts.scheme == "https" else 80)


def demo_logins_file(using: str = DEFAULT_DB_ALIAS) -> Path:
    """Where the demo logins of database ``using`` are kept: ``var/demo-logins.json`` for the
    default SQLite database (``var/db.sqlite3``), else ``var/demo-logins-<vendor>-<name>-<hash>.json``,
    the hash of its engine, host, port and name. One file per database, because the passwords
    are those of that database's users: a load on PostgreSQL must not overwrite the SQLite ones."""
    connection = connections[using]
    database = connection.settings_dict
    var = Path(settings.BASE_DIR) / "var"
    name = str(database["NAME"])
    if connection.vendor == "sqlite" and Path(name).resolve() == (var / "db.sqlite3").resolve():
        return var / "demo-logins.json"
    identity = f"{connection.vendor}:{database.get('HOST') or ''}:{database.get('PORT') or ''}:{name}"
    readable = re.sub(r"[^A-Za-z0-9_]+", "-", Path(name).stem).strip("-") or "db"
    digest = hashlib.sha256(identity.encode()).hexdigest()[:8]
    return var / f"demo-logins-{connection.vendor}-{readable}-{digest}.json"


def parse_datetime(value: str) -> datetime:
    """Parse the fixture's ISO 8601 UTC timestamps ("2026-11-24T09:00:00Z")."""
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


class Command(BaseCommand):
    help = (
        "Load the demo blog (home page, blog index, topics, authors, 98 articles with drawn card "
        "images) from a JSON fixture. Idempotent: a second run changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("--fixture", type=Path, default=DEFAULT_FIXTURE, help="Path to the JSON fixture.")
        parser.add_argument(
            "--users",
            action=BooleanOptionalAction,
            default=None,
            help="Create the demo admin, editor and moderator logins (default: only when DEBUG is on).",
        )
        parser.add_argument(
            "--keep-content",
            action="store_true",
            help="Where the demo is already loaded (the site has its home page), change no page, snippet, "
            "setting or login: only the default Site's address follows WAGTAIL_SITE_ROOT_URL. make run uses "
            "it, so what you edit survives a restart; without it every demo field is put back.",
        )

    def handle(self, *args, fixture: Path, users: bool | None, keep_content: bool, **options):
        try:
            data = json.loads(fixture.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as error:
            raise CommandError(f"Cannot read fixture {fixture}: {error}") from error

        # Every setting is checked before anything is written (a bad address used to fail
        # half-way, after the home page was made).
        site_address = site_host_and_port(settings.WAGTAIL_SITE_ROOT_URL)
        self.changes = 0
        root = Page.get_first_root_node()
        if keep_content and root is not None and HomePage.objects.child_of(root).exists():
            # make run on a database it loaded before: an editor's changes are not put back.
            with transaction.atomic():
                self.ensure_site_address(site_address)
            self.stdout.write(
                "The demo is already loaded: its pages, snippets, settings and logins are left as they are "
                f"({self.changes} change{'s' if self.changes != 1 else ''} to the site's address). "
                "manage.py load_demo without --keep-content puts the demo content back."
            )
            if users if users is not None else settings.DEBUG:
                self.ensure_demo_users(create=False)
            return
        with transaction.atomic():
            home = self.ensure_home(data["home"])
            self.ensure_site(home, data["site"], site_address)
            blog_index = self.ensure_page(home, BlogIndexPage, data["blog_index"])
            authors = {entry["key"]: self.ensure_author(entry) for entry in data["authors"]}
            topics = {entry["slug"]: self.ensure_page(blog_index, TopicPage, {**entry}) for entry in data["topics"]}
            featured = None
            for entry in data["articles"]:
                article = self.ensure_article(blog_index, entry, topics, authors)
                if entry.get("featured"):
                    featured = article
            if featured is not None and blog_index.featured_article_id != featured.pk:
                blog_index.featured_article = featured
                self.publish(blog_index)
            self.changes += ensure_editorial_roles([blog_index])

        self.stdout.write(
            self.style.SUCCESS(
                f"Demo content loaded: {len(data['articles'])} articles, {len(topics)} topics; "
                f"{self.changes} change{'s' if self.changes != 1 else ''}."
            )
        )
        if users if users is not None else settings.DEBUG:
            self.ensure_demo_users()

    # Pages ------------------------------------------------------------------------------

    def publish(self, page, dates: dict | None = None):
        """Save a revision of ``page``, publish it, then pin the fixture's dates if given."""
        revision = page.save_revision(log_action=True)
        revision.publish()
        if dates:
            Page.objects.filter(pk=page.pk).update(**dates)
            for name, value in dates.items():
                setattr(page, name, value)
        self.changes += 1

    def ensure_home(self, fields: dict) -> HomePage:
        """The site root's HomePage, replacing Wagtail's default welcome page if still there."""
        root = Page.get_first_root_node()
        home = HomePage.objects.child_of(root).first()
        if home is None:
            for welcome in Page.objects.child_of(root).filter(content_type__model="page", numchild=0):
                welcome.delete()
            home = HomePage(**fields)
            root.add_child(instance=home)
            self.publish(home)
            return home
        return self.update_page(home, fields)

    def ensure_site_address(self, address: tuple[str, int]):
        """The default Site at ``address`` (``site_host_and_port``), nothing else changed; none if
        there is no default Site (then the pages are not the demo's to place)."""
        hostname, port = address
        site = Site.objects.filter(is_default_site=True).first()
        if site is not None and (site.hostname, site.port) != (hostname, port):
            site.hostname, site.port = hostname, port
            site.save()
            self.changes += 1

    def ensure_site(self, home: HomePage, site_data: dict, address: tuple[str, int]):
        """The default Site: rooted at ``home``, named from the fixture, and at ``address``, the
        host and port of ``settings.WAGTAIL_SITE_ROOT_URL`` (see ``site_host_and_port``)."""
        hostname, port = address
        site = Site.objects.filter(is_default_site=True).first()
        if site is None:
            site = Site(is_default_site=True)
        wanted = {"root_page_id": home.pk, "site_name": site_data["site_name"], "hostname": hostname, "port": port}
        if any(getattr(site, key) != value for key, value in wanted.items()):
            for key, value in wanted.items():
                setattr(site, key, value)
            site.save()
            self.changes += 1
        chrome = SiteChromeSettings.for_site(site)
        if any(getattr(chrome, key) != value for key, value in site_data["chrome"].items()):
            for key, value in site_data["chrome"].items():
                setattr(chrome, key, value)
            chrome.save()
            self.changes += 1

    def ensure_page(self, parent, model, fields: dict):
        fields = dict(fields)
        existing = model.objects.child_of(parent).filter(slug=fields["slug"]).first()
        if existing is None:
            page = model(**fields)
            parent.add_child(instance=page)
            self.publish(page)
            return page
        return self.update_page(existing, fields)

    def update_page(self, page, fields: dict, m2m: dict | None = None, dates: dict | None = None):
        """Publish a new revision only when a live field differs from the fixture.

        Editors' drafts are left alone when the live page already matches.
        """
        differs = any(getattr(page, name) != value for name, value in fields.items())
        if m2m:
            differs |= any(
                {obj.pk for obj in getattr(page, name).all()} != {obj.pk for obj in values}
                for name, values in m2m.items()
            )
        if not differs:
            return page
        for name, value in fields.items():
            setattr(page, name, value)
        for name, values in (m2m or {}).items():
            getattr(page, name).set(values)
        self.publish(page, dates)
        return page

    # Articles -----------------------------------------------------------------------------

    def ensure_article(self, blog_index, entry: dict, topics: dict, authors: dict) -> ArticlePage:
        try:
            article_topics = [topics[slug] for slug in entry["topics"]]
            article_authors = [authors[key] for key in entry["authors"]]
        except KeyError as error:
            raise CommandError(f"Article {entry['slug']!r} names an unknown topic or author: {error}") from error
        published = parse_datetime(entry["first_published_at"])
        image = self.ensure_image(entry["title"], entry["image"]["alt_text"], entry["slug"], CARD_IMAGE_SIZE)
        body_block = ArticlePage.body.field.stream_block
        body = normalise_stream(body_block, self.resolve_body_images(entry))
        fields = {
            "title": entry["title"],
            "slug": entry["slug"],
            "summary": entry["summary"],
            "image": image,
            # The page's own alt text holds the seed's description for the card; the library
            # image's description holds it too, cut to the column's size if ever needed.
            "image_alt": entry["image"]["alt_text"],
            "date_published": published,
            # The meta description; the seed pages describe themselves with the summary, cut at a
            # word to the editor form's limit so every demo article can be saved as it loads.
            "search_description": entry.get("search_description")
            or Truncator(entry["summary"]).chars(SEARCH_DESCRIPTION_MAX_LENGTH),
        }
        m2m = {"topics": article_topics, "authors": article_authors}
        dates = {"first_published_at": published, "last_published_at": published}

        existing = ArticlePage.objects.child_of(blog_index).filter(slug=entry["slug"]).first()
        if existing is None:
            page = ArticlePage(**fields, body=body)
            page.topics = article_topics
            page.authors = article_authors
            blog_index.add_child(instance=page)
            self.publish(page, dates)
            return page
        same_body = normalise_stream(body_block, existing.body.raw_data) == body
        page = self.update_page(existing, {**fields, **({} if same_body else {"body": body})}, m2m, dates)
        return page

    def resolve_body_images(self, entry: dict) -> list[dict]:
        """Replace each fixture image block's ``illustration`` with a drawn library image."""
        blocks = []
        for number, block in enumerate(entry["body"], start=1):
            if block["type"] == "image" and "illustration" in block["value"]:
                value = block["value"]
                image = self.ensure_image(
                    f"{entry['title']} (figure {number})",
                    value["illustration"],
                    f"{entry['slug']}-figure-{number}",
                    BODY_IMAGE_SIZE,
                )
                block = {
                    "type": "image",
                    "value": {
                        "image": image.pk,
                        "alt_text": value["illustration"],
                        "caption": value.get("caption", ""),
                    },
                }
            blocks.append(block)
        return blocks

    def ensure_image(self, title: str, description: str, seed: str, size: tuple[int, int]):
        """A library image drawn by ``illustrations.render_png`` (through the on-disk cache of
        ``illustration_cache``); reused while its pixels and text match."""
        image_model = get_image_model()
        # Cut texts to their columns' sizes (PostgreSQL refuses longer values; SQLite does not check).
        title = Truncator(title).chars(image_model._meta.get_field("title").max_length)
        png = cached_png(description, seed=seed, size=size)
        existing = image_model.objects.filter(title=title).first()
        digest = hashlib.sha1(png, usedforsecurity=False).hexdigest()
        short_description = Truncator(description).chars(image_model._meta.get_field("description").max_length)
        if existing is not None and existing.file_hash == digest and existing.description == short_description:
            return existing
        image = existing or image_model(title=title)
        image.description = short_description
        redrawn = existing is not None and existing.file_hash != digest
        if existing is None or redrawn:
            image.file = ImageFile(BytesIO(png), name=f"{seed}.png")
            image.file_size = len(png)
            image.file_hash = digest
            image.width, image.height = size
        image.save()
        if redrawn:  # as Wagtail's image edit view does when a file is replaced: no stale renditions
            image.renditions.all().delete()
        self.changes += 1
        return image

    # Authors and users ----------------------------------------------------------------------

    def ensure_author(self, entry: dict) -> Author:
        fields = {key: entry[key] for key in ("name", "role", "bio")}
        author = Author.objects.filter(slug=entry["slug"]).first()
        if author is None:
            self.changes += 1
            return Author.objects.create(slug=entry["slug"], **fields)
        if any(getattr(author, key) != value for key, value in fields.items()):
            for key, value in fields.items():
                setattr(author, key, value)
            author.save()
            self.changes += 1
        return author

    def ensure_demo_users(self, create: bool = True):
        """Create the dev logins once, with random passwords kept in the database's logins file
        (``demo_logins_file``: ``var/demo-logins.json`` for ``make run``'s SQLite database), and
        print them; ``create=False`` prints those that exist and makes none (a login deleted on
        purpose stays deleted).

        ``admin`` is a superuser; ``editor`` is in the Editors group and ``moderator`` in the
        Moderators group (see ``blog.roles``). Existing users keep their passwords.
        """
        logins_file = demo_logins_file()
        logins = json.loads(logins_file.read_text()) if logins_file.exists() else {}
        user_model = get_user_model()
        accounts = [
            ("admin", "Site administrator", None),
            ("editor", "Demo editor", EDITORS),
            ("moderator", "Demo moderator", MODERATORS),
        ]
        created = False
        existing = set(
            user_model.objects.filter(username__in=[account[0] for account in accounts]).values_list(
                "username", flat=True
            )
        )
        for username, full_name, group_name in accounts:
            if username in existing or not create:
                continue
            existing.add(username)
            password = secrets.token_urlsafe(12)
            first_name, last_name = full_name.split(" ", 1)
            email = f"{username}@example.com"
            if group_name is None:
                user = user_model.objects.create_superuser(username, email, password)
            else:
                user = user_model.objects.create_user(username, email, password)
                user.groups.add(Group.objects.get(name=group_name))
            user.first_name, user.last_name = first_name, last_name
            user.save(update_fields=["first_name", "last_name"])
            logins[username] = password
            created = True
        if created:
            logins_file.parent.mkdir(parents=True, exist_ok=True)
            logins_file.write_text(json.dumps(logins, indent=2))
            logins_file.chmod(0o600)
        self.stdout.write(
            f"Demo logins at {settings.WAGTAIL_SITE_ROOT_URL.rstrip('/')}/admin/ (kept in {logins_file}):"
        )
        for username, full_name, _group in accounts:
            if username not in existing:
                continue
            password = logins.get(username, f"(unchanged; reset with: manage.py changepassword {username})")
            self.stdout.write(f"  {full_name.split()[1]:<13}  user: {username:<9}  password: {password}")


def normalise_stream(stream_block, raw: list[dict]) -> list[dict]:
    """Raw StreamField data in its stored shape, without block ids, for comparisons."""
    value = stream_block.to_python([{"type": b["type"], "value": b["value"]} for b in raw])
    return [{"type": b["type"], "value": b["value"]} for b in stream_block.get_prep_value(value)]
