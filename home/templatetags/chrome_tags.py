"""The site chrome's cached template fragments (header, footer, topic navigation) and their key.

The chrome is the same on every page of a site until content changes: the site settings
(``SiteChromeSettings``: brand, header links, footer line), the blog index link and the topic
list. The header's brand and links and the footer (``templates/navigation/chrome/``) are one
cache entry (``site_chrome``: one read, or one write on a cold page, where three fragments cost
three files on the file-based cache); the topic navigation (``components/topic_nav.html``),
which varies by page, is Wagtail's ``{% wagtailcache %}``. Neither is read or written in
previews and reviewer links. Both are keyed by ``chrome_fragment_key``: the Wagtail site
serving the request, the page-cache generation token (``home.caching.page_cache``), which
saving a site setting, publishing a topic or moving a page replaces
(``home.caching.invalidation``), and a digest of the chrome's templates (a deployment that
changes one never serves the old fragment). So a page the
full-page cache misses renders its chrome with no query once the fragment is cached, and a
change shows on every page at the next request.
"""

from django import template
from django.core.cache.utils import make_template_fragment_key
from django.utils.safestring import mark_safe

from wagtail.models import Site

from home.caching import fragments, memo
from home.caching.generation import read_generation
from home.caching.page_cache import bump_generation

register = template.Library()

# The templates whose output the chrome fragments hold, relative to the project root.
_CHROME_TEMPLATES = ("templates/navigation", "templates/components/topic_nav.html")
# The parts of ``site_chrome``: {name: template}.
CHROME_PARTS = {
    "brand": "navigation/chrome/brand.html",
    "links": "navigation/chrome/links.html",
    "footer": "navigation/chrome/footer.html",
}


TEMPLATES_DIGEST = fragments.files_digest(_CHROME_TEMPLATES, length=12)


@register.simple_tag(takes_context=True)
def chrome_fragment_key(context) -> str:
    """``"<site id>:<generation>:<templates digest>"`` for the request in ``context``; the site id
    is ``none`` when no site serves the request. No query on a page Wagtail has routed (it found
    the site already); the generation is the one the page-cache middleware read for the request
    (read from the cache outside a request)."""
    request = context.get("request")
    site = Site.find_for_request(request) if request is not None else None
    generation = memo.current_generation() or read_generation() or bump_generation()
    return f"{site.pk if site else 'none'}:{generation}:{TEMPLATES_DIGEST}"


@register.simple_tag(takes_context=True)
def site_chrome(context) -> dict:
    """``{part: HTML}`` for each of ``CHROME_PARTS`` (the header's brand and links, the footer),
    rendered with ``context``: from one cache entry keyed by ``chrome_fragment_key`` (the cache
    ``{% wagtailcache %}`` uses), else rendered and stored in one write. Kept on the request, so
    the header and the footer read or render it once. Previews and reviewer links
    (``request.is_preview``) and renders without a request neither read nor write the cache, as
    ``{% wagtailcache %}``."""
    request = context.get("request")
    if request is None:
        return _render_chrome(context)
    parts = getattr(request, "site_chrome_parts", None)
    if parts is not None:
        return parts
    if getattr(request, "is_preview", False):
        parts = _render_chrome(context)
    else:
        fragment_cache = fragments.fragment_cache()
        key = make_template_fragment_key("site-chrome", [chrome_fragment_key(context)])
        parts = fragment_cache.get(key)
        if not isinstance(parts, dict) or set(parts) != set(CHROME_PARTS):
            parts = _render_chrome(context)
            fragment_cache.set(key, parts, fragments.FRAGMENT_SECONDS)
    # The parts are HTML this site rendered from its settings and page tree.
    parts = {name: mark_safe(html) for name, html in parts.items()}  # noqa: S308
    request.site_chrome_parts = parts
    return parts


def _render_chrome(context) -> dict:
    """Each part of ``CHROME_PARTS`` rendered with ``context``, as ``{% include %}`` would."""
    engine = context.template.engine
    return {part: engine.get_template(name).render(context) for part, name in CHROME_PARTS.items()}
