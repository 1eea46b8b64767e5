"""Template tags for the blog's pages and site chrome."""

from urllib.parse import quote

from django import template

from wagtail.models import Site

from home.caching import memo
from home.public_pages import exclude_private

register = template.Library()

_MISSING = object()


def site_blog_index(site):
    """The live blog index under ``site``'s root page, or None (remembered: ``home.caching.memo``)."""
    from blog.models import BlogIndexPage

    return memo.memoized(
        ("site-blog-index", site.pk),
        lambda: BlogIndexPage.objects.live().descendant_of(site.root_page, inclusive=True).first(),
    )


@register.simple_tag
def home_blog_index(home):
    """The live, public blog index under ``home`` (a HomePage), or None; remembered for the cache
    generation (``home.caching.memo``)."""
    from blog.models import BlogIndexPage

    return memo.memoized(
        ("home-blog-index", home.pk), lambda: exclude_private(BlogIndexPage.objects.child_of(home).live()).first()
    )


@register.simple_tag
def latest_articles(home, count):
    """The ``count`` newest articles under ``home`` (its site's articles only) that readers can
    see, as card rows with their topics and authors (``blog.listings.card_rows``,
    ``add_card_relations``: a list, empty when ``count`` is 0). The card grid loads and renders
    only the cards missing from the fragment cache (``blog.fragments.render_cards``). Which
    articles they are is remembered for the cache generation, and their rows by article, as a
    listing's (``blog.listings.remember_listing_page``, ``remember_card_rows``): no query then."""
    from blog.listings import (
        add_card_relations,
        card_rows,
        recall_listing_page,
        remember_card_rows,
        remember_listing_page,
        remembered_card_rows,
    )
    from blog.models import ArticlePage

    if not count:
        return []
    key = ("latest", home.pk, count)
    pks = recall_listing_page(key)
    if pks is not memo.MISSING:
        return remembered_card_rows(pks)
    rows = add_card_relations(card_rows(ArticlePage.objects.listed().descendant_of(home))[:count])
    remember_card_rows(rows)
    remember_listing_page(key, tuple(row["pk"] for row in rows))
    return rows


def _blog_index(request, context=None):
    """The live blog index of the request's site, or None; looked up once per request.

    Listing pages have it in their template context already, which costs no query.
    """
    from blog.models import BlogIndexPage

    cached = getattr(request, "_blog_index", _MISSING) if request is not None else _MISSING
    if cached is not _MISSING:
        return cached
    site = Site.find_for_request(request) if request is not None else None
    blog_index = context.get("blog_index") if context is not None else None
    if not isinstance(blog_index, BlogIndexPage) or not blog_index.live:
        blog_index = None
    if blog_index is None and site is not None:
        blog_index = site_blog_index(site)
    if request is not None:
        request._blog_index = blog_index
    return blog_index


@register.simple_tag(takes_context=True)
def blog_index_url(context) -> str:
    """URL of the current site's blog index (``/blog/`` in the demo), or ``/`` if there is none.

    Looked up once per request and kept on the request, since header and footer both need it.
    """
    request = context.get("request")
    blog_index = _blog_index(request, context)
    return blog_index.get_url(request=request) if blog_index else "/"


@register.simple_tag(takes_context=True)
def author_url(context, author) -> str:
    """URL of ``author``'s page under the site's blog index (``/blog/authors/<slug>/``), or ``""``."""
    request = context.get("request")
    blog_index = _blog_index(request, context)
    if blog_index is None or not author.slug:
        return ""
    return blog_index.get_url(request=request) + blog_index.reverse_subpage("author", kwargs={"slug": author.slug})


@register.inclusion_tag("components/feed_links.html", takes_context=True)
def feed_links(context) -> dict:
    """Feed autodiscovery ``<link rel="alternate">`` tags: the current topic's feeds, then the blog's."""
    from blog.models import TopicPage

    links = []
    page = context.get("page")
    if isinstance(page, TopicPage):
        links += page.feed_links()
    blog_index = _blog_index(context.get("request"), context)
    if blog_index is not None:
        links += blog_index.feed_links()
    return {"links": links}


# How many of the newest articles the 404 page suggests.
NOT_FOUND_ARTICLES = 5


@register.inclusion_tag("components/not_found_suggestions.html", takes_context=True)
def not_found_suggestions(context) -> dict:
    """For the 404 page: ``{"blog_index", "articles": the NOT_FOUND_ARTICLES newest, "topics"}``
    of the request's site (empty without a blog index). Two queries at most: the articles, and the
    topics unless the site chrome remembers them; the blog index is remembered too."""
    blog_index = _blog_index(context.get("request"), context)
    if blog_index is None:
        return {"blog_index": None, "articles": [], "topics": []}
    return {
        "blog_index": blog_index,
        "articles": blog_index.newest_articles(NOT_FOUND_ARTICLES),
        "topics": blog_index.navigation_topics(),
        "request": context.get("request"),
    }


# Share links are plain links to each service's documented "share a URL" address: no scripts,
# no requests to the services until a reader follows one. ``{url}``, ``{title}`` and ``{text}``
# are filled in URL-encoded.
SHARE_SERVICES = [
    ("E-mail", "mailto:?subject={title}&body={text}%0A%0A{url}"),
    ("LinkedIn", "https://www.linkedin.com/sharing/share-offsite/?url={url}"),
    ("X", "https://twitter.com/intent/tweet?url={url}&text={title}"),
    ("Bluesky", "https://bsky.app/intent/compose?text={title}%20{url}"),
    ("Hacker News", "https://news.ycombinator.com/submitlink?u={url}&t={title}"),
    ("Reddit", "https://www.reddit.com/submit?url={url}&title={title}"),
]


@register.inclusion_tag("components/share_links.html", takes_context=True)
def share_links(context, page) -> dict:
    """Share links for ``page``: ``{"links": [{"name": service, "href": URL}, ...]}`` with the
    page's absolute URL, its title and (for e-mail) its summary, URL-encoded."""
    request = context.get("request")
    values = {
        "url": quote(page.get_full_url(request) or "", safe=""),
        "title": quote(page.title, safe=""),
        "text": quote(getattr(page, "summary", "") or page.title, safe=""),
    }
    return {"links": [{"name": name, "href": pattern.format(**values)} for name, pattern in SHARE_SERVICES]}


@register.filter
def inline_math(html):
    """Rendered rich text with its ``$...$`` spans as MathML (``blog.mathml.rich_text_with_math``)."""
    from blog.mathml import rich_text_with_math

    return rich_text_with_math(str(html))


@register.filter
def body_fragment_key(article, request=None) -> str:
    """``{% wagtailcache %}``'s key for ``article``'s rendered body served to ``request``
    (``blog.fragments.body_key``)."""
    from blog.fragments import body_key

    return body_key(article, request)


@register.simple_tag(takes_context=True)
def listing_head_key(context) -> str:
    """The key of a listing page's cached SEO head (``pages/blog_listing.html``): the site
    chrome's key (the site, the cache generation: ``home.templatetags.chrome_tags``), the code
    that renders it (``blog.fragments.LISTING_HEAD_VERSION``), the page and the page number (its
    canonical URL). What the head shows (the page's titles, description and social image, its
    ancestors, the site's name and root URL) changes only with a save that starts a new
    generation. No query."""
    from blog.fragments import LISTING_HEAD_VERSION
    from home.templatetags.chrome_tags import chrome_fragment_key

    page, number = context.get("page"), getattr(context.get("posts"), "number", 1)
    return f"{chrome_fragment_key(context)}:{LISTING_HEAD_VERSION}:{page.pk if page else ''}:{number}"


@register.simple_tag(takes_context=True)
def article_cards(
    context, articles, first_eager=False, heading_level=None, rendered=None, inside_fragment=False
) -> list:
    """``{% article_cards articles first_eager heading_level rendered inside_fragment as cards %}``:
    the HTML of each card of ``articles`` (card rows or ArticlePages, as
    ``components/card_grid.html`` takes them), the cached ones read in one round trip, the others
    rendered and stored (``blog.fragments.render_cards``; ``inside_fragment``: the grid is not
    also stored whole, ``CardGroup``); ``rendered`` as it is when the page rendered them already
    (``listing_cards``)."""
    from blog.fragments import render_cards

    if isinstance(rendered, list):  # a variable the template lacks resolves to "", not None
        return rendered
    return render_cards(
        context.get("request"),
        articles,
        first_eager=bool(first_eager),
        heading_level=heading_level or 3,
        inside_fragment=bool(inside_fragment),
    )


@register.simple_tag(takes_context=True)
def listing_cards(context, featured, articles, heading_level=3) -> dict:
    """``{% listing_cards featured articles heading_level as cards %}``: ``{"featured": the
    featured card's HTML (components/featured_article.html; "" without ``featured``), "grid":
    [each card's HTML of ``articles``]}`` (card rows or ArticlePages, as
    ``components/card_grid.html`` takes them), rendered in one batch
    (``blog.fragments.render_card_groups``): on a cold listing the featured card and the grid's
    cards are loaded and rendered together."""
    from blog.fragments import CardGroup, render_card_groups

    groups = [CardGroup(list(articles or []), heading_level=heading_level or 3)]
    if featured:
        groups.append(CardGroup([featured], name="featured-card"))
    html = render_card_groups(context.get("request"), groups)
    return {"grid": html[0], "featured": html[1][0] if featured and html[1] else ""}


@register.simple_tag(takes_context=True)
def prefetch_article(context, article) -> str:
    """Fetch what ``article``'s own fragments show (``ArticlePage.prefetch_shown``), once per
    request and only when one of them is rendered; prints nothing."""
    article.prefetch_shown(context.get("request"))
    return ""


@register.simple_tag
def footnote_references(body):
    """A fresh ``{"numbers": {label: number}, "seen": set()}`` for rendering ``body`` (an
    article's StreamValue) once: pass it to each block as ``footnotes`` (``footnote_refs``)."""
    from blog.footnotes import footnote_numbers

    return {"numbers": footnote_numbers(body), "seen": set()}


@register.filter
def footnote_refs(html, footnotes):
    """Rendered rich text with ``[^label]`` as links to the article's notes
    (``blog.footnotes.with_footnote_references``); unchanged without ``footnotes`` (a block
    rendered alone, e.g. a block preview)."""
    from blog.footnotes import with_footnote_references

    if not footnotes:
        return html
    return with_footnote_references(str(html), footnotes["numbers"], footnotes["seen"])
