"""Give the demo site some editorial work in progress for the editor-guide screenshots.

Run on a throwaway database after ``load_demo``: ``python manage.py shell < docs/screenshots/seed_editorial_state.py``.
Creates the users "mona" (Moderators) and "eddie" (Editors), drafts, a review, scheduled and
stale articles, then prints a session key for "mona" that ``capture.py`` uses.
"""

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.sessions.backends.db import SessionStore
from django.utils import timezone

from wagtail.models import Workflow

from blog.models import ArticlePage, Author, BlogIndexPage, TopicPage

User = get_user_model()
now = timezone.now()
blog = BlogIndexPage.objects.get()
topics = list(TopicPage.objects.order_by("title"))
author = Author.objects.first()
image = ArticlePage.objects.first().image


def user(name, group):
    account, _ = User.objects.get_or_create(username=name, defaults={"email": f"{name}@example.com"})
    account.groups.add(Group.objects.get(name=group))
    return account


mona, eddie = user("mona", "Moderators"), user("eddie", "Editors")


def article(title, owner, topic, summary="A draft in progress."):
    page = ArticlePage(title=title, summary=summary, image=image, owner=owner, live=False, body=[])
    # Parental relations are saved with the page, as when an editor creates it in the admin.
    page.topics.set([topic])
    page.authors.set([author])
    blog.add_child(instance=page)
    page.save_revision(user=owner)
    return page


article("Checkpointing 70B models without stalling the trainer", mona, topics[0])
article("What we learned running spot GPUs for a quarter", mona, topics[1 % len(topics)])
review = article("Incident review: the Tuesday scheduler freeze", eddie, topics[0])
Workflow.objects.get(name="Moderators approval").start(review, user=eddie)
for days, title in ((2, "Release notes: restore in under a minute"), (6, "GPU utilisation, one year on")):
    page = article(title, mona, topics[0])
    page.go_live_at = now + timedelta(days=days)
    page.save_revision(user=mona).publish(user=mona)
stale = article("Draft: a field guide to CUDA contexts", mona, topics[0])
ArticlePage.objects.filter(pk=stale.pk).update(latest_revision_created_at=now - timedelta(days=41))
live = ArticlePage.objects.filter(live=True).order_by("-date_published").first()
live.summary = live.summary[:200] + " (Updated.)"
live.save_revision(user=mona)

session = SessionStore()
session["_auth_user_id"] = str(mona.pk)
session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
session["_auth_user_hash"] = mona.get_session_auth_hash()
session.create()
print("SESSION", session.session_key)  # noqa: T201
