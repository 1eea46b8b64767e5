"""The editor's forms for every page type, snippet and site setting of the site.

``SitePageForm`` (``BasePage.base_form_class``) removes control characters from text
(``home.text_cleaning``), refuses a page slug that makes no URL or that its parent page keeps
for its own addresses (``home.slugs``), a time some time zone cannot show (``EARLIEST_SHOWABLE``,
``LATEST_SHOWABLE``) and a go-live in the past where it would publish at once
(``home.past_go_live``), clears a carried-out expiry instead of refusing it, and judges "changed"
as the revisions compare view does (see ``SitePageForm.has_changed``); ``SiteModelForm``
(snippets, site settings) removes control characters; ``SiteCopyForm``
(``BasePage.copy_form_class``) refuses a copy's slug that its new parent keeps.

After expiry: Wagtail's form refuses any expiry time in the past ("Expiry date/time must be in
the future."), including the one that has already been carried out and that the editor of an
expired page sees pre-filled. Saving a draft or republishing an expired page would then be a
dead end until the editor found and cleared the field. Here an expiry the editor left as it was
and that is already past on an expired page is cleared (it has done its work, and keeping it
would expire the page again at once); an expiry the editor types or changes to a past time is
still refused by Wagtail's own check.
"""

import datetime
import re

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.utils import timezone

from wagtail.admin.forms import WagtailAdminModelForm, WagtailAdminPageForm
from wagtail.admin.forms.pages import CopyForm
from wagtail.admin.widgets import AdminAutoHeightTextInput
from wagtail.fields import RichTextField, StreamField
from wagtail.models import Page

from .past_go_live import past_go_live_problem
from .slugs import reserved_slug_problem, slug_for, slug_problem
from .text_cleaning import CleanTextFormMixin, has_visible_character

LINE_BREAKS = re.compile(r"\s*[\r\n\u2028\u2029]+\s*")

# Times every editor's time zone can show: UTC offsets reach 14 hours (Pacific/Kiritimati), and a
# time within that of Python's first or last datetime cannot be converted for display, so an
# editor's "9999-12-31 23:59" made the Articles listing a 500 for everyone east of UTC.
EARLIEST_SHOWABLE = datetime.datetime(1, 1, 2, tzinfo=datetime.UTC)
LATEST_SHOWABLE = datetime.datetime(9999, 12, 30, tzinfo=datetime.UTC)
UNSHOWABLE_TIME = (
    f"Enter a date between {EARLIEST_SHOWABLE.date().isoformat()} and "
    f"{(LATEST_SHOWABLE - datetime.timedelta(days=1)).date().isoformat()}: "
    "a time at either end of the calendar cannot be shown in every time zone."
)


INVISIBLE_TITLE = (
    "Enter a title readers can see: spaces, control and zero-width characters alone show nothing in a headline."
)


def one_line(title: str) -> str:
    """``title`` on one line, as the page editor keeps a title: line breaks, with the spaces around
    them, become one space; the ends are stripped."""
    return LINE_BREAKS.sub(" ", title).strip()


def is_showable(value: datetime.datetime) -> bool:
    """Whether every time zone can show ``value`` (an aware datetime), as the editor's forms require."""
    return EARLIEST_SHOWABLE <= value < LATEST_SHOWABLE


class SitePageForm(CleanTextFormMixin, WagtailAdminPageForm):
    """The page editor's form: clean text, a slug with a letter or digit that the parent page
    does not keep for its own addresses (a blank slug is judged by the one Wagtail will make from
    the title), and a carried-out expiry cleared (see module)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "title" in self.fields:
            # A one-line input hides the end of a long headline; Wagtail's growing text area
            # shows all of it (line breaks typed into it are removed in clean_title).
            title = self.fields["title"]
            title.widget = AdminAutoHeightTextInput(attrs=title.widget.attrs)

    def clean_title(self):
        """The title on one line: line breaks (Enter in the growing text area) become spaces."""
        return one_line(self.cleaned_data.get("title") or "")

    def clean(self):
        expire_at = self.cleaned_data.get("expire_at")
        if (
            expire_at is not None
            and expire_at <= timezone.now()
            and "expire_at" not in self.changed_data
            and self.instance.pk is not None
            and Page.objects.filter(pk=self.instance.pk, expired=True).exists()
        ):
            self.cleaned_data["expire_at"] = None
        cleaned_data = super().clean()
        for name, field in self.fields.items():
            value = cleaned_data.get(name) if isinstance(field, forms.DateTimeField) else None
            if value is not None and not is_showable(value):
                self.add_error(name, UNSHOWABLE_TIME)
        if "go_live_at" in self.fields and (problem := past_go_live_problem(self)):
            self.add_error("go_live_at", problem)
        if "slug" in self.fields and "slug" not in self.errors:
            slug = cleaned_data.get("slug") or slug_for(cleaned_data.get("title", ""))
            problem = slug_problem(slug) or reserved_slug_problem(slug, self.parent_page)
            if problem:
                self.add_error("slug", problem)
        return cleaned_data

    def has_changed(self):
        """True if saving would make a revision the compare view shows as different.

        Wagtail's edit view saves a new revision on a workflow action (Approve, Request
        changes) only when the form has changed. Django's test compares serialised values, so a
        StreamField whose stored JSON lacks a child block added since (or stored in an older
        shape) counts as changed though nothing differs, and an approval left an empty "No
        differences" revision. Fields whose serialised value differs are judged again by the
        comparisons of the page's edit handler (``wagtail.admin.compare``, what History's compare
        view uses); formsets (comments, inline panels) and new pages keep Django's answer.
        """
        if not super().has_changed():
            return False
        latest = self.instance.get_latest_revision() if self.instance.pk else None
        if latest is None or not hasattr(self, "cleaned_data"):
            return True
        if any(formset.has_changed() for formset in self.formsets.values()):
            return True
        before = latest.as_object()
        panel = self.instance.get_edit_handler().get_bound_panel(instance=self.instance, request=None, form=None)
        comparisons = {}
        for comparison_class in panel.get_comparison():
            comparison = comparison_class(before, self.instance)
            # Only StreamFields and rich text are judged again: their serialised form is noisy,
            # and the instance already holds their new value (relations are saved later).
            if getattr(comparison, "is_field", False) and isinstance(comparison.field, StreamField | RichTextField):
                comparisons[comparison.field.name] = comparison
        return any(name not in comparisons or comparisons[name].has_changed() for name in self.changed_data)


class SiteModelForm(CleanTextFormMixin, WagtailAdminModelForm):
    """The editor's form for snippets and site settings (their ``base_form_class``)."""


class SiteCopyForm(CopyForm):
    """Wagtail's copy form (``BasePage.copy_form_class``), refusing a new slug that the new parent
    page keeps for its own addresses (``home.slugs.reserved_slug_problem``), a new title that
    shows nothing (``INVISIBLE_TITLE``), a title longer than the page type's
    ``title_max_length`` (an article's: 100 characters) and a slug longer than ``Page.slug``, as
    the page editor does. Wagtail's copy form has no length limits (docs/upstream.md, "Wagtail:
    the copy form has no length limits"): a 300-character title was a 500 (the copy's save
    refused it) and a 150-character one made a copy the editor then refused to save."""

    def clean(self):
        cleaned_data = super().clean()
        title = cleaned_data.get("new_title")
        if title and not has_visible_character(title):
            self.add_error("new_title", INVISIBLE_TITLE)
        limits = {
            "new_title": getattr(
                self.page.specific_class, "title_max_length", Page._meta.get_field("title").max_length
            ),
            "new_slug": Page._meta.get_field("slug").max_length,
        }
        for name, limit in limits.items():
            value = cleaned_data.get(name)
            if value and name not in self.errors:
                try:
                    MaxLengthValidator(limit)(value)
                except ValidationError as error:
                    self.add_error(name, error)
        slug = cleaned_data.get("new_slug")
        parent = cleaned_data.get("new_parent_page") or self.page.get_parent()
        problem = reserved_slug_problem(slug, parent) if slug else None
        if problem:
            self.add_error("new_slug", problem)
        return cleaned_data
