"""The editor's forms for every page type, snippet and site setting of the site.

``SitePageForm`` (``BasePage.base_form_class``) removes control characters from text
(``home.text_cleaning``) and refuses a page slug that makes no URL (``home.slugs``);
``SiteModelForm`` (snippets, site settings) removes control characters.
"""

from wagtail.admin.forms import WagtailAdminModelForm, WagtailAdminPageForm

from .slugs import slug_for, slug_problem
from .text_cleaning import CleanTextFormMixin


class SitePageForm(CleanTextFormMixin, WagtailAdminPageForm):
    """The page editor's form: clean text, and a slug with a letter or digit. A blank slug is
    judged by the one Wagtail will make from the title."""

    def clean(self):
        cleaned_data = super().clean()
        if "slug" in self.fields and "slug" not in self.errors:
            slug = cleaned_data.get("slug") or slug_for(cleaned_data.get("title", ""))
            problem = slug_problem(slug)
            if problem:
                self.add_error("slug", problem)
        return cleaned_data


class SiteModelForm(CleanTextFormMixin, WagtailAdminModelForm):
    """The editor's form for snippets and site settings (their ``base_form_class``)."""
