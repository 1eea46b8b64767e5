"""Settings shared by every environment.

Deployment values come from the environment (see ``.env.example``); this module holds only what
is the same on a laptop, in CI and in production.
"""

import hashlib
import os
from pathlib import Path
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

from wagtail.embeds.oembed_providers import vimeo, youtube

import dj_database_url
from csp.constants import NONCE, NONE, SELF, UNSAFE_EVAL, UNSAFE_INLINE

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def env_bool(name: str, default: bool = False) -> bool:
    """Read a boolean from the environment: 1/true/yes/on (any case) is True.

    Raises ImproperlyConfigured for any other non-empty value, so a typo never flips a switch.
    """
    raw = os.environ.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in {"1", "true", "yes", "on"}:
        return True
    if raw in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false), got {raw!r}")


def env_list(name: str, default: str = "") -> list[str]:
    """Read a comma-separated list from the environment, ignoring blanks."""
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")

INSTALLED_APPS = [
    # runserver without Django's static handler (it answers /static/../x with a 500): WhiteNoise's
    # middleware serves static files in development as in production (finders when DEBUG).
    "whitenoise.runserver_nostatic",
    "home",
    "home.staff_security",
    "home.operations",
    "blog",
    "blog.demo",
    "search",
    "wagtail.contrib.settings",
    "wagtail.contrib.table_block",
    "wagtail.contrib.redirects",
    "wagtail.contrib.routable_page",
    "wagtail.contrib.sitemaps",
    "wagtail.api.v2",
    "wagtail.contrib.forms",
    "wagtail.contrib.search_promotions",
    "wagtail_modeladmin",
    "django_tasks",
    "django_tasks_db",
    "wagtail.embeds",
    "wagtail.sites",
    "wagtail.users",
    "wagtail.snippets",
    "wagtail.documents",
    "wagtail.images",
    "wagtail.search",
    "wagtail.admin",
    "wagtail",
    "modelcluster",
    "taggit",
    "django_filters",
    "csp",
    "axes",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "dbbackup",  # the copying behind backup_site and restore_site (home/operations/backups.py)
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.sitemaps",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Gives an empty 405 (Django's, Wagtail's, WhiteNoise's) the site's error page
    # (home/method_not_allowed.py); above WhiteNoise to see its responses.
    "home.method_not_allowed.MethodNotAllowedPageMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Outside the page cache, so cached HTML is compressed too (static files: WhiteNoise's .gz).
    "django.middleware.gzip.GZipMiddleware",
    # Before sessions and auth: a cache hit skips them (home/caching/page_cache.py).
    "home.caching.page_cache.PageCacheMiddleware",
    # A host no Wagtail site serves (no default site): a static 404 for every public URL.
    "home.unknown_host.UnknownHostMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # request.user.is_verified(), then staff MFA: unverified sessions go to setup or verify.
    "django_otp.middleware.OTPMiddleware",
    "home.staff_security.mfa.StaffMFAMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # After messages: refuses a workflow Approve that would publish a page failing the publish
    # checks (home/publish_checks.py); before ReviewOutcomeMiddleware, which then says nothing.
    "home.publish_checks.ApprovalChecksMiddleware",
    # After messages: tells a moderator what their Approve / Request changes did (blog/review_messages.py).
    "blog.review_messages.ReviewOutcomeMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.security_headers.SiteCSPMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    # Wagtail's RedirectMiddleware, except that a redirect to a page that is not live is not
    # followed (home/upstream/wagtail.py).
    "home.upstream.wagtail.RedirectMiddleware",
    # Last, as django-axes requires: it turns a lockout into the lockout page.
    "axes.middleware.AxesMiddleware",
]

# A writing method without a CSRF token gets the address's own 405 (or 404) when it would refuse
# the method with one too, else the "allow cookies" page 403_csrf.html (home/method_not_allowed.py).
CSRF_FAILURE_VIEW = "home.method_not_allowed.csrf_failure"

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.debug",
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "wagtail.contrib.settings.context_processors.settings",
                "csp.context_processors.nonce",
            ],
        },
    },
]

# Default: an SQLite file under var/ (gitignored); DATABASE_URL switches to PostgreSQL.
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'var' / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets the scheduler write while the web server reads; the busy timeout rides out
    # the short write locks instead of raising "database is locked".
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
    }
    DATABASES["default"]["CONN_MAX_AGE"] = 0

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# django-axes first: it refuses a locked-out login before the password is even checked.
# AxesBackend (axes' check plus ModelBackend's get_user and permissions) rather than
# AxesStandaloneBackend, because Wagtail's page test helpers sign in with the first backend.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesBackend",
    "django.contrib.auth.backends.ModelBackend",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 12},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = os.environ.get("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "var" / "staticfiles"))
STATIC_URL = "/static/"

MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", BASE_DIR / "var" / "media"))
MEDIA_URL = os.environ.get("MEDIA_URL", "/media/")


def media_storage() -> dict:
    """Where uploads and renditions live: S3-compatible object storage (django-storages) when
    AWS_STORAGE_BUCKET_NAME is set, so every app server sees the same files; else MEDIA_ROOT."""
    bucket = os.environ.get("AWS_STORAGE_BUCKET_NAME")
    if not bucket:
        return {"BACKEND": "django.core.files.storage.FileSystemStorage"}
    return {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": bucket,
            "endpoint_url": os.environ.get("AWS_S3_ENDPOINT_URL") or None,
            "region_name": os.environ.get("AWS_S3_REGION_NAME") or None,
            "custom_domain": os.environ.get("AWS_S3_CUSTOM_DOMAIN") or None,
            "location": os.environ.get("AWS_LOCATION", "media"),
            # Public media URLs without expiring signatures, so cached pages keep working images.
            "querystring_auth": env_bool("AWS_QUERYSTRING_AUTH", False),
            "file_overwrite": False,
            "default_acl": None,
        },
    }


STORAGES = {
    "default": media_storage(),
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# django-dbbackup, which backup_site and restore_site drive (home/operations/backups.py):
# restores run pg_restore without the dump's owners (the target's user owns what it creates),
# and failures are reported by those commands rather than mailed.
DBBACKUP_CONNECTORS = {"default": {"PG_OPTIONS": "--no-owner"}}
DBBACKUP_SEND_EMAIL = False

# Only staff sign in, so sessions are staff sessions: they end with the browser and after
# SESSION_COOKIE_AGE seconds at most (default 12 hours, a working day plus margin).
SESSION_COOKIE_AGE = int(os.environ.get("SESSION_COOKIE_AGE", str(12 * 60 * 60)))
SESSION_EXPIRE_AT_BROWSER_CLOSE = True
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"

# Security headers (SecurityMiddleware and config.security_headers). X-Frame-Options stays
# DENY (Django's default): Wagtail's preview views set SAMEORIGIN on their own responses.
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "strict-origin-when-cross-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
ADMIN_URL_PREFIX = "/admin/"

# Video providers the embed block accepts; their players are the only frames readers load.
VIDEO_EMBED_ORIGINS = [
    "https://www.youtube.com",
    "https://www.youtube-nocookie.com",
    "https://player.vimeo.com",
]


def _origin(url: str) -> list[str]:
    """``["https://host"]`` for an absolute URL, ``[]`` for a site path like ``/media/``."""
    parts = urlsplit(url)
    return [f"{parts.scheme}://{parts.netloc}"] if parts.scheme and parts.netloc else []


def media_origins() -> list[str]:
    """Origins that media URLs point to when media is in object storage (``media_storage()``),
    so the Content-Security-Policy lets pages load images from the bucket. ``[]`` for local media.

    django-storages builds URLs on AWS_S3_CUSTOM_DOMAIN (over https) when it is set; else boto3
    addresses the bucket at the endpoint (AWS_S3_ENDPOINT_URL, or AWS's own) either by path
    (``host/bucket/...``) or by virtual host (``bucket.host``), depending on the endpoint, so
    both are listed.
    """
    bucket = os.environ.get("AWS_STORAGE_BUCKET_NAME")
    if not bucket:
        return []
    custom_domain = os.environ.get("AWS_S3_CUSTOM_DOMAIN")
    if custom_domain:
        return [f"https://{custom_domain}"]
    endpoint = os.environ.get("AWS_S3_ENDPOINT_URL")
    if endpoint:
        parts = urlsplit(endpoint)
        return [f"{parts.scheme}://{parts.netloc}", f"{parts.scheme}://{bucket}.{parts.netloc}"]
    region = os.environ.get("AWS_S3_REGION_NAME")
    hosts = ["s3.amazonaws.com", *([f"s3.{region}.amazonaws.com"] if region else [])]
    return [origin for host in hosts for origin in (f"https://{host}", f"https://{bucket}.{host}")]


# Origins the Wagtail user bar (shown to signed-in editors on public pages) and uploaded
# media may come from when they are not this site's own origin.
_ASSET_ORIGINS = [
    *_origin(os.environ.get("WAGTAILADMIN_BASE_URL", "")),
    *_origin(os.environ.get("MEDIA_URL", "")),
    *media_origins(),
]

# Readers' pages: no inline script (a template that needs one uses {{ request.csp_nonce }}),
# no inline style, nothing from other origins but the video players, and no framing.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE, *_ASSET_ORIGINS],
        "style-src": [SELF, *_ASSET_ORIGINS],
        "img-src": [SELF, "data:", *_ASSET_ORIGINS],
        "font-src": [SELF],
        "connect-src": [SELF],
        "media-src": [SELF, *_ASSET_ORIGINS],
        "frame-src": VIDEO_EMBED_ORIGINS,
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
# The Wagtail admin (config.security_headers.SiteCSPMiddleware picks it for ADMIN_URL_PREFIX):
# Wagtail 8 still uses inline scripts and styles, and its bundles contain eval-style code.
ADMIN_CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, UNSAFE_INLINE, UNSAFE_EVAL, *_ASSET_ORIGINS],
        "style-src": [SELF, UNSAFE_INLINE, *_ASSET_ORIGINS],
        "img-src": [SELF, "data:", "blob:", *_ASSET_ORIGINS],
        "font-src": [SELF, "data:"],
        "connect-src": [SELF],
        "media-src": [SELF, "blob:", *_ASSET_ORIGINS],
        "frame-src": [SELF, *VIDEO_EMBED_ORIGINS],
        "worker-src": [SELF, "blob:"],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [SELF],
    }
}

# Staff login throttling (django-axes): FAILURE_LIMIT wrong passwords for one user name from one
# address lock that pair out for COOLOFF hours; a success resets the count. Lockouts are
# listed and cleared in Django's admin models or with `manage.py axes_reset_username NAME`.
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = float(os.environ.get("AXES_COOLOFF_HOURS", "0.25"))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "account_locked.html"
AXES_VERBOSE = False
# Behind the proxy: the client's address from X-Forwarded-For, believed only from these proxy
# addresses or networks (home/staff_security/client_ip.py). Default none: X-Forwarded-For ignored.
TRUSTED_PROXY_IPS = env_list("TRUSTED_PROXIES", "")
AXES_CLIENT_IP_CALLABLE = "home.staff_security.client_ip.client_ip"

# Staff two-step verification (TOTP, django-otp; home/staff_security/mfa.py). With STAFF_MFA_REQUIRED on,
# superusers and these groups must enrol an authenticator app and enter a code after each sign-in;
# anyone else (Editors) may enrol, and then enters codes too. Off here (development, tests: the
# README's demo logins work with a password alone); production.py turns it on by default.
STAFF_MFA_REQUIRED = env_bool("STAFF_MFA_REQUIRED", False)
STAFF_MFA_REQUIRED_GROUPS = ["Moderators", "Administrators"]
# The name authenticator apps show for the account.
OTP_TOTP_ISSUER = "Cedana blog"

# Complex page editors post many fields (Wagtail's own recommendation).
DATA_UPLOAD_MAX_NUMBER_FIELDS = 10_000
# Form data per request, files excluded (Django's default is 2.5 MB). An article edit posts about
# 13-18 bytes per English word (measured on the demo articles: Draftail's JSON, URL-encoded), and
# about 9 bytes per character of Chinese or Japanese text; the body's largest table is 100 x 12
# cells of 500 characters (blog/blocks.py). 5 MB holds a book-length article or several maximal
# tables, and still bounds what one request can make the server hold in memory.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("DATA_UPLOAD_MAX_MEMORY_SIZE", 5 * 1024 * 1024))

# Wagtail
WAGTAIL_SITE_NAME = "Cedana blog"
WAGTAILADMIN_BASE_URL = os.environ.get("WAGTAILADMIN_BASE_URL", "http://127.0.0.1:8000")
# Where readers reach the site ("scheme://host[:port]", no path): `load_demo` (so `make setup` and
# `make run`) gives the default Wagtail Site this host and port on every run, and every absolute
# URL (canonical, og:url/og:image, sitemap, robots.txt, feeds, API html_url, e-mail "view" links)
# is built from that Site. Wagtail's own default Site is localhost:80.
WAGTAIL_SITE_ROOT_URL = os.environ.get("WAGTAIL_SITE_ROOT_URL", WAGTAILADMIN_BASE_URL)
# Workflow e-mails (submitted to Moderators and superusers; approved and rejected to the submitter)
# come from DEFAULT_FROM_EMAIL and link to WAGTAILADMIN_BASE_URL. The backend is per environment:
# console in dev, locmem in tests, SMTP from the environment in production.
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "blog@localhost")
WAGTAILADMIN_NOTIFICATION_INCLUDE_SUPERUSERS = True
WAGTAILAPI_BASE_URL = os.environ.get("WAGTAILAPI_BASE_URL", WAGTAILADMIN_BASE_URL)
# 20 items a page at most. rest_framework is deliberately not an installed app, so the API
# answers JSON only (no browsable HTML forms).
WAGTAILAPI_LIMIT_MAX = 20
WAGTAILIMAGES_IMAGE_MODEL = "home.SiteImage"
# Requires alt text (the description), rejects images too small for card and social crops, and
# (through home.image_uploads.checks.ImageUploadForm) decodes each upload fully, so corrupt or truncated
# files are refused with a form error.
WAGTAILIMAGES_IMAGE_FORM_BASE = "home.image_uploads.forms.SiteImageForm"
# Days of per-day query counts that `searchpromotions_garbage_collect` keeps.
WAGTAILSEARCH_HITS_MAX_AGE = 90
# Documents in live use keep their file unless the user may publish what uses them (home/live_media.py).
WAGTAILDOCS_DOCUMENT_FORM_BASE = "home.live_media.SiteDocumentForm"
WAGTAILDOCS_EXTENSIONS = ["csv", "docx", "key", "odt", "pdf", "pptx", "rtf", "txt", "xlsx", "zip"]
WAGTAILDOCS_MAX_UPLOAD_SIZE = 10 * 1024 * 1024
# Documents go through Wagtail's serve view (privacy checks, CSP "default-src 'none'",
# nosniff) and always download as attachments: none is shown inline in the browser.
WAGTAILDOCS_SERVE_METHOD = "serve_view"
WAGTAILDOCS_INLINE_CONTENT_TYPES = []
WAGTAILDOCS_BLOCK_EMBEDDED_CONTENT = True
WAGTAILIMAGES_MAX_UPLOAD_SIZE = 10 * 1024 * 1024
# Pixel budgets (home/image_uploads/checks.py, docs/images.md). One frame (a still image) may have
# 40 megapixels, more than a 36 MP full-frame camera or a 24 MP phone gives, and under Pillow's
# 89.5 MP decompression-bomb warning. Wagtail's limit counts width x height x frames: 120 MP is an
# ordinary animation (1200x630 x 100 frames = 75.6 MP) with room to spare, and decoding it at
# upload takes about as long as one 40 MP photo.
IMAGE_MAX_FRAME_PIXELS = 40_000_000
WAGTAILIMAGES_MAX_IMAGE_PIXELS = 120_000_000
# "Very large": an image of more pixels has its missing renditions made by the background worker
# (home/image_renditions.py), and a page shows the original, scaled by the browser, until then.
# Source: benchmark of the ten card/hero/social renditions (blog/renditions.py) on this project's
# 2-core machine (Pillow 13, AVIF speed 8): 0.9 s of CPU for a 1.4 MP image, 2.4 s for a 12 MP
# one (4000x3000, a phone photo), 6.7 s for 36 MP (8000x4500); 12 MP keeps a request under about
# three seconds.
IMAGE_RENDITIONS_IN_REQUEST_MAX_PIXELS = 12_000_000
# Raster formats only: SVG can carry script and is not accepted.
WAGTAILIMAGES_EXTENSIONS = ["avif", "gif", "jpg", "jpeg", "png", "webp"]
# Renditions are offered as AVIF, then WebP, then PNG (the {% picture %} tags). On the site's
# 1200x675 illustrations AVIF quality 60 gave files the size of WebP 80 (23 KB against 21 KB;
# AVIF 80 gave 38 KB). libavif speed 8 rather than Pillow's 6: see home/upstream/willow.py.
WAGTAILIMAGES_AVIF_QUALITY = 60
WAGTAILIMAGES_AVIF_SPEED = 8
# Video embeds from YouTube and Vimeo only (VIDEO_EMBED_ORIGINS are the frames CSP allows).
WAGTAILEMBEDS_FINDERS = [
    {"class": "wagtail.embeds.finders.oembed", "providers": [youtube, vimeo]},
]
# No avatars from Gravatar: Wagtail asks for them over the page's own scheme, which the admin CSP
# refused on plain HTTP (tests/test_browser_admin_csp.py found it), and they tell Gravatar who
# uses the admin. Wagtail shows its default avatar, or the photo a user uploads.
WAGTAIL_GRAVATAR_PROVIDER_URL = None
# No calls from editors' browsers to wagtail.org for release news.
WAGTAIL_ENABLE_UPDATE_CHECK = False
WAGTAIL_DATE_FORMAT = "%Y-%m-%d"
WAGTAIL_DATETIME_FORMAT = "%Y-%m-%d %H:%M"

# Cards per listing page (blog index, topic pages), as in the seed: "Showing 12 of 22 posts".
BLOG_PAGE_SIZE = 12
# URLs per sitemap page (/sitemap-<page type>.xml?p=N; home/sitemaps.py). The protocol allows
# 50,000; 500 keeps a page under 100 ms of rendering when cold (about 0.12 ms per URL, measured
# at 10,000 articles on PostgreSQL, docs/performance.md).
SITEMAP_PAGE_SIZE = int(os.environ.get("SITEMAP_PAGE_SIZE", "500"))
# Make an article's card, hero, social and body-image renditions when it is published
# (blog/renditions.py), so the first reader does not wait; the test settings turn it off.
BLOG_RENDITIONS_ON_PUBLISH = True
# Where `manage.py load_demo` keeps the illustrations it draws (PNG files keyed by a hash of the
# drawing and of the drawing code), so a second load, or the test suite, does not draw them again.
# Unset: $XDG_CACHE_HOME/cedana-blog/illustrations (~/.cache/...); empty: draw every time.
DEMO_ILLUSTRATION_CACHE = os.environ.get("DEMO_ILLUSTRATION_CACHE")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {
        "console": {"class": "logging.StreamHandler"},
        # Hostile requests (a Host not in ALLOWED_HOSTS, an over-size body, a failed CSRF check:
        # Django's "django.security.*" loggers) are answered with a 4xx; anyone can send them, so
        # they are logged as one warning per interval with a count, not a traceback each.
        "security_console": {"class": "logging.StreamHandler", "filters": ["hostile_requests_once_per_interval"]},
    },
    "filters": {
        # A Redis outage: one warning per interval, not a traceback per cache call (home/operations/log_throttle.py).
        "once_per_interval": {
            "()": "home.operations.log_throttle.OncePerInterval",
            "seconds": float(os.environ.get("OUTAGE_LOG_INTERVAL_SECONDS", "60")),
        },
        "hostile_requests_once_per_interval": {
            "()": "home.operations.log_throttle.OncePerInterval",
            "seconds": float(os.environ.get("OUTAGE_LOG_INTERVAL_SECONDS", "60")),
        },
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        "django_redis.cache": {"filters": ["once_per_interval"]},
        # A handler's filter (not a logger's) sees the records of every "django.security.<error>" child.
        "django.security": {"handlers": ["security_console"], "propagate": False},
        # Django's default config gives "django" its own console handler; route it through ours
        # only, so each line prints once.
        "django": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO"), "propagate": False},
        "django.db.backends": {"level": "INFO"},
        # One line per background task run is noise at INFO.
        "django_tasks": {"level": "WARNING"},
        "wagtail.tasks": {"level": "WARNING"},
    },
}

# Background tasks (django-tasks, which Wagtail 8 uses for reference indexing, file deletion and
# similar work). In-process by default; TASKS_BACKEND=database queues them in the database for
# `manage.py db_worker` (the Procfile's worker), so web requests never wait on them.
TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
if os.environ.get("TASKS_BACKEND", "immediate") == "database":
    TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
elif os.environ.get("TASKS_BACKEND", "immediate") != "immediate":
    raise ImproperlyConfigured("TASKS_BACKEND must be 'immediate' or 'database'.")


def search_backends() -> dict:
    """Wagtail search backends: the database backend (PostgreSQL full-text search, SQLite FTS5)
    unless SEARCH_URL names an Elasticsearch/OpenSearch cluster, e.g.
    SEARCH_URL=http://search:9200 SEARCH_BACKEND=elasticsearch8 (or elasticsearch7/9,
    opensearch2/3) SEARCH_INDEX=cedana. Page models' search_fields serve every backend."""
    url = os.environ.get("SEARCH_URL")
    if not url:
        # Wagtail's database backend (search/backends.py adds ranking fixes for SQLite). PostgreSQL
        # uses English stemming ("checkpointing" finds "checkpoints"); SQLite ignores this value and
        # stems with FTS5's porter tokenizer (search/migrations/0003_sqlite_porter_stemming.py).
        return {"default": {"BACKEND": "search.backends", "SEARCH_CONFIG": "english"}}
    engine = os.environ.get("SEARCH_BACKEND", "elasticsearch8")
    allowed = {"elasticsearch7", "elasticsearch8", "elasticsearch9", "opensearch2", "opensearch3"}
    if engine not in allowed:
        raise ImproperlyConfigured(f"SEARCH_BACKEND must be one of {sorted(allowed)}, got {engine!r}")
    return {
        "default": {
            "BACKEND": f"wagtail.search.backends.{engine}",
            "URLS": [url],
            "INDEX": os.environ.get("SEARCH_INDEX", "cedana"),
            "TIMEOUT": 5,
            "AUTO_UPDATE": True,
        }
    }


WAGTAILSEARCH_BACKENDS = search_backends()

# Caching (home/caching/page_cache.py, home/caching/invalidation.py). "renditions" is Wagtail's
# image rendition cache. The embedded default: Django's file-based cache under CACHE_DIR (default
# var/cache/; it counts its files to cull once every 50 writes, not on every write:
# home/upstream/django.py), which every
# process on the machine shares (web workers, the scheduler, `make run`'s server), so the page
# cache and its invalidation work without Redis. production.py switches to Redis when REDIS_URL
# is set (several machines). MAX_ENTRIES: Django culls a third of the files past it (default 300,
# fewer than one page of every article and listing).
# Keys are prefixed by the database's identity, so that a page cached over one database is never
# served over another (DATABASE_URL switched between SQLite and PostgreSQL, a test server).
CACHE_DIR = Path(os.environ.get("CACHE_DIR") or BASE_DIR / "var" / "cache")
DATABASE_CACHE_PREFIX = hashlib.sha256(
    repr([DATABASES["default"].get(part) for part in ("ENGINE", "NAME", "HOST", "PORT")]).encode()
).hexdigest()[:12]
CACHES = {
    "default": {
        "BACKEND": "home.upstream.django.SparselyCulledFileBasedCache",
        "LOCATION": str(CACHE_DIR / "default"),
        "KEY_PREFIX": DATABASE_CACHE_PREFIX,
        "OPTIONS": {"MAX_ENTRIES": 20_000},
    },
    "renditions": {
        "BACKEND": "home.upstream.django.SparselyCulledFileBasedCache",
        "LOCATION": str(CACHE_DIR / "renditions"),
        "KEY_PREFIX": DATABASE_CACHE_PREFIX,
        "TIMEOUT": 60 * 60 * 24 * 7,
        "OPTIONS": {"MAX_ENTRIES": 20_000},
    },
}
# Seconds a rendered page stays in Django's cache for anonymous readers (0: off). Every process
# sees a publish through the shared cache's generation token (home/caching/page_cache.py).
PAGE_CACHE_SECONDS = int(os.environ.get("PAGE_CACHE_SECONDS", "600"))
# Bytes of cached pages each process also keeps in its own memory for the current generation, so
# a hit reads only the generation token from the shared cache (home/caching/page_cache.py); 0: off.
# 32 MiB holds the demo's every page ten times over (about 120 pages, 3.4 MB, 2026-12-02) or
# about 1,100 pages of its mean size (28 KB): at 10,000 articles, the most recently read ones.
# Eight workers (gunicorn.conf.py's cap) hold at most 256 MiB more.
PAGE_CACHE_LOCAL_BYTES = int(os.environ.get("PAGE_CACHE_LOCAL_BYTES", str(32 * 1024 * 1024)))
# On Redis, whether each process keeps the page-cache generation token and lets Redis's key tracking
# tell it of changes instead of reading the token on every request (home/caching/generation.py):
# "local" (the default) only for a Redis on this machine (a loopback address or a Unix socket),
# where a change is seen on the next request as with a read; "on" for any Redis (on another
# machine a change can then be seen a network delivery later: a lost packet, a retransmit); "off".
PAGE_CACHE_TOKEN_WATCH = os.environ.get("PAGE_CACHE_TOKEN_WATCH", "local")
if PAGE_CACHE_TOKEN_WATCH not in ("local", "on", "off"):
    raise ImproperlyConfigured(
        f"PAGE_CACHE_TOKEN_WATCH must be 'local', 'on' or 'off', got {PAGE_CACHE_TOKEN_WATCH!r}"
    )
# A search's rendered results (search/views.py) are cached this long within one page-cache
# generation; 0 turns it off.
SEARCH_RESULTS_CACHE_SECONDS = int(os.environ.get("SEARCH_RESULTS_CACHE_SECONDS", "120"))
# Cache-Control for shared caches (CDN) on public pages: s-maxage and stale-while-revalidate.
CDN_CACHE_SECONDS = int(os.environ.get("CDN_CACHE_SECONDS", "300"))
STALE_WHILE_REVALIDATE_SECONDS = int(os.environ.get("STALE_WHILE_REVALIDATE_SECONDS", "60"))
# CDN purging (Wagtail's frontend cache backends), from the environment; empty: no CDN.
WAGTAILFRONTENDCACHE = {}
if os.environ.get("FRONTEND_CACHE_VARNISH_URL"):
    WAGTAILFRONTENDCACHE["varnish"] = {
        "BACKEND": "wagtail.contrib.frontend_cache.backends.HTTPBackend",
        "LOCATION": os.environ["FRONTEND_CACHE_VARNISH_URL"],
    }
if os.environ.get("FRONTEND_CACHE_CLOUDFLARE_ZONE_ID"):
    WAGTAILFRONTENDCACHE["cloudflare"] = {
        "BACKEND": "wagtail.contrib.frontend_cache.backends.CloudflareBackend",
        "BEARER_TOKEN": os.environ.get("FRONTEND_CACHE_CLOUDFLARE_BEARER_TOKEN", ""),
        "ZONEID": os.environ["FRONTEND_CACHE_CLOUDFLARE_ZONE_ID"],
    }
if os.environ.get("FRONTEND_CACHE_CLOUDFRONT_DISTRIBUTION_ID"):
    # Needs boto3 installed (not a dependency: only deployments on CloudFront want it).
    WAGTAILFRONTENDCACHE["cloudfront"] = {
        "BACKEND": "wagtail.contrib.frontend_cache.backends.CloudfrontBackend",
        "DISTRIBUTION_ID": os.environ["FRONTEND_CACHE_CLOUDFRONT_DISTRIBUTION_ID"],
    }

# Browser features no page of the blog uses, disabled for every origin (django-permissions-policy
# sends them as "camera=(), ..."). Feature names:
# https://github.com/w3c/webappsec-permissions-policy/blob/main/features.md
PERMISSIONS_POLICY = {
    feature: []
    for feature in (
        "accelerometer",
        "autoplay",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "usb",
        "xr-spatial-tracking",
    )
}
