"""Content the fault runs watch (``benchmarks/faults.py`` calls this with the stack's environment).

``python benchmarks/faults_state.py prepare`` makes a draft article with two revisions, an
article to schedule, a live article to expire, two articles whose scheduled revisions will fail
(one live, one draft under a second blog index), a moderator with an e-mail address, an
uploaded image and a document, and prints their ids as JSON.
``snapshot IDS_JSON`` prints what must survive every fault: row counts, each revision of the
draft with a SHA-256 of its content, whether the draft is live, and a SHA-256 of every media file.
``schedule PAGE_ID SECONDS`` schedules that page's latest revision to go live SECONDS from now
(Wagtail's approved go-live, as a moderator's "publish" with a future go-live time does).
``schedule_failing PAGE_ID SECONDS`` schedules a revision of that (live) page for SECONDS from
now whose slug another article already has, so it cannot be published when it is due.
``schedule_orphaned PAGE_ID SECONDS`` schedules the (draft) page's latest revision for SECONDS
from now, then unpublishes its parent, so it cannot be published when it is due.
``expire PAGE_ID SECONDS`` sets the (live) page's expiry SECONDS from now.
``status PAGE_ID`` prints whether the page is live or expired, its URL, whether a revision of it
is still scheduled and the scheduler's recorded failure for it ("" if none).
``dashboard`` prints which pages the dashboard panel "Scheduled changes that could not be
published" links to, as the moderator sees ``/admin/`` (Django's test client in this process;
run with ``STAFF_MFA_REQUIRED=false``, since the moderator has no authenticator app).

Each command prints one JSON object on its last line.
"""

import hashlib
import io
import json
import os
import re
import sys
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.contrib.auth.models import Group  # noqa: E402
from django.core.files.base import ContentFile  # noqa: E402
from django.core.files.images import ImageFile  # noqa: E402
from django.test import Client  # noqa: E402
from django.utils import timezone  # noqa: E402

from wagtail.documents import get_document_model  # noqa: E402
from wagtail.images import get_image_model  # noqa: E402
from wagtail.models import Page, Revision  # noqa: E402

from PIL import Image as PILImage  # noqa: E402

from blog.models import ArticlePage, BlogIndexPage  # noqa: E402
from home.operations.models import ScheduledPublishFailure  # noqa: E402

MODERATOR = {"username": "fault-run-moderator", "email": "moderator@faults.invalid"}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def prepare() -> dict:
    """Create the draft (two revisions), the article to schedule, an image and a document."""
    source = ArticlePage.objects.live().order_by("path").first()
    parent = source.get_parent()
    draft = source.copy(
        to=parent, update_attrs={"title": "Fault-run draft", "slug": "fault-run-draft"}, keep_live=False
    )
    draft = draft.specific
    draft.summary = "First draft written before the faults."
    draft.save_revision()
    draft.summary = "Second draft written before the faults: this text must survive them."
    draft.save_revision()
    scheduled = source.copy(
        to=parent, update_attrs={"title": "Fault-run scheduled", "slug": "fault-run-scheduled"}, keep_live=False
    )
    buffer = io.BytesIO()
    PILImage.new("RGB", (1600, 900), (30, 90, 160)).save(buffer, "PNG")
    image = get_image_model().objects.create(
        title="Fault-run image",
        description="A blue rectangle uploaded before the faults.",
        file=ImageFile(io.BytesIO(buffer.getvalue()), name="fault-run.png"),
    )
    document = get_document_model().objects.create(
        title="Fault-run document", file=ContentFile(b"Notes that must survive.\n" * 100, name="fault-run.txt")
    )
    # Live (with a live revision), so scheduling a change leaves its page row as it is.
    failing = source.copy(
        to=parent, update_attrs={"title": "Fault-run failing", "slug": "fault-run-failing"}, keep_live=True
    )
    expiring = source.copy(
        to=parent, update_attrs={"title": "Fault-run expiring", "slug": "fault-run-expiring"}, keep_live=True
    )
    # A second blog index (live for now) holding a draft whose scheduled go-live will find it unpublished.
    archive = BlogIndexPage(title="Fault-run archive", slug="fault-run-archive")
    parent.get_parent().add_child(instance=archive)
    archive.save_revision().publish()
    orphaned = source.copy(
        to=archive, update_attrs={"title": "Fault-run orphaned", "slug": "fault-run-orphaned"}, keep_live=False
    )
    moderator = get_user_model().objects.create_user(**MODERATOR, password=None)
    moderator.groups.add(Group.objects.get(name="Moderators"))
    return {
        "draft": draft.pk,
        "scheduled": scheduled.pk,
        "failing": failing.pk,
        "orphaned": orphaned.pk,
        "expiring": expiring.pk,
        "image": image.pk,
        "document": document.pk,
    }


def snapshot(ids: dict) -> dict:
    """What must be the same after every fault (see the module docstring)."""
    draft = Page.objects.get(pk=ids["draft"])
    revisions = {
        str(revision.pk): _sha(json.dumps(revision.content, sort_keys=True).encode())
        for revision in Revision.page_revisions.filter(object_id=str(draft.pk)).order_by("pk")
    }
    media = {}
    for path in sorted(Path(settings.MEDIA_ROOT).rglob("*")):
        if path.is_file() and path.parts[-2] in ("original_images", "documents"):
            media[str(path.relative_to(settings.MEDIA_ROOT))] = _sha(path.read_bytes())
    return {
        "pages": Page.objects.count(),
        "images": get_image_model().objects.count(),
        "documents": get_document_model().objects.count(),
        "draft_live": draft.live,
        "draft_latest_summary": draft.get_latest_revision_as_object().summary,
        "draft_revisions": revisions,
        "media": media,
        "image_file": get_image_model().objects.get(pk=ids["image"]).file.name,
        "document_file": get_document_model().objects.get(pk=ids["document"]).file.name,
    }


def schedule(page_id: int, seconds: int) -> dict:
    """Approve the page's latest content to go live ``seconds`` from now; it stays a draft until then."""
    page = Page.objects.get(pk=page_id).specific
    page.go_live_at = timezone.now() + timedelta(seconds=seconds)
    revision = page.save_revision()
    revision.publish()
    page.refresh_from_db()
    return {"live": page.live, "go_live_at": page.go_live_at.isoformat()}


def schedule_failing(page_id: int, seconds: int) -> dict:
    """Schedule a revision of the page whose slug a sibling has (as if taken meanwhile: saved
    unvalidated, since the editor's form would refuse it today)."""
    page = Page.objects.get(pk=page_id).specific
    page.go_live_at = timezone.now() + timedelta(seconds=seconds)
    page.slug = page.get_siblings(inclusive=False).exclude(slug="").first().slug
    page.save_revision(clean=False).publish()
    return {"slug": page.slug, "go_live_at": page.go_live_at.isoformat()}


def schedule_orphaned(page_id: int, seconds: int) -> dict:
    """Approve the (draft) page's content to go live ``seconds`` from now, then unpublish its
    parent, as an editor taking a section offline meanwhile would."""
    result = schedule(page_id, seconds)
    Page.objects.get(pk=page_id).get_parent().specific.unpublish()
    return {**result, "parent_live": Page.objects.get(pk=page_id).get_parent().live}


def expire(page_id: int, seconds: int) -> dict:
    """Set the (live) page's expiry ``seconds`` from now, published at once (the page stays live)."""
    page = Page.objects.get(pk=page_id).specific
    page.expire_at = timezone.now() + timedelta(seconds=seconds)
    page.save_revision().publish()
    page.refresh_from_db()
    return {"live": page.live, "expire_at": page.expire_at.isoformat()}


def dashboard() -> dict:
    """The moderator's dashboard: HTTP status, whether the failures panel is on it and the ids
    of the pages it links to the editor of."""
    client = Client(HTTP_HOST=settings.ALLOWED_HOSTS[0])
    client.force_login(get_user_model().objects.get(username=MODERATOR["username"]))
    response = client.get("/admin/")
    html = response.content.decode()
    panel = html.partition('id="scheduled-publish-failures-section"')[2].partition("</section>")[0]
    return {
        "status": response.status_code,
        "panel": bool(panel),
        "linked_pages": sorted(int(pk) for pk in re.findall(r'href="/admin/pages/(\d+)/edit/"', panel)),
    }


def status(page_id: int) -> dict:
    page = Page.objects.get(pk=page_id)
    failure = ScheduledPublishFailure.objects.filter(revision__object_id=str(page_id)).first()
    return {
        "title": page.title,
        "live": page.live,
        "expired": page.expired,
        "url": page.url,
        "slug": page.slug,
        "scheduled": page.revisions.filter(approved_go_live_at__isnull=False).exists(),
        "failure": failure.error if failure else "",
    }


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "prepare":
        result = prepare()
    elif command == "snapshot":
        result = snapshot(json.loads(args[0]))
    elif command == "schedule":
        result = schedule(int(args[0]), int(args[1]))
    elif command == "schedule_failing":
        result = schedule_failing(int(args[0]), int(args[1]))
    elif command == "schedule_orphaned":
        result = schedule_orphaned(int(args[0]), int(args[1]))
    elif command == "expire":
        result = expire(int(args[0]), int(args[1]))
    elif command == "dashboard":
        result = dashboard()
    elif command == "status":
        result = status(int(args[0]))
    else:
        sys.exit(f"unknown command {command!r}")
    print(json.dumps(result))
