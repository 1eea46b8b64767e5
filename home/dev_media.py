"""Development only: uploaded media served by ``runserver``, except documents.

Django's ``static()`` helper would serve all of ``MEDIA_ROOT``, so a document in a private
collection could be downloaded straight from ``/media/documents/<name>``, past the privacy check
of Wagtail's document view (``/documents/<id>/<name>``, ``WAGTAILDOCS_SERVE_METHOD = "serve_view"``).
Here the documents folder is left out: documents are only reachable through Wagtail's view, as in
production, where the bucket keeps originals and documents private (docs/deployment.md, Object storage).
"""

import posixpath
import re

from django.conf import settings
from django.core.exceptions import SuspiciousFileOperation
from django.http import Http404
from django.urls import re_path
from django.views.static import serve

from wagtail.documents import get_document_model


def documents_folder() -> str:
    """The folder under MEDIA_ROOT that Wagtail stores document files in (``"documents"``)."""
    return str(get_document_model()._meta.get_field("file").upload_to).strip("/")


def serve_media(request, path: str):
    """Django's ``static.serve`` for ``MEDIA_ROOT``, but a 404 for anything in the documents
    folder, however the path spells it (``./``, ``..``, doubled or back slashes), and for any path
    that cannot name a file in ``MEDIA_ROOT``: one leaving it (``static.serve`` would answer 400 with
    the debug page) or one the file system refuses (a name over 255 bytes raised ``OSError`` in
    ``static.serve``'s ``is_dir()``: a 500)."""
    normalised = posixpath.normpath(path.replace("\\", "/")).lstrip("/")
    if normalised.split("/")[0] == documents_folder():
        raise Http404("Documents are served by their own view.")
    try:
        return serve(request, path, document_root=settings.MEDIA_ROOT)
    except (SuspiciousFileOperation, OSError) as error:
        raise Http404("No such media file.") from error


def dev_media_urlpatterns() -> list:
    """The MEDIA_URL route for ``runserver`` when DEBUG is on (else none): ``serve_media``."""
    if not settings.DEBUG or not settings.MEDIA_URL.startswith("/"):
        return []
    prefix = re.escape(settings.MEDIA_URL.lstrip("/"))
    return [re_path(rf"^{prefix}(?P<path>.*)$", serve_media)]
