"""``{% seo_head %}``: meta description, canonical URL, Open Graph, Twitter card and JSON-LD tags;
``|brand_title``: the ``<title>`` text with the brand said once."""

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe

from wagtail.images.models import SourceImageIOError

from home.models import SOCIAL_IMAGE_SPEC
from home.seo import absolute_url, breadcrumb_data, json_ld_script, site_name, website_data

register = template.Library()


@register.inclusion_tag("components/seo_head.html", takes_context=True)
def seo_head(context) -> dict:
    """Everything a page's ``<head>`` tells search engines and link previews.

    Reads ``page`` and ``request`` from the context, plus optional ``seo`` overrides for routes
    that are not pages of their own (``{"title", "description", "path", "breadcrumb"}``) and
    ``posts`` (a paginator page: page 2 onwards is its own canonical URL). Without a page
    (search results, error pages) only the ``WebSite`` JSON-LD is given.
    """
    request = context.get("request")
    page = context.get("page")
    overrides = context.get("seo") or {}
    scripts = [json_ld_script(website_data(request))] if request is not None else []
    if request is None or page is None or not hasattr(page, "get_meta_description"):
        return {"scripts": scripts}

    canonical = absolute_url(request, overrides["path"]) if "path" in overrides else page.get_full_url(request)
    posts = context.get("posts")
    if getattr(posts, "number", 1) > 1:
        canonical += f"?page={posts.number}"
    title = overrides.get("title") or page.seo_title or page.title
    description = overrides.get("description") or page.get_meta_description()

    image = None
    source = page.get_social_image()
    try:
        rendition = source.get_rendition(SOCIAL_IMAGE_SPEC) if source is not None else None
    except SourceImageIOError:  # the original file is missing: no card image rather than a 500
        rendition = None
    if rendition is not None:
        alt = page.card_alt_text if source == getattr(page, "image", None) else source.description
        image = {"url": absolute_url(request, rendition.url), "width": rendition.width, "height": rendition.height}
        image["alt"] = alt or ""

    extra_crumbs = [(overrides["breadcrumb"], canonical)] if "breadcrumb" in overrides else []
    breadcrumbs = breadcrumb_data(request, page, extra_crumbs)
    if breadcrumbs:
        scripts.append(json_ld_script(breadcrumbs))
    if hasattr(page, "get_structured_data") and not overrides:
        scripts.append(json_ld_script(page.get_structured_data(request, canonical=canonical, image=image)))

    return {
        "scripts": scripts,
        "canonical": canonical,
        "title": title,
        "description": description,
        "site_name": site_name(request),
        "image": image,
        "is_article": hasattr(page, "date_published") and not overrides,
        "page": page,
    }


@register.filter(is_safe=True)
def brand_title(title, brand) -> str:
    """A page's ``<title>``: ``title`` followed by " · <brand> blog", unless ``title`` already
    names the brand (case-insensitively, e.g. "Cedana blog: field reports"), so the brand is
    never said twice. An empty ``title`` gives "<brand> blog". ``title`` is the rendered (already
    escaped) block; ``brand`` (the site setting's word mark, default "cedana") is escaped here."""
    title = str(title).strip()
    brand = str(brand or "cedana").strip()
    suffix = conditional_escape(f"{brand} blog")
    if not title:
        return mark_safe(suffix)  # noqa: S308 - escaped above
    if brand.lower() in title.lower():
        return mark_safe(title)  # noqa: S308 - the block's own escaped output
    return mark_safe(f"{title} · {suffix}")  # noqa: S308 - both parts escaped
