"""Settings for a laptop: DEBUG on, console e-mail, a fixed insecure key unless one is given."""

import os

from .base import *  # noqa: F403
from .base import env_bool

DEBUG = env_bool("DEBUG", True)
SECRET_KEY = os.environ.get("SECRET_KEY", "dev-only-insecure-key-never-use-in-production")
EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
WAGTAIL_CACHE = False

# The site's own 404 and 500 pages (tracebacks go to the console); DEBUG_ERROR_PAGES=true shows
# Django's technical pages instead (home/dev_error_pages.py). Innermost but for django-axes, which
# must be last: the pages it gives pass through every other middleware, as in production.
if not env_bool("DEBUG_ERROR_PAGES", False):
    _AXES = MIDDLEWARE.index("axes.middleware.AxesMiddleware")  # noqa: F405
    MIDDLEWARE = [*MIDDLEWARE[:_AXES], "home.dev_error_pages.SiteErrorPagesMiddleware", *MIDDLEWARE[_AXES:]]  # noqa: F405
