"""Django: a multiple-choice model field posted an id past the database's integer range is a 500.

``forms.ModelMultipleChoiceField`` checks the posted ids with one ``pk__in`` query. Django's fix
for ticket #27397 (5.0) turns an out-of-range integer into "no match" for ``exact``, ``gt``,
``gte``, ``lt`` and ``lte`` lookups, but not for ``in``: on SQLite the query raises
``OverflowError`` ("Python int too large to convert to SQLite INTEGER") and the view answers 500.
Every form and admin filter built on the field is hit: an article's topics and authors
(``topics=99999999999999999999``), Wagtail's page listing filters (``?owner=``,
``?content_type=``, ``?site=``), the users listing (``?group=``), the site history report
(``?user=``). ``install()`` wraps the field's ``clean`` so that such an id is the field's own
"Select a valid choice" error (a form error, or an empty filter result) before the query runs.
docs/upstream.md, "Django: out-of-range ids in a multiple-choice model field".
"""

from django.core.exceptions import ValidationError
from django.db import connections, models
from django.forms import ModelMultipleChoiceField

# Django's own method, kept before ``install`` wraps it (tests/test_home_upstream.py checks that
# it still fails on SQLite with an id past a 64-bit integer).
DJANGO_MODEL_MULTIPLE_CHOICE_CLEAN = ModelMultipleChoiceField.clean


def _integer_range(field: ModelMultipleChoiceField):
    """``(low, high)``, the ids the database can compare, if the field chooses by an integer
    column (following a parent link such as a Page subclass's ``page_ptr``); else None."""
    opts = field.queryset.model._meta
    model_field = opts.get_field(field.to_field_name) if field.to_field_name else opts.pk
    while model_field.is_relation:
        model_field = model_field.target_field
    if not isinstance(model_field, models.IntegerField):
        return None
    return connections[field.queryset.db].ops.integer_field_range(model_field.get_internal_type())


def model_multiple_choice_clean(field: ModelMultipleChoiceField, value):
    """Django's ``ModelMultipleChoiceField.clean``, after refusing any posted id that is a whole
    number outside the column's range with the field's ``invalid_choice`` error."""
    if isinstance(value, (list, tuple)) and value:
        bounds = _integer_range(field)
        for item in value if bounds else ():
            try:
                number = int(str(item).strip())
            except ValueError:
                continue  # Django's own check reports ids that are not numbers
            low, high = bounds
            if (low is not None and number < low) or (high is not None and number > high):
                raise ValidationError(
                    field.error_messages["invalid_choice"], code="invalid_choice", params={"value": item}
                )
    return DJANGO_MODEL_MULTIPLE_CHOICE_CLEAN(field, value)


def install():
    """Install the workaround (called from ``home.upstream.install``)."""
    ModelMultipleChoiceField.clean = model_multiple_choice_clean
