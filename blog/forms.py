"""The article editor's form: editorial length limits, image size checks and publish gates.

Limits and image sizes always apply. Publish gates say what an article needs before it may be
published, scheduled or submitted; Wagtail's content checks only advise, these refuse. The
rules (issue 3, "Publish gates") keep the article's card, social card and outline intact: a
summary that fits the card, a card image with alt text (or marked decorative), at least one
topic, headings in order (no h3 before the first h2) and a meta description. Drafts may be
saved incomplete: ``ArticlePageForm`` only applies the gates when Wagtail validates the form
fully, i.e. on every action except "Save draft" (publish, schedule, submit for review,
restart, approve from the editor).
"""

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator

from wagtail.blocks import StreamBlockValidationError, StructBlockValidationError

from home import text_cleaning
from home.image_uploads.sizes import CARD_IMAGE_MIN_SIZE, SOCIAL_IMAGE_MIN_SIZE, displayed_size, too_small_message
from home.page_forms import SiteModelForm, SitePageForm
from home.slugs import slug_problem

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

    A looser limit (the model field's, e.g. a page title's 255) is dropped, so an over-long value
    gets one error, the tighter limit's, not one per limit. The ``maxlength`` attribute also
    drives the admin's character counter (``static/js/admin/character-count.js``).
    """
    field.max_length = max_length
    field.validators = [
        v for v in field.validators if not (isinstance(v, MaxLengthValidator) and v.limit_value > max_length)
    ]
    if not any(isinstance(v, MaxLengthValidator) for v in field.validators):
        field.validators.append(MaxLengthValidator(max_length))
    field.widget.attrs["maxlength"] = str(max_length)


class ArticleLimitsForm(SitePageForm):
    """Article editor form: title/SEO limits, and card/social images big enough for their crops;
    control characters removed and slugs checked (``home.page_forms``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, (max_length, help_text) in FIELD_LIMITS.items():
            if name in self.fields:
                limit_length(self.fields[name], max_length)
                self.fields[name].help_text = help_text
        for name in ("title", "summary"):
            if name in self.fields:
                self.fields[name].help_text = f"{self.fields[name].help_text} {text_cleaning.HELP_TEXT}".strip()

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


GATE_SUMMARY = (
    "This article can't be published, scheduled or submitted for review until its card is complete: "
    "fix the fields marked below, or use “Save draft” to keep working."
)


@dataclass(frozen=True)
class Problem:
    """One thing to fix: ``field`` is the editor form's field name, ``message`` says what to do.

    ``block_index`` is set for body problems: the position of the offending block in the body.
    """

    field: str
    message: str
    block_index: int | None = None


def article_problems(
    *, summary: str, image, image_alt: str, image_decorative: bool, topics, authors=(), search_description: str, body
) -> list[Problem]:
    """The gate problems of an article's would-be content, in the editor's tab order.

    ``image`` is an image instance or None, ``topics`` an iterable of topic pages, ``authors`` of
    authors (none chosen is the model's "This field cannot be blank."), ``body`` a StreamValue (or
    a list of blocks with ``block_type`` and ``value``). Returns ``[]`` when the article may be
    published. Chosen topics or authors that are all unpublished are a problem too: readers would
    get a topic link to a 404 or a byline with no name (only live authors are credited).
    """
    from blog.models import SUMMARY_MAX_LENGTH

    problems = []
    summary = (summary or "").strip()
    if not summary:
        problems.append(Problem("summary", "Write a summary: it is the text of the article's card and social card."))
    elif len(summary) > SUMMARY_MAX_LENGTH:
        problems.append(
            Problem(
                "summary",
                f"Shorten the summary to {SUMMARY_MAX_LENGTH} characters (it has {len(summary)}): "
                "cards cut longer text.",
            )
        )
    if image is None:
        problems.append(Problem("image", "Choose a card image: listings and social cards show it."))
    elif not image_decorative and not (image_alt or "").strip() and not (getattr(image, "description", "") or ""):
        problems.append(
            Problem(
                "image_alt",
                "Describe the card image for readers who cannot see it (or give the image a description "
                "in the image library), or tick “decorative image” if it carries no information.",
            )
        )
    topics = list(topics or [])
    if not topics:
        problems.append(Problem("topics", "Choose at least one topic: the article is listed on its topics' pages."))
    elif not any(topic.live for topic in topics):
        problems.append(
            Problem("topics", "Choose at least one published topic: an unpublished topic's page is not found.")
        )
    authors = list(authors or [])
    if authors and not any(author.live for author in authors):
        problems.append(
            Problem(
                "authors",
                "Choose at least one published author: bylines leave out authors waiting for review.",
            )
        )
    problems.extend(heading_order_problems(body))
    if not (search_description or "").strip():
        problems.append(
            Problem(
                "search_description",
                "Write a meta description (Promote tab → Search description): search engines show it under the title.",
            )
        )
    return problems


def article_page_problems(page) -> list[Problem]:
    """``article_problems`` of an article page's own values: a revision's ``as_object()`` (what
    publishing it makes live), or the page's row."""
    return article_problems(
        summary=page.summary,
        image=page.image,
        image_alt=page.image_alt,
        image_decorative=page.image_decorative,
        topics=page.topics.all(),
        authors=page.authors.all(),
        search_description=page.search_description,
        body=page.body,
    )


def heading_order_problems(body) -> list[Problem]:
    """An h3 heading before the body's first h2 is out of order (the outline would skip a level)."""
    problems = []
    seen_h2 = False
    for index, block in enumerate(body or []):
        if block.block_type != "heading":
            continue
        if block.value["level"] == "h2":
            seen_h2 = True
        elif not seen_h2:
            problems.append(
                Problem(
                    "body",
                    f"Heading “{block.value['text']}” (block {index + 1}) is a subsection (h3) before any "
                    "section (h2): make it a section, or add a section heading above it.",
                    block_index=index,
                )
            )
    return problems


def _body_error(problems: list[Problem]) -> StreamBlockValidationError:
    """The body problems as a StreamField error, so the editor highlights each heading's level."""
    error = StreamBlockValidationError(
        block_errors={
            problem.block_index: StructBlockValidationError(block_errors={"level": ValidationError(problem.message)})
            for problem in problems
        },
        non_block_errors=[ValidationError(problem.message) for problem in problems],
    )
    # Shown in the error banner as "Body: ..." instead of Wagtail's generic text.
    error.message = "Fix the headings marked in the body."
    return error


class ArticlePageForm(ArticleLimitsForm):
    """The article editor's form: ArticleLimitsForm's length and image-size checks always, and the
    publish gates on every action but "Save draft"."""

    def clean(self):
        cleaned_data = super().clean()
        # Wagtail defers required fields only for draft saves (and autosave); every other action
        # (publish, schedule, submit, workflow actions) validates fully and must pass the gates.
        if self.is_deferred_validation:
            return cleaned_data
        problems = article_problems(
            summary=cleaned_data.get("summary", self.instance.summary),
            image=cleaned_data.get("image"),
            image_alt=cleaned_data.get("image_alt", ""),
            image_decorative=cleaned_data.get("image_decorative", False),
            topics=cleaned_data.get("topics", []),
            authors=cleaned_data.get("authors", []),
            search_description=cleaned_data.get("search_description", ""),
            body=cleaned_data.get("body", []),
        )
        for problem in problems:
            # Our advice replaces Django's bare "This field is required."; any other error of the
            # field (e.g. a summary over the length limit) stays, alone. While the form cleans,
            # ``self.errors`` is the form's own error dict (``full_clean`` made it), so removing
            # the field's entry removes its error.
            existing = self.errors.get(problem.field)
            if existing and all(error.code == "required" for error in existing.as_data()):
                del self.errors[problem.field]
        problems = [problem for problem in problems if problem.field not in self.errors]
        if not problems:
            return cleaned_data
        self.add_error(None, GATE_SUMMARY)
        body_problems = [problem for problem in problems if problem.field == "body"]
        for problem in problems:
            if problem.field != "body":
                self.add_error(problem.field if problem.field in self.fields else None, problem.message)
        if body_problems:
            self.add_error("body", _body_error(body_problems))
            for problem in body_problems:  # the banner names the heading too
                self.add_error(None, problem.message)
        return cleaned_data


INVISIBLE_NAME = (
    "Enter a name readers can see: spaces, control and zero-width characters alone show nothing in a byline."
)


def validate_visible_name(name: str) -> None:
    """Raises ``ValidationError`` (``INVISIBLE_NAME``, code ``invisible``) for a non-empty name with
    no visible character (``home.text_cleaning.has_visible_character``): "\u200b" or "\x01\x02"
    would be a blank byline. On ``Author.name`` itself, so a revision made without the form is
    refused where it is checked before publishing (``home.publish_checks``)."""
    if name and not text_cleaning.has_visible_character(name):
        raise ValidationError(INVISIBLE_NAME, code="invisible")


class AuthorForm(SiteModelForm):
    """The author snippet's form: clean text, a name that shows something in a byline, and a slug
    for the author's page URL that has a letter or digit and the alphabet
    ``WAGTAIL_ALLOW_UNICODE_SLUGS`` allows (``home.slugs``).

    The name and slug are required for drafts too (``required_on_save`` on their panels,
    ``blog.models.Author``): both are unique, and a field Wagtail defers for a draft is left out of
    Django's uniqueness check when empty, so a second blank draft was an ``IntegrityError`` (a 500).
    """

    def clean_name(self):
        """The name, refused (``INVISIBLE_NAME``) if it has no visible character
        (``home.text_cleaning.has_visible_character``): "\\u200b" or "\\x01\\x02" would be a blank byline."""
        name = self.cleaned_data["name"]
        validate_visible_name(name)
        return name

    def clean_slug(self):
        slug = self.cleaned_data["slug"]
        problem = slug_problem(slug)
        if problem:
            raise ValidationError(problem)
        return slug
