"""The image library's form: required alt text (the description) and a minimum size.

Set as ``WAGTAILIMAGES_IMAGE_FORM_BASE``, so Wagtail's add, edit and multiple-upload forms all use it.
"""

from django import forms

from home.live_media import ReviewedMediaChangeMixin

from .checks import ImageUploadForm
from .focal_point import FocalPointFormMixin
from .sizes import LIBRARY_MIN_SIZE, displayed_size, too_small_message

DESCRIPTION_HELP = (
    "Alt text: what the image shows, for readers who cannot see it (required). "
    "Pages use it unless they give their own alt text."
)

MISSING_ALT_FLAG = "No alt text yet: describe this image and press Update (or Save)."


class SiteImageForm(ReviewedMediaChangeMixin, FocalPointFormMixin, ImageUploadForm):
    """Wagtail's image form with the description (alt text) required, small images rejected, a
    focal point that is readable and inside the image (``focal_point``), and the file and focal
    point of images in live use kept for moderators (``home.live_media``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "description" in self.fields:
            description = self.fields["description"]
            description.required = True
            description.help_text = DESCRIPTION_HELP
            in_upload_list = bool(self.prefix)  # the multiple uploader prefixes each item's form
            if (in_upload_list or self.instance.pk) and not (self.instance.description or "").strip():
                # An uploaded file or saved image without alt text: flagged in its form, and in
                # the multiple uploader's list through the ``missing-alt`` class
                # (static/css/admin/editor.css) instead of a plain "Upload successful", until it
                # has one.
                description.help_text = f"{MISSING_ALT_FLAG} {DESCRIPTION_HELP}"
                classes = description.widget.attrs.get("class", "")
                description.widget.attrs["class"] = f"{classes} missing-alt".strip()
        if "title" in self.fields:
            self.fields["title"].help_text = "A name for finding the image in the library; readers never see it."
        if "file" in self.fields:
            self.fields["file"].help_text = (
                f"{self.fields['file'].help_text} At least {LIBRARY_MIN_SIZE[0]}x{LIBRARY_MIN_SIZE[1]} pixels. "
                "After uploading, set the focal point so crops keep the important part."
            ).strip()

    def clean_file(self):
        file = self.cleaned_data.get("file")
        image = getattr(file, "image", None)  # set by WagtailImageField on a new upload
        if image is not None:
            self.instance.frame_count = getattr(file, "frame_count", 1)  # set by CheckedImageField
            width, height = displayed_size(file, image.get_size())
            message = too_small_message(
                width, height, LIBRARY_MIN_SIZE, "the image library, whose images must fill a social sharing crop"
            )
            if message:
                raise forms.ValidationError(message, code="image_too_small")
        return file
