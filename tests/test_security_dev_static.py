"""The development server's static files: a path that climbs out of the static folders is a 404.

Django's own runserver wraps the site in ``StaticFilesHandler``, which lets the
``SuspiciousFileOperation`` from ``/static/../x`` escape as a 500. The project installs
``whitenoise.runserver_nostatic``, so runserver serves the plain WSGI application and WhiteNoise's
middleware (from the finders when DEBUG is on) serves static files, refusing non-canonical paths.
"""

from wsgiref.util import setup_testing_defaults

from django.core.management import get_commands, load_command_class
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import override_settings

import pytest


def runserver_application():
    """The WSGI application ``manage.py runserver`` (default options) would serve."""
    command = load_command_class(get_commands()["runserver"], "runserver")
    options = vars(command.create_parser("manage.py", "runserver").parse_args([]))
    return command.get_handler(**options)


def get(application, path: str) -> tuple[int, bytes]:
    """Send a GET for ``path`` (a raw PATH_INFO) through a WSGI application: (status, body)."""
    environ = {"PATH_INFO": path, "REQUEST_METHOD": "GET"}
    setup_testing_defaults(environ)
    status = []
    # As Django's test client does: a WSGI handler's request signals would otherwise close the
    # test's own database connection (PostgreSQL then fails the next query).
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    try:
        body = b"".join(application(environ, lambda code, headers, exc_info=None: status.append(code)))
    finally:
        for signal in (request_started, request_finished):
            signal.connect(close_old_connections)
    return int(status[0].split()[0]), body


@pytest.mark.django_db
@override_settings(DEBUG=True)
@pytest.mark.parametrize(
    "path",
    ["/static/../x", "/static/../config/settings/base.py", "/static/css/../../manage.py", "/static/..\\manage.py"],
)
def test_static_path_traversal_is_not_found(path):
    status, body = get(runserver_application(), path)
    assert status == 404
    assert b"SECRET_KEY" not in body


@pytest.mark.django_db
@override_settings(DEBUG=True)
def test_static_files_are_still_served_in_development():
    status, body = get(runserver_application(), "/static/css/site.css")
    assert status == 200
    assert b"{" in body
