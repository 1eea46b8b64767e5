"""``{% picture %}`` that parses its filter specs once per template, plus Wagtail's ``{% image %}``.

Load this library instead of ``wagtailimages_tags``; the tags take the same arguments and give
the same HTML as Wagtail's.

Why our own tag: Wagtail's ``PictureNode`` (8.0.1, and the newest upstream copy of
wagtailimages_tags.py found in the reference index) builds new ``Filter`` objects from the tag's
spec strings on every render (``SrcsetImageNode.get_filters``: ``Filter.expand_spec`` and
``Filter(spec=...)``), so every card re-parses ``Filter.operations`` (the image-operation hooks,
and ``inspect.getcallargs`` for each operation) for each of a card's nine renditions. A template node
lives as long as the cached template loader keeps its template (Django's default whenever
``TEMPLATES`` names no loaders, as in config/settings/base.py), so this node keeps its ``Filter``
objects, and their parsed ``operations``, from one render to the next. Measured on the
benchmark database at 10,000 articles (issue #8, renditions prefetched): 0.52 ms of CPU per card
with Wagtail's tag, about 0.21 ms with the ``Filter`` objects built once. With this tag (and
one ``{% pageurl %}`` per card instead of two, about 0.4 ms) /blog/ (13 pictures) went from
about 32 to 24 ms of CPU per request (median of four ``benchmarks/profile_page.py --repeat 30``
CPU p50 figures each, on a shared 2-core machine). Upstream once kept an
``{% image %}`` tag's filter on its node (wagtail/wagtail#1110, 2015, when filters were database
rows); Wagtail 8.0.1's image nodes keep nothing between renders.

Two kinds of image get the original file instead of renditions (docs/images.md): animated
ones (``SiteImage.is_animated``), because Willow's Pillow backend keeps only their first frame,
and very large ones whose renditions are not made yet (``SiteImage.renditions_in_request``),
whose renditions are queued for the background worker (``home.image_renditions``) rather than
made while the reader waits. The original is one ``<img>`` at its own width and height with the
tag's attributes (``sizes`` only belongs with a ``srcset``), scaled by the page's CSS.

``{% image %}`` is Wagtail's own, re-exported so that a template needs one ``{% load %}``. It
makes one ``Filter`` (one or two operations) per render, only for author photos and the social
card preview; none of the benchmarked pages renders one, so it is left as Wagtail wrote it.
"""

from functools import cached_property

from django import template
from django.forms.utils import flatatt
from django.utils.safestring import SafeString, mark_safe

from wagtail.images.models import Filter
from wagtail.images.templatetags import wagtailimages_tags

from home.image_renditions import queue_renditions

register = template.Library()


class PictureNode(wagtailimages_tags.PictureNode):
    """Wagtail's ``PictureNode`` with its ``Filter`` objects made on the first render and kept.

    Sharing them between renders is safe: a ``Filter`` holds only its spec and its parsed
    operations, which depend on neither the image nor the request (the focal-point cache key is
    computed per image by ``Filter.get_cache_key(image)``), only on the image-operation hooks
    registered at start-up. Two threads rendering a new node at once would each build the same
    tuple and one would be kept (gunicorn runs sync workers here anyway).
    """

    @cached_property
    def _filters(self) -> tuple[Filter, ...]:
        # A tuple so that no caller can change the list the next render gets.
        return tuple(super().get_filters())

    def get_filters(self) -> tuple[Filter, ...]:
        return self._filters

    def render(self, context):
        image = self.validate_image(context)
        if image and not self.output_var_name and self._serves_original(image):
            attrs = {key: value.resolve(context) for key, value in self.attrs.items()}
            return original_img_tag(image, attrs)
        return super().render(context)

    def _serves_original(self, image) -> bool:
        if getattr(image, "is_animated", False):
            return True
        if getattr(image, "renditions_in_request", True):
            return False
        filters = self.get_filters()
        if len(image.find_existing_renditions(*filters)) == len(filters):
            return False
        queue_renditions(image, [f.spec for f in filters])
        return True


def original_img_tag(image, attrs: dict) -> SafeString:
    """``<img>`` of ``image``'s original file at its stored width and height, with ``attrs``
    (values escaped; None dropped, as Wagtail does) except ``sizes``, which needs a ``srcset``."""
    attrs = {key: value for key, value in attrs.items() if key != "sizes" and value is not None}
    tag_attrs = {"src": image.file.url, "width": image.width, "height": image.height, "alt": image.default_alt_text}
    tag_attrs.update(attrs)
    return mark_safe(f"<img{flatatt(tag_attrs)}>")  # noqa: S308 - flatatt escapes every value


@register.tag
def picture(parser, token) -> PictureNode:
    """``{% picture image spec... [attr=value...] [as name] %}``, parsed and checked by Wagtail."""
    node = wagtailimages_tags.image(parser, token)
    return PictureNode(node.image_expr, node.filter_specs, output_var_name=node.output_var_name, attrs=node.attrs)


register.tag("image", wagtailimages_tags.image)
