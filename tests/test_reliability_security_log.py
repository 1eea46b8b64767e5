"""Hostile requests are logged as one warning per interval, not a traceback each
(``LOGGING`` in config/settings/base.py: the "django.security" loggers)."""

import copy
import io
import logging
import logging.config

import pytest

from config.settings import base

pytestmark = pytest.mark.django_db


@pytest.fixture
def security_log():
    """The production ``LOGGING`` installed with the security handler writing to a string; the
    "django.security" logger put back as the test settings leave it afterwards."""
    stream = io.StringIO()
    config = copy.deepcopy(base.LOGGING)
    config["handlers"]["security_console"]["stream"] = stream
    config["root"] = {"level": "WARNING"}  # only the security records matter here
    logger = logging.getLogger("django.security")
    saved = (list(logger.handlers), logger.propagate, logger.level)
    logging.config.dictConfig(config)
    try:
        yield stream
    finally:
        logger.handlers[:], logger.propagate, logger.level = saved
        logging.config.dictConfig({"version": 1, "disable_existing_loggers": False})


@pytest.mark.parametrize(
    "request_kwargs",
    [
        {"path": "/blog/", "HTTP_HOST": "evil.example"},
        {"path": "/blog/", "HTTP_HOST": "localhost:99999:1"},
        {"path": "/admin/login/", "data": {"x": "y" * 20}, "post": True},
    ],
    ids=["unknown host", "malformed host", "over-size body"],
)
def test_each_kind_of_hostile_request_is_one_line_per_interval(client, security_log, settings, request_kwargs):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10
    kwargs = dict(request_kwargs)
    path, post = kwargs.pop("path"), kwargs.pop("post", False)
    for _ in range(5):
        response = client.post(path, **kwargs) if post else client.get(path, **kwargs)
        assert 400 <= response.status_code < 500
    lines = security_log.getvalue().splitlines()
    assert len(lines) == 1, lines
    assert "Traceback" not in security_log.getvalue()
