"""The admin form every page type of ours uses (``BasePage.base_form_class``).

After expiry: Wagtail's form refuses any expiry time in the past ("Expiry date/time must be in
the future."), including the one that has already been carried out and that the editor of an
expired page sees pre-filled. Saving a draft or republishing an expired page would then be a
dead end until the editor found and cleared the field. Here an expiry the editor left as it was
and that is already past on an expired page is cleared (it has done its work, and keeping it
would expire the page again at once); an expiry the editor types or changes to a past time is
still refused by Wagtail's own check.
"""

from django.utils import timezone

from wagtail.admin.forms import WagtailAdminPageForm
from wagtail.models import Page


class BasePageForm(WagtailAdminPageForm):
    """Wagtail's page form, with a carried-out expiry cleared instead of refused (see module)."""

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
        return super().clean()
