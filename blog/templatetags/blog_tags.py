"""Template tags for the blog's pages and site chrome."""

from django import template

from wagtail.models import Site

register = template.Library()


@register.simple_tag(takes_context=True)
def blog_index_url(context) -> str:
    """URL of the current site's blog index (``/blog/`` in the demo), or ``/`` if there is none.

    Looked up once per request and kept on the request, since header and footer both need it.
    """
    from blog.models import BlogIndexPage

    request = context.get("request")
    cached = getattr(request, "_blog_index_url", None)
    if cached is not None:
        return cached
    site = Site.find_for_request(request) if request is not None else None
    # Listing pages have the blog index in their context already: no query.
    blog_index = context.get("blog_index")
    if not isinstance(blog_index, BlogIndexPage):
        blog_index = None
    if blog_index is None and site is not None:
        blog_index = BlogIndexPage.objects.live().descendant_of(site.root_page, inclusive=True).first()
    url = blog_index.get_url(request=request) if blog_index else "/"
    if request is not None:
        request._blog_index_url = url
    return url
