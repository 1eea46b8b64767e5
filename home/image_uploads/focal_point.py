"""The focal point of an image form: readable, and inside the image.

Wagtail's image form posts the focal point as four hidden fields (``focal_point_x`` and
``focal_point_y``, the centre; ``focal_point_width`` and ``focal_point_height``, the area), set by
the focal point chooser on the edit page. Two gaps in Wagtail 8.0:

- A value that is not a whole number from 0 to the database's largest integer (a hand-made
  post, a broken script) is an error of a hidden field, which no template shows: the page said
  "The image could not be created due to errors" and "Go to the first error" with no error to go
  to. ``FocalPointFormMixin`` moves those errors into one error of the form that names the
  focal point (Wagtail lists a form's own errors in its message banner).
- A focal point with only some of its four values was saved too: Wagtail ignores it, so it
  looked set and did nothing. It is refused. (An area of no pixels is a point, which the chooser
  can make: it stays.)
- A focal point outside the image (5000, 5000 on a 1300x700 image) was saved. It is refused, not
  clamped: the chooser only makes areas inside the image, so one outside comes from a hand-made
  post, or from replacing the file with a smaller picture while keeping the old focal point;
  clamping would store a point nobody chose (crops would centre on an edge or corner), while the
  error says what is wrong and the editor sets the point again or removes it. The chooser rounds
  down to whole pixels, so an area may reach ``ROUNDING`` pixels past an edge. It is judged when
  the focal point or the file changes, so an image saved before this check can still be retitled.
"""

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator

FOCAL_POINT_FIELDS = ("focal_point_x", "focal_point_y", "focal_point_width", "focal_point_height")

# Pixels an area made by the chooser can reach past an edge (its centre is rounded down).
ROUNDING = 1

# How many characters of an unreadable value the error quotes.
SHOWN_LENGTH = 20


def _quoted(value) -> str:
    text = "".join(char for char in str(value)[:SHOWN_LENGTH] if char.isprintable())
    return f"“{text}{'…' if len(str(value)) > SHOWN_LENGTH else ''}”"


class FocalPointFormMixin:
    """For Wagtail's image form: unreadable focal point values and a focal point outside the
    image are one error of the form, naming the focal point (see the module)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in FOCAL_POINT_FIELDS:
            if name in self.fields:
                # The database's integer range (PostgreSQL's 2,147,483,647) is otherwise checked
                # only by the model, after ``clean``, as an error of the hidden field again.
                limits = self._meta.model._meta.get_field(name).validators
                field = self.fields[name]
                field.validators = [*field.validators, *(v for v in limits if isinstance(v, MaxValueValidator))]

    def clean(self):
        cleaned_data = super().clean()
        if not all(name in self.fields for name in FOCAL_POINT_FIELDS):
            return cleaned_data  # the multiple uploader's form has no focal point
        unreadable = [name for name in FOCAL_POINT_FIELDS if name in self.errors]
        if unreadable:
            values = ", ".join(
                f"{self.fields[name].label.lower()} {_quoted(self.data.get(self.add_prefix(name), ''))}"
                for name in unreadable
            )
            for name in unreadable:
                del self.errors[name]
            self.add_error(
                None,
                ValidationError(
                    f"The focal point could not be read ({values}): its values are whole numbers of pixels. "
                    "Set the focal point again on the image, or remove it.",
                    code="focal_point_unreadable",
                ),
            )
            return cleaned_data
        if set(self.changed_data) & {"file", *FOCAL_POINT_FIELDS}:
            error = self.focal_point_outside_error(cleaned_data)
            if error:
                self.add_error(None, error)
        return cleaned_data

    def image_size(self, cleaned_data) -> tuple[int, int] | None:
        """``(width, height)`` of the image being saved: a new upload's, else the stored one's."""
        upload = getattr(cleaned_data.get("file"), "image", None)  # set by WagtailImageField on upload
        if upload is not None:
            return upload.get_size()
        if self.instance.pk is not None and self.instance.width and self.instance.height:
            return self.instance.width, self.instance.height
        return None

    def focal_point_outside_error(self, cleaned_data) -> ValidationError | None:
        values = [cleaned_data.get(name) for name in FOCAL_POINT_FIELDS]
        given = [name for name, value in zip(FOCAL_POINT_FIELDS, values, strict=True) if value is not None]
        if given and len(given) < len(FOCAL_POINT_FIELDS):
            # Wagtail ignores a focal point without all four values: stored, it would look set.
            return ValidationError(
                "The focal point is incomplete (it needs its centre and its area). "
                "Set the focal point again on the image, or remove it.",
                code="focal_point_incomplete",
            )
        size = self.image_size(cleaned_data)
        if not given or size is None:  # no focal point, or no image
            return None
        x, y, area_width, area_height = values
        width, height = size
        left, right = x - area_width / 2, x + area_width / 2
        top, bottom = y - area_height / 2, y + area_height / 2
        if left >= -ROUNDING and top >= -ROUNDING and right <= width + ROUNDING and bottom <= height + ROUNDING:
            return None
        return ValidationError(
            f"The focal point (centre {x}, {y}; area {area_width}x{area_height} pixels) is not inside this "
            f"{width}x{height} image. Set the focal point again on the image, or remove it.",
            code="focal_point_outside",
        )
