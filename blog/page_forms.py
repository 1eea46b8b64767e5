"""The article editor's form: editorial length limits and image size checks, with clear messages."""

from django.core.validators import MaxLengthValidator

from wagtail.admin.forms import WagtailAdminPageForm

from home.image_uploads.sizes import CARD_IMAGE_MIN_SIZE, SOCIAL_IMAGE_MIN_SIZE, displayed_size, too_small_message

# Limits on Wagtail's own page fields (characters). Titles: the longest demo title is 80 and
# cards wrap to three lines past about 100. SEO title and description: what search engines show
# before truncating (about 60 and 160 characters, the figures Google's snippet guidance implies).
TITLE_MAX_LENGTH = 100
SEO_TITLE_MAX_LENGTH = 60
SEARCH_DESCRIPTION_MAX_LENGTH = 160

FIELD_LIMITS = {
    "title": (TITLE_MAX_LENGTH, "The headline on the article, cards and browser tab. Aim for under 70 characters."),
    "seo_title": (
        SEO_TITLE_MAX_LENGTH,
        "Optional. The title search engines show; leave blank to use the headline.",
    ),
    "search_description": (
        SEARCH_DESCRIPTION_MAX_LENGTH,
        "Optional. The snippet search engines show; leave blank to use the summary.",
    ),
}


def limit_length(field, max_length: int) -> None:
    """Make a form field refuse more than ``max_length`` characters and tell the browser the limit.

    The ``maxlength`` attribute also drives the admin's character counter
    (``static/js/admin/character-count.js``).
    """
    field.max_length = max_length
    if not any(isinstance(v, MaxLengthValidator) and v.limit_value <= max_length for v in field.validators):
        field.validators.append(MaxLengthValidator(max_length))
    field.widget.attrs["maxlength"] = str(max_length)


class ArticleLimitsForm(WagtailAdminPageForm):
    """Article editor form: title/SEO limits, and card/social images big enough for their crops."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, (max_length, help_text) in FIELD_LIMITS.items():
            if name in self.fields:
                limit_length(self.fields[name], max_length)
                self.fields[name].help_text = help_text

    def clean(self):
        cleaned_data = super().clean()
        for name, minimum, use in (
            ("image", CARD_IMAGE_MIN_SIZE, "the article card and hero"),
            ("social_image", SOCIAL_IMAGE_MIN_SIZE, "social sharing"),
        ):
            image = cleaned_data.get(name)
            if image is not None:
                message = too_small_message(*shown_size(image), minimum, use)
                if message:
                    self.add_error(name, message)
        return cleaned_data


def shown_size(image) -> tuple[int, int]:
    """``(width, height)`` of a library image as readers see it (EXIF orientation applied).

    Wagtail records the size stored in the file; only a portrait-shaped record can be a turned
    landscape photo, so only then is the file's header read.
    """
    if image.width >= image.height:
        return image.width, image.height
    try:
        with image.open_file() as file:
            return displayed_size(file, (image.width, image.height))
    except OSError:  # the original file is missing from storage: judge by the recorded size
        return image.width, image.height
