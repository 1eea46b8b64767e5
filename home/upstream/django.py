"""Django: two workarounds, each with its section in docs/upstream.md.

**A multiple-choice model field posted an id past the database's integer range is a 500.**
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

**The file-based cache lists its whole folder on every write.** ``SparselyCulledFileBasedCache``
(the embedded default's cache backend, config/settings/base.py): docs/upstream.md, "Django: the
file-based cache lists its folder on every write".
"""

from django.core.cache.backends.filebased import FileBasedCache
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


class SparselyCulledFileBasedCache(FileBasedCache):
    """Django's ``FileBasedCache``, deciding whether to cull once every ``cull_check_writes`` writes
    of this instance (one per thread and alias) instead of on every write.

    Django's ``set`` calls ``_cull``, which lists the whole cache folder to count its files before
    comparing the count with ``MAX_ENTRIES`` (Django ticket #29994; unchanged in 5.2). The folder
    fills up to ``MAX_ENTRIES`` on a site that runs for a while, since expired files are deleted
    only when read or culled: at 20,000 files a listing cost 17.6 ms of CPU on this project's
    machine, paid by every fragment and page a cold request stores (20-36 of them). Listing
    once every 50 writes makes that 0.35 ms a write; the folder can pass ``MAX_ENTRIES`` by at
    most 49 files per thread writing before a cull brings it back under. Overriding ``_cull`` is
    what Django's ticket suggests for large file caches; our override only decides when Django's
    own ``_cull`` runs. ``OPTIONS["CULL_CHECK_WRITES"]`` sets the figure (1: Django's behaviour).
    """

    def __init__(self, dir, params):
        options = dict(params.get("OPTIONS") or {})
        self.cull_check_writes = int(options.pop("CULL_CHECK_WRITES", 50))
        if self.cull_check_writes < 1:
            raise ValueError("CULL_CHECK_WRITES must be at least 1")
        super().__init__(dir, {**params, "OPTIONS": options})
        self.writes_since_cull_check = 0

    def _cull(self):
        self.writes_since_cull_check += 1
        if self.writes_since_cull_check < self.cull_check_writes:
            return
        self.writes_since_cull_check = 0
        super()._cull()


def install():
    """Install the workaround (called from ``home.upstream.install``)."""
    ModelMultipleChoiceField.clean = model_multiple_choice_clean
