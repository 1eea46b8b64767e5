"""Form data for the Wagtail page editor, as the admin's browser would post it."""

from wagtail.test.utils.form_data import inline_formset, nested_form_data, rich_text, streamfield

from blog.models import ArticlePage, TopicPage

GOOD_BODY = [
    ("heading", {"text": "Setting the scene", "level": "h2", "anchor": ""}),
    ("paragraph", rich_text("<p>Hello.</p>")),
    ("heading", {"text": "A detail", "level": "h3", "anchor": ""}),
    ("code", {"language": "python", "filename": "", "source": "print(1)"}),
]


def article_form_data(slug: str = "a-new-deep-dive", *, body=None, action: str | None = None, **fields) -> dict:
    """POST data for the ArticlePage create/edit form; ``fields`` override the defaults.

    ``action`` is the editor's button: ``"publish"``, ``"submit"`` or None (save draft).
    ``topics``/``authors`` are lists of primary keys (default: the demo's gpu-costs topic and
    author); ``body`` a list of ``(block_type, value)`` pairs.
    """
    demo_article = ArticlePage.objects.filter(image__isnull=False).first()
    values = {
        "title": "A new deep-dive",
        "slug": slug,
        "summary": "What changes when the cache no longer fits.",
        "image": demo_article.image.pk,
        "image_alt": "A blueprint of a GPU rack.",
        "search_description": "What changes when the KV cache no longer fits in GPU memory.",
        "seo_title": "",
        "date_published": "",
        "go_live_at": "",
        "expire_at": "",
        "body": streamfield(GOOD_BODY if body is None else body),
        "comments": inline_formset([]),
    }
    topics = fields.pop("topics", [TopicPage.objects.get(slug="gpu-costs").pk])
    authors = fields.pop("authors", [demo_article.authors.first().pk])
    values.update(fields)
    data = nested_form_data(values)
    # Multiple-choice fields go in as lists, which nested_form_data would flatten.
    data["topics"] = topics
    data["authors"] = authors
    if action:
        data[f"action-{action}"] = action
    return data


# Text an editor can type that shows nothing as a byline or headline
# (home.text_cleaning.has_visible_character). The control characters pass a field's required
# check and are removed after it; spaces are stripped before it; format characters (zero-width
# space, joiners, direction marks, byte order mark) are kept by both.
INVISIBLE_TEXTS = {
    "control characters": "\x01\x02",
    "separators": "\x1f\x1e",
    "spaces": " \t ",
    "no-break and em spaces": "\u00a0\u2003",
    "zero-width characters": "\u200b\u200c\u200d\ufeff",
    "direction marks": "\u200e\u202e\u2066",
    "a combining accent alone": "\u0301",
    "Hangul fillers": "\u3164\u115f\u1160\uffa0",
    "the blank Braille pattern": "\u2800",
}
