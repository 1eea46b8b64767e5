"""Changing media that live content shows: replacing the file of, or moving the focal point of,
an image or document that a live page or snippet uses changes what readers see at once, with no
moderator involved (issue 16). Such a change needs the right to publish every live user of it.

Editors can still upload new images and documents and choose them in drafts: review then
happens where it always does, on the draft.
"""

from django import forms
from django.contrib.auth import get_permission_codename

from wagtail.documents.forms import BaseDocumentForm
from wagtail.models import DraftStateMixin, Page, ReferenceIndex

# Fields whose change reaches readers without review (the file and, for images, the crop centre).
GUARDED_FIELDS = ("file", "focal_point_x", "focal_point_y", "focal_point_width", "focal_point_height")


def live_users(instance) -> list:
    """The live objects whose current (live) version uses ``instance``, per Wagtail's reference index.

    Pages and draft-state snippets count while ``live``; other models (site settings, plain
    snippets) have no drafts, so their saved row is what readers see.
    """
    users = []
    for source, _references in ReferenceIndex.get_grouped_references_to(instance):
        if isinstance(source, Page | DraftStateMixin) and not source.live:
            continue
        users.append(source)
    return users


def can_publish(user, source) -> bool:
    """Whether ``user`` may publish a change to ``source`` (a page, a snippet or another model)."""
    if isinstance(source, Page):
        return source.specific_deferred.permissions_for_user(user).can_publish()
    opts = source._meta
    action = "publish" if isinstance(source, DraftStateMixin) else "change"
    return user.has_perm(f"{opts.app_label}.{get_permission_codename(action, opts)}")


def unreviewed_change_refusal(user, instance, changed_fields) -> str:
    """Why ``user`` may not save ``changed_fields`` of ``instance`` (an image or document), or "".

    Refused when a guarded field changed and a live user of the instance is one ``user`` may not
    publish; the message names up to three of them and says what to do instead.
    """
    if instance.pk is None or user is None or not set(changed_fields) & set(GUARDED_FIELDS):
        return ""
    blocked = [source for source in live_users(instance) if not can_publish(user, source)]
    if not blocked:
        return ""
    names = ", ".join(f"“{source}”" for source in blocked[:3]) + (" and others" if len(blocked) > 3 else "")
    kind = instance._meta.verbose_name
    return (
        f"This {kind} is used by live content ({names}), so replacing its file or moving its focal point "
        f"would change what readers see without review. Ask a moderator to make this change, or upload "
        f"a new {kind} and choose it in your draft, which then goes through review."
    )


class ReviewedMediaChangeMixin:
    """For Wagtail's image and document forms: refuses unreviewed changes to media in live use
    (``unreviewed_change_refusal``) with a form error; everything else saves as before."""

    def __init__(self, *args, **kwargs):
        # Wagtail's collection-member forms take the editing user as ``user`` (and drop it).
        self.editing_user = kwargs.get("user")
        super().__init__(*args, **kwargs)

    def clean(self):
        cleaned_data = super().clean()
        refusal = unreviewed_change_refusal(self.editing_user, self.instance, self.changed_data)
        if refusal:
            raise forms.ValidationError(refusal, code="needs_review")
        return cleaned_data


class SiteDocumentForm(ReviewedMediaChangeMixin, BaseDocumentForm):
    """The document library's form (``WAGTAILDOCS_DOCUMENT_FORM_BASE``): Wagtail's, with
    replacements of documents in live use kept for moderators."""
