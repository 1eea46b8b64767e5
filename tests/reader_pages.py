"""The reader-facing pages the quality checks visit (axe-core, the Nu HTML checker, JSON-LD), and
an article that uses every body block type, which the demo content does not."""

from wagtail.embeds.embeds import get_embed_hash
from wagtail.embeds.models import Embed

from blog.blocks import ArticleBodyBlock

from .factories import ArticlePageFactory, AuthorFactory, SiteImageFactory

VIDEO_URL = "https://www.youtube.com/watch?v=aqz-KE-bpKQ"
# What YouTube's oEmbed answers, trimmed: stored as Wagtail's embed cache, so no test calls out.
VIDEO_OEMBED_HTML = (
    '<iframe width="200" height="113" src="https://www.youtube-nocookie.com/embed/aqz-KE-bpKQ?feature=oembed" '
    'frameborder="0" allow="autoplay; encrypted-media" allowfullscreen title="Big Buck Bunny"></iframe>'
)
# Comments, strings, numbers, keywords and names: each of the highlighter's colours is checked.
CODE_SAMPLE = '# Cost per token\n@cache\ndef cost(hours: float, rate=4.25):\n    return "total", hours * rate\n'


def every_block_body(image) -> list[dict]:
    """A body (StreamField raw data) with one block of every type in ArticleBodyBlock, plus an
    h3 under the first h2. ``image``: a SiteImage for the figure block."""
    return [
        {"type": "paragraph", "value": '<p>Intro with <b>bold</b>, <i>italic</i>, <a href="/blog/">a link</a>.</p>'},
        {"type": "heading", "value": {"text": "Where the hours go", "level": "h2", "anchor": ""}},
        {"type": "paragraph", "value": "<ul><li>one <code>nvidia-smi</code></li></ul><ol><li>two</li></ol>"},
        {"type": "heading", "value": {"text": "A closer look", "level": "h3", "anchor": "closer"}},
        {"type": "image", "value": {"image": image.pk, "alt_text": "A blue test rectangle", "caption": "A figure."}},
        {
            "type": "code",
            "value": {"language": "python", "filename": "cost.py", "source": CODE_SAMPLE},
        },
        {
            "type": "table",
            "value": {
                "data": [["Utilization", "Cost"], ["40%", "$1.85"], ["60%", "$1.23"]],
                "first_row_is_table_header": True,
                "first_col_is_header": True,
                "table_caption": "Cost per token",
            },
        },
        {"type": "quote", "value": {"quote": "Neither said useful.", "attribution": "Field team"}},
        {"type": "callout", "value": {"kind": "warning", "title": "Careful", "text": "<p>Check the bill.</p>"}},
        {"type": "key_figure", "value": {"value": "5.7", "unit": "points", "label": "to break even"}},
        {"type": "math", "value": r"P_{\text{ridge}} = \frac{\text{FLOP/s}}{\text{bytes/s}}"},
        {"type": "paragraph", "value": "<p>Break even at $u \\ge 0.57$, which costs \\$5 a day.</p>"},
        {
            "type": "chart",
            "value": {
                "title": "Busy and idle GPU-hours",
                "kind": "grouped_bar",
                "data": "Cluster,Busy,Idle\nTraining,71,29\nInference,38,62",
                "series": "",
                "x_title": "Cluster",
                "x_unit": "",
                "y_title": "Share",
                "y_unit": "%",
                "summary": "Inference idles more than training.",
            },
        },
        {"type": "paragraph", "value": "<p>As measured[^mlperf], and again[^idle] and[^mlperf].</p>"},
        {"type": "embed", "value": {"video": VIDEO_URL, "caption": "A video."}},
        {"type": "cta", "value": {"heading": "Keep the state", "text": "Talk.", "label": "Book a demo", "url": ""}},
        {
            "type": "footnotes",
            "value": {
                "notes": [
                    {"label": "mlperf", "text": '<p>MLCommons, <a href="https://mlcommons.org/">MLPerf</a>.</p>'},
                    {"label": "idle", "text": "<p>No kernel ran for a whole minute.</p>"},
                ]
            },
        },
    ]


def make_every_block_article(blog, topic):
    """A live article under ``blog`` in ``topic`` whose body has every block type; the video's
    embed is cached first so rendering it makes no network call."""
    Embed.objects.update_or_create(
        hash=get_embed_hash(VIDEO_URL),
        defaults={"url": VIDEO_URL, "type": "video", "html": VIDEO_OEMBED_HTML, "title": "Big Buck Bunny"},
    )
    figure = SiteImageFactory(description="A blue test rectangle")
    article = ArticlePageFactory(
        parent=blog,
        title="Every block in one article",
        slug="every-block",
        summary="An article that shows each kind of body block once.",
        topics=[topic],
        authors=[AuthorFactory(name="Ada Test", slug="ada-test")],
        body=every_block_body(figure),
    )
    used = {block.block_type for block in article.body}
    assert used == set(ArticleBodyBlock.base_blocks), set(ArticleBodyBlock.base_blocks) - used
    return article


def reader_paths(article) -> dict[str, str]:
    """``{name: path}`` of the pages the issue's quality bars name, with ``article`` as the article."""
    return {
        "home": "/",
        "blog index": "/blog/",
        "topic": "/blog/gpu-costs/",
        "article with every block": article.url,
        "author": "/blog/authors/cedana-editorial/",
        "search results": "/search/?query=gpu",
        "404": "/blog/no-such-page/",
        "theme chooser": "/theme/?next=/blog/",
    }


def make_layout_variants(blog, topic) -> dict:
    """``{name: (article, has_toc)}``: one live article per layout variant of the article page
    (issue 17): no table of contents and no hero image (short), one heading with a hero image,
    and a long article with contents, a very wide table and a very long line of code."""
    wide_table = [
        [f"Column {n}" for n in range(14)],
        *[[f"{row}.{n} GPU-hours" for n in range(14)] for row in range(3)],
    ]
    long_code = "fleet = schedule(" + ", ".join(f"node_{n}=checkpoint(gpus={n})" for n in range(30)) + ")\n"
    paragraph = {
        "type": "paragraph",
        "value": "<p>" + "Checkpoints keep the state of a run so it can move. " * 12 + "</p>",
    }
    unbroken = "Logistics/support/administrative-" * 2 + "https://example.com/" + "x" * 10  # 96 characters
    long_body = []
    for n in range(6):
        long_body += [{"type": "heading", "value": {"text": f"Part {n + 1}", "level": "h2", "anchor": ""}}, paragraph]
    long_body += [
        {"type": "code", "value": {"language": "python", "filename": "fleet.py", "source": long_code}},
        {
            "type": "table",
            "value": {
                "data": wide_table,
                "first_row_is_table_header": True,
                "first_col_is_header": False,
                "table_caption": "Fourteen columns",
            },
        },
    ]
    variants = {
        "short, no contents, no hero image": (
            {"body": [paragraph]},
            False,
        ),
        "one heading, hero image": (
            {"body": [{"type": "heading", "value": {"text": "Only one", "level": "h2", "anchor": ""}}, paragraph]},
            False,
        ),
        "long, contents, wide table and code": ({"body": long_body}, True),
        # Editors' text with words longer than a phone is wide (a URL, a compound, a path) in
        # every field a reader page prints: title, summary, body, author name, role and bio.
        "unbroken words in every field": (
            {
                "title": f"Layout: {unbroken}",
                "summary": f"Summary {unbroken}",
                "body": [{"type": "paragraph", "value": f"<p>Body {unbroken}</p>"}],
                "authors": [
                    AuthorFactory(
                        name=f"Ada {unbroken[:60]}", slug="unbroken-words", role=unbroken, bio=f"Bio {unbroken}"
                    )
                ],
            },
            False,
        ),
    }
    made = {
        name: (
            ArticlePageFactory(
                parent=blog,
                **{"title": f"Layout: {name}", "summary": f"The {name} layout.", "topics": [topic], **fields},
            ),
            has_toc,
        )
        for name, (fields, has_toc) in variants.items()
    }
    # Publishing needs an image, but deleting it from the library leaves the article without
    # one (on_delete=SET_NULL): the layout without a hero image.
    short = made["short, no contents, no hero image"][0]
    type(short).objects.filter(pk=short.pk).update(image=None)
    return made
