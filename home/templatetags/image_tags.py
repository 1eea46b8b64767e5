"""``{% picture %}``: Wagtail's tag, except for the images that get their original file, plus
Wagtail's ``{% image %}``. Load this library instead of ``wagtailimages_tags``; the tags take the
same arguments as Wagtail's and give the same HTML for every other image.

Two kinds of image get the original file instead of renditions (docs/images.md): animated
ones (``SiteImage.is_animated``), because Willow's Pillow backend keeps only their first frame,
and very large ones whose renditions are not made yet (``SiteImage.renditions_in_request``),
whose renditions are queued for the background worker (``home.image_renditions``) rather than
made while the reader waits. The original is one ``<img>`` at its own width and height with the
tag's attributes (``sizes`` only belongs with a ``srcset``), scaled by the page's CSS.

``{% image %}`` is Wagtail's own, re-exported so that a template needs one ``{% load %}``.
"""

from django import template
from django.forms.utils import flatatt
from django.utils.safestring import SafeString, mark_safe

from wagtail.images.templatetags import wagtailimages_tags

from home.image_renditions import queue_renditions
from home.upstream.wagtail import FiltersParsedOnce

register = template.Library()


class PictureNode(FiltersParsedOnce, wagtailimages_tags.PictureNode):
    """Wagtail's ``PictureNode``, rendering an animated or not-yet-rendered very large image as
    its original (see the module docstring), with its filters parsed once per node
    (``home.upstream.wagtail.FiltersParsedOnce``)."""

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
