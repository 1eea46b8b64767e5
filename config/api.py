"""The read-only headless API (Wagtail API v2) at ``/api/v2/``: pages, images and documents.

Wagtail's endpoints only answer GET/HEAD and already limit pages to live, public pages of the
request's site and documents to public collections; pages past their ``expire_at`` are left out
here too, as the listings leave them out before ``publish_scheduled`` unpublishes them.

Query parameters Wagtail passes on unchecked are checked here, so that a bad value is a 400 with
Wagtail's ``{"message": ...}`` body rather than a 500: an ``offset`` past what SQL can count, a
field filter value of the wrong type (``?date_published=abc``) or a moment without its UTC
offset (``?date_published=2026-01-01``), an unknown ``search_operator``,
and a non-integer ``/find/?id=``. Only the parameters are checked: a database error while running
the query stays a 500, so an outage is never reported as the client's fault.
"""

from django.core.exceptions import FieldDoesNotExist, ObjectDoesNotExist, ValidationError
from django.db import connection
from django.db.models import DateTimeField
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from wagtail.api.v2.filters import FieldsFilter, SearchFilter
from wagtail.api.v2.pagination import WagtailPagination
from wagtail.api.v2.router import WagtailAPIRouter
from wagtail.api.v2.utils import BadRequestError
from wagtail.api.v2.views import PagesAPIViewSet
from wagtail.documents.api.v2.views import DocumentsAPIViewSet
from wagtail.images.api.v2.views import ImagesAPIViewSet
from wagtail.models import Page

# LIMIT and OFFSET are signed 64-bit integers in SQLite and PostgreSQL; Django sends
# LIMIT offset+limit-offset and OFFSET offset, so their sum must fit too.
SQL_BIGINT_MAX = 2**63 - 1


class BoundedPagination(WagtailPagination):
    """Wagtail's ``offset``/``limit`` pagination, refusing an offset SQL cannot take (400)."""

    def paginate_queryset(self, queryset, request, view=None):
        try:
            end = int(request.GET.get("offset", 0)) + int(request.GET.get("limit", 0))
        except ValueError:
            end = 0  # not integers: Wagtail's own check answers with its message
        if end > SQL_BIGINT_MAX:
            raise BadRequestError(f"offset and limit together must be at most {SQL_BIGINT_MAX}")
        return super().paginate_queryset(queryset, request, view)


class CheckedFieldsFilter(FieldsFilter):
    """Wagtail's ``?<field>=<value>`` filter; a value the field cannot hold is a 400.

    Wagtail converts booleans, integers and foreign keys itself; other fields (dates, for one)
    reach ``filter()``, whose conversion raises ``ValidationError``. ``filter()`` only builds the
    query, so nothing caught here comes from the database.
    """

    def filter_queryset(self, request, queryset, view):
        for name, value in request.GET.items():
            if _is_naive_moment(queryset.model, name, value):
                # Django would read it in the server's time zone, with a RuntimeWarning per request.
                raise BadRequestError(
                    f"field filter error: {name} is a moment in time: give its offset, "
                    "e.g. 2026-01-01T09:00:00Z or 2026-01-01T09:00:00+01:00"
                )
        if any(_out_of_range(queryset.model, name, value) for name, value in request.GET.items()):
            # No row can hold it, and the database driver would refuse the number (SQLite:
            # OverflowError at execution, a 500): an empty result, as Django gives ``id=``.
            return queryset.none()
        try:
            return super().filter_queryset(request, queryset, view)
        except (ValidationError, ValueError) as error:
            message = "; ".join(error.messages) if isinstance(error, ValidationError) else str(error)
            raise BadRequestError(f"field filter error: {message}") from error


def integer_range(field) -> tuple[int, int] | None:
    """``(lowest, highest)`` value the database column behind ``field`` holds, following a
    relation (a foreign key, a many-to-many, a page type's link to Page) to the column it points
    at; None for a column that is not an integer."""
    while field.is_relation:
        field = field.target_field
    try:
        return connection.ops.integer_field_range(field.get_internal_type())
    except KeyError:  # not an integer column
        return None


def _out_of_range(model, name: str, value: str) -> bool:
    """Whether ``?name=value`` filters an integer column of ``model`` by a whole number outside
    what the column holds (Django's overflow handling covers ``exact`` on integer fields, not
    relations: ``?image=``, ``?authors=``, ``?topics=`` reached the driver)."""
    try:
        field = model._meta.get_field(name)
        number = int(value)
    except (FieldDoesNotExist, ValueError):
        return False  # not a field filter, or not a number: Wagtail's own checks answer
    bounds = integer_range(field)
    return bounds is not None and not bounds[0] <= number <= bounds[1]


def _is_naive_moment(model, name: str, value: str) -> bool:
    """Whether ``?name=value`` filters a ``DateTimeField`` of ``model`` by a date or a date and
    time without a UTC offset (``2026-01-01``, ``2026-01-01T09:00``). Values that are not a date
    at all are left to ``filter()``'s own ``ValidationError``."""
    try:
        field = model._meta.get_field(name)
    except FieldDoesNotExist:
        return False
    if not isinstance(field, DateTimeField):
        return False
    try:
        moment = parse_datetime(value.strip())
        day = None if moment else parse_date(value.strip())
    except ValueError:  # a well-formed but impossible date: filter() refuses it
        return False
    return (moment is not None and timezone.is_naive(moment)) or day is not None


class CheckedSearchFilter(SearchFilter):
    """Wagtail's ``?search=`` filter; ``search_operator`` other than ``and``/``or`` is a 400."""

    def filter_queryset(self, request, queryset, view):
        operator = request.GET.get("search_operator")
        if "search" in request.GET and operator is not None and operator.lower() not in {"and", "or"}:
            raise BadRequestError("search_operator must be 'and' or 'or'")
        return super().filter_queryset(request, queryset, view)


def checked_filters(filter_backends):
    """``filter_backends`` with Wagtail's fields and search filters swapped for the checked ones,
    in the same places (the search filter must stay last)."""
    swap = {FieldsFilter: CheckedFieldsFilter, SearchFilter: CheckedSearchFilter}
    return [swap.get(backend, backend) for backend in filter_backends]


class CheckedParametersMixin:
    """For an API endpoint: bounded pagination, checked filters, ``/find/?id=`` that must be an
    integer (400 otherwise; 404 when no object has it, including ids past the column's range) and
    ``/find/?html_path=`` with a NUL byte, which no page has (404)."""

    pagination_class = BoundedPagination

    def find_object(self, queryset, request):
        if any("\x00" in path for path in request.GET.getlist("html_path")):
            # No page's path holds a NUL (Wagtail serves only ``[\w-]`` segments), and PostgreSQL
            # text cannot hold one: routing it was a DataError, a 500. None: Wagtail's 404.
            return None
        if "id" in request.GET:
            try:
                object_id = int(request.GET["id"])
            except ValueError as error:
                raise BadRequestError("id must be an integer") from error
            # A page type's primary key is its link to Page (a OneToOneField, ``?type=``).
            low, high = integer_range(queryset.model._meta.pk)
            if not low <= object_id <= high:
                queryset = queryset.none()  # no row can have it; the database would refuse the number
        try:
            return super().find_object(queryset, request)
        except ObjectDoesNotExist:
            # With ``?type=``, the queryset is of that page type, whose DoesNotExist is not
            # Page.DoesNotExist (an abstract base, home.models.BasePage, sits between them), so
            # Wagtail's find view, which catches only the endpoint model's, answered 500. None
            # is Wagtail's own "not found": a 404.
            return None


class LivePagesAPIViewSet(CheckedParametersMixin, PagesAPIViewSet):
    """Wagtail's pages endpoint without expired pages; article listings prefetch what they show."""

    filter_backends = checked_filters(PagesAPIViewSet.filter_backends)

    def get_base_queryset(self):
        # By id: ``?search=`` accepts filters on indexed fields only, and Page indexes ``id``
        # (FilterField) but not ``expire_at``.
        expired = Page.objects.filter(expire_at__lte=timezone.now()).values("id")
        return super().get_base_queryset().exclude(id__in=expired)

    def get_queryset(self):
        from blog.models import ArticlePage

        queryset = super().get_queryset()
        if queryset.model is ArticlePage:  # ?type=blog.ArticlePage: avoid a query per article and field
            queryset = queryset.select_related("image").prefetch_related("topics", "authors", "image__renditions")
        return queryset


class CheckedImagesAPIViewSet(CheckedParametersMixin, ImagesAPIViewSet):
    """Wagtail's images endpoint with its parameters checked."""

    filter_backends = checked_filters(ImagesAPIViewSet.filter_backends)


class CheckedDocumentsAPIViewSet(CheckedParametersMixin, DocumentsAPIViewSet):
    """Wagtail's documents endpoint with its parameters checked."""

    filter_backends = checked_filters(DocumentsAPIViewSet.filter_backends)


api_router = WagtailAPIRouter("wagtailapi")
api_router.register_endpoint("pages", LivePagesAPIViewSet)
api_router.register_endpoint("images", CheckedImagesAPIViewSet)
api_router.register_endpoint("documents", CheckedDocumentsAPIViewSet)
