"""Production settings: everything from the environment; refuses to start without a secret."""

import os

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import env_bool, env_list

DEBUG = env_bool("DEBUG", False)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set in the environment for production.")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS")
if not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS must list this site's host names in production.")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

STORAGES = {
    **STORAGES,  # noqa: F405 - media storage from base (local or S3)
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "blog@localhost")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# HTTPS behind a TLS-terminating proxy: the proxy must set X-Forwarded-Proto (and strip it from
# clients' requests); plain-HTTP requests are redirected to HTTPS.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
# Load balancers and Kubernetes probe app servers directly over plain HTTP, without the proxy's
# header: a redirect would pass as healthy (Kubernetes counts 3xx as success) whatever /readyz says.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
# The preload flag only takes effect once the domain is submitted to the browsers' list.
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "strict-origin-when-cross-origin"
# Moderators and administrators must use two-step verification (home/staff_security/mfa.py).
STAFF_MFA_REQUIRED = env_bool("STAFF_MFA_REQUIRED", True)

# Redis for the page and rendition caches when REDIS_URL is set (e.g. redis://127.0.0.1:6379/0),
# for several machines; without it, base.py's file-based cache serves the processes of one. django-redis with
# IGNORE_EXCEPTIONS: while Redis is down every read is a miss and every write is dropped (logged),
# so pages are rendered uncached instead of failing with a 500, and the cache is used again as soon
# as Redis answers (benchmarks/faults.py proves both). Short socket timeouts keep a hung Redis from
# holding workers.
REDIS_URL = os.environ.get("REDIS_URL", "")
REDIS_OPTIONS = {
    "IGNORE_EXCEPTIONS": True,
    "SOCKET_CONNECT_TIMEOUT": float(os.environ.get("REDIS_CONNECT_TIMEOUT", "0.5")),
    "SOCKET_TIMEOUT": float(os.environ.get("REDIS_TIMEOUT", "1.0")),
}
DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "home.upstream.django_redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "cedana",
            "OPTIONS": REDIS_OPTIONS,
        },
        "renditions": {
            "BACKEND": "home.upstream.django_redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "cedana-renditions",
            "TIMEOUT": 60 * 60 * 24 * 7,
            "OPTIONS": REDIS_OPTIONS,
        },
    }
