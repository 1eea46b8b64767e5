"""The key of the site chrome's cached template fragments (header, footer, topic navigation).

The chrome is the same on every page of a site until content changes: the site settings
(``SiteChromeSettings``: brand, header links, footer line), the blog index link and the topic
list. The templates in ``templates/navigation/`` (and ``components/topic_nav.html``) cache it
with Wagtail's preview-aware ``{% wagtailcache %}`` (previews and reviewer links neither read nor
write it), keyed by ``chrome_fragment_key``: the Wagtail site serving the request, the page-cache
generation token (``home.caching.page_cache``), which saving a site setting, publishing a topic
or moving a page replaces (``home.caching.invalidation``), and a digest of the chrome's
templates (a deployment that changes one never serves the old fragment). So a page the
full-page cache misses renders its chrome with no query once the fragment is cached, and a
change shows on every page at the next request.
"""

from django import template
from django.core.cache import cache

from wagtail.models import Site

from home.caching import fragments, memo
from home.caching.page_cache import GENERATION_KEY, bump_generation

register = template.Library()

# The templates whose output the chrome fragments hold, relative to the project root.
_CHROME_TEMPLATES = ("templates/navigation", "templates/components/topic_nav.html")


TEMPLATES_DIGEST = fragments.files_digest(_CHROME_TEMPLATES, length=12)


@register.simple_tag(takes_context=True)
def chrome_fragment_key(context) -> str:
    """``"<site id>:<generation>:<templates digest>"`` for the request in ``context``; the site id
    is ``none`` when no site serves the request. No query on a page Wagtail has routed (it found
    the site already); the generation is the one the page-cache middleware read for the request
    (read from the cache outside a request)."""
    request = context.get("request")
    site = Site.find_for_request(request) if request is not None else None
    generation = memo.current_generation() or cache.get(GENERATION_KEY) or bump_generation()
    return f"{site.pk if site else 'none'}:{generation}:{TEMPLATES_DIGEST}"
