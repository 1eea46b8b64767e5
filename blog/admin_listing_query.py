"""What the admin's modeladmin listings (Articles, Topics) accept in their query string.

wagtail-modeladmin reads every query-string parameter it does not know as a lookup on the model
(``?x=1`` was a 500, ``?owner__password__startswith=`` filtered rows by password hash) and hands
its list filters the raw values. ``GuardedIndexView`` (``blog/wagtail_hooks.py``) passes the
query string through ``usable_query`` first, with the checks ``listing_checks`` gives each
parameter of the listing.

Wagtail's own listings (images, pages) ignore what they cannot use; so do these, but they say
so: each parameter the listing does not know, and each value it cannot use (a topic or author
id that names none, perhaps deleted since the filter was bookmarked; an unknown status; a sort
order naming no sortable column; a page number that is not one; a download format it does not
make) is dropped and named in a warning above the listing, which is shown without it. A search
longer than ``SEARCH_MAX_LENGTH`` is shortened, not dropped (``search_text``). A download asked
for together with anything dropped is not made: the file would not hold the list the address
asked for, and a spreadsheet cannot show the warning.
"""

import re
from collections.abc import Callable, Collection, Mapping

from django.contrib import messages
from django.db import connection
from django.http import QueryDict

# The longest search the listings run: each word adds a condition (title or summary contains it)
# to the SQL. The search box stops typing at this length (its maxlength).
SEARCH_MAX_LENGTH = 200

# How much of a dropped parameter a warning quotes, and how many unknown names it lists.
SHOWN_LENGTH = 40
NAMED_AT_MOST = 5

Check = Callable[[str], tuple[str | None, str | None]]
"""A parameter's check: its value -> (the value to use, or None to drop the parameter; the
sentence to show the editor, or None)."""

_SORT_COLUMN = re.compile(r"-?[0-9]{1,3}", re.ASCII)


def shown(value: str) -> str:
    """``value`` as a warning quotes it: at most ``SHOWN_LENGTH`` characters, control characters
    shown as U+FFFD. (Wagtail's message template escapes the HTML.)"""
    text = "".join(char if char.isprintable() else "\N{REPLACEMENT CHARACTER}" for char in value[:SHOWN_LENGTH])
    return text + ("…" if len(value) > SHOWN_LENGTH else "")


def search_text(value: str) -> tuple[str, str | None]:
    """``q``: used as typed up to ``SEARCH_MAX_LENGTH`` characters; a longer search (text pasted
    into the address; the search box stops at the limit) is cut to its whole words within it.

    Cut, rather than dropped or refused: the listing shows the articles whose title or summary
    contains every word, so a search of fewer words can only show more articles, never hide one
    the whole search would have found, and the editor sees the shortened search in the box to
    refine it. Dropping it would list every article as if nothing had been searched for.
    """
    if len(value) <= SEARCH_MAX_LENGTH:
        return value, None
    words = value[:SEARCH_MAX_LENGTH].split()
    if len(words) > 1 and not value[SEARCH_MAX_LENGTH].isspace():
        words.pop()  # the last word was cut in two
    return " ".join(words), (
        f"Your search was longer than {SEARCH_MAX_LENGTH} characters, so only the words that fit "
        "were searched for (shown in the search box)."
    )


def page_number(value: str) -> tuple[str | None, str | None]:
    """``p``: a page number from 1; anything else shows the first page."""
    if value.isascii() and value.isdigit() and len(value) <= 9 and int(value) > 0:
        return value, None
    return None, f"Ignored the page number “{shown(value)}”: showing the first page."


def sort_direction(value: str) -> tuple[str | None, str | None]:
    """``ot``: Django admin's sort direction, ``asc`` or ``desc`` (modeladmin accepts and ignores it)."""
    if value in ("asc", "desc"):
        return value, None
    return None, f"Ignored the sort direction “{shown(value)}”: click a column heading to sort."


def sort_order(sortable: Collection[int]) -> Check:
    """``o``: modeladmin's sort order, column numbers (``-`` for descending) joined by dots, as
    the column headings link to; each must be one of the ``sortable`` columns."""

    def check(value):
        parts = value.split(".")
        if len(parts) <= len(sortable) and all(
            _SORT_COLUMN.fullmatch(part) and int(part.removeprefix("-")) in sortable for part in parts
        ):
            return value, None
        return None, f"Ignored the sort order “{shown(value)}”: click a column heading to sort."

    return check


def download_format(formats: Collection[str]) -> Check:
    """``export``: one of the listing's download ``formats``."""
    names = " or ".join(name.upper() for name in formats)

    def check(value):
        if value in formats:
            return value, None
        return None, f"Ignored the download format “{shown(value)}”: download {names}."

    return check


def choice(noun: str, choices: Mapping[str, str]) -> Check:
    """A filter whose value is a key of ``choices`` (value -> label); ``noun`` names the filter."""
    labels = ", ".join(choices.values())

    def check(value):
        if value in choices:
            return value, None
        return None, f"Ignored the {noun} filter “{shown(value)}”: choose one of {labels}."

    return check


def row_id(model, noun: str) -> Check:
    """A filter whose value is the id of a ``model`` row that exists; ``noun`` names the filter.

    An id past the database's integer range is no row's (and is not sent to the database).
    """

    def check(value):
        if not (value.isascii() and value.isdigit()):
            return None, f"Ignored the {noun} filter “{shown(value)}”: it is not an id."
        if len(value) <= 20 and int(value) <= _largest_pk(model) and model.objects.filter(pk=int(value)).exists():
            return value, None
        return None, f"Ignored the {noun} filter: no {noun} has the id {shown(value)} (it may have been deleted)."

    return check


def _largest_pk(model) -> int:
    field = model._meta.pk
    while field.is_relation:  # a page type's key is its link to Page
        field = field.target_field
    return connection.ops.integer_field_range(field.get_internal_type())[1]


def listing_checks(view, request) -> dict[str, Check]:
    """The checks of the parameters a modeladmin ``IndexView`` understands (``view.listing_params``):
    its search, page, sort order and download, and each list filter's ``value_check``."""
    model_admin = view.model_admin
    columns = model_admin.get_list_display(request)
    sortable = {index for index, name in enumerate(columns) if view.get_ordering_field(name)}
    checks = {
        view.SEARCH_VAR: search_text,
        view.PAGE_VAR: page_number,
        view.ORDER_VAR: sort_order(sortable),
        view.ORDER_TYPE_VAR: sort_direction,
    }
    if model_admin.get_list_export(request):
        checks[view.EXPORT_VAR] = download_format(view.FORMATS)
    for list_filter in model_admin.get_list_filter(request):
        checks[list_filter.parameter_name] = list_filter.value_check
    return {name: check for name, check in checks.items() if name in view.listing_params}


def usable_query(query: QueryDict, checks: Mapping[str, Check]) -> tuple[QueryDict, list[str]]:
    """``query`` without the parameters ``checks`` does not name or drops, and the warnings saying
    what was left out. A repeated parameter counts as its last value, as the listing reads it;
    ``export`` (a download) is left out too when anything else was."""
    usable = QueryDict(mutable=True)
    warnings = []
    unknown = []
    for name in query:
        if name not in checks:
            unknown.append(name)
            continue
        values = query.getlist(name)
        if len(values) > 1:
            warnings.append(
                f"“{shown(name)}” was given {len(values)} times: this list uses one value, the last "
                f"(“{shown(values[-1])}”)."
            )
        value, warning = checks[name](values[-1])
        if warning:
            warnings.append(warning)
        if value is not None:
            usable[name] = value
    if unknown:
        names = ", ".join(f"“{shown(name)}”" for name in unknown[:NAMED_AT_MOST])
        more = f" and {len(unknown) - NAMED_AT_MOST} more" if len(unknown) > NAMED_AT_MOST else ""
        warnings.insert(0, f"Ignored {names}{more} in the address: this list has no such filter or setting.")
    if warnings and "export" in usable:
        del usable["export"]
        warnings.append("Nothing was downloaded: check the list below and download it again.")
    return QueryDict(usable.urlencode()), warnings  # read-only, as request.GET is


def apply(view, request) -> None:
    """Give ``request`` the usable part of its query string (``usable_query`` with ``view``'s
    ``listing_checks``) and show each warning above the listing (Django's messages)."""
    request.GET, warnings = usable_query(request.GET, listing_checks(view, request))
    for warning in warnings:
        messages.warning(request, warning)
