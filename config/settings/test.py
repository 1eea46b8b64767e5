"""Short, fast settings for pytest: MD5 hasher, locmem cache and e-mail, plain static files."""

from .base import *  # noqa: F403

DEBUG = False
SECRET_KEY = "test-only-secret-key"  # noqa: S105 - never used outside the test run
ALLOWED_HOSTS = ["testserver", "localhost", "127.0.0.1"]
# The demo site the suite loads keeps Wagtail's default host, so tests assert http://localhost/ URLs.
WAGTAIL_SITE_ROOT_URL = "http://localhost"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "default"},
    "renditions": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "renditions"},
}
# Off for the suite (each test's rolled-back data would otherwise linger in the cache);
# tests/test_performance_page_cache.py turns it on.
PAGE_CACHE_SECONDS = 0
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_AUTOREFRESH = True
# The suite publishes the demo's 98 articles at start-up; their renditions are made on demand by
# the tests that show images (tests/test_blog_demo.py checks both ways).
BLOG_RENDITIONS_ON_PUBLISH = False
# libavif's fastest speed for the renditions those tests make: a quarter of speed 8's CPU on the
# 1200x675 illustrations (0.05 s against 0.2 s), for files a third larger.
WAGTAILIMAGES_AVIF_SPEED = 10
LOGGING = {"version": 1, "disable_existing_loggers": False}
# Django's test client logs in without a request, which django-axes refuses; the lockout tests
# switch it back on (tests/test_security_login.py).
AXES_ENABLED = False
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":  # noqa: F405
    # A commit need not wait for the WAL to reach the disk (3 ms each here, 0.04 ms without):
    # the demo build and the live-server, transactional and browser tests commit; a test
    # database lost in a crash is simply built again. Nothing else about the server changes.
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = "-c synchronous_commit=off"  # noqa: F405
