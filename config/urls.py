"""URL configuration: admin, documents, search, sitemap, robots.txt, the API, then Wagtail's page tree."""

from django.urls import include, path

from wagtail import urls as wagtail_urls
from wagtail.admin import urls as wagtailadmin_urls
from wagtail.documents import urls as wagtaildocs_urls

from blog import reviewer_links
from config.api import api_router
from home import sitemaps, theme
from home import views as home_views
from home.dev_media import dev_media_urlpatterns
from home.operations import health
from home.upstream import wagtail as upstream_wagtail
from search import views as search_views

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    # Wagtail's tag autocomplete with a NUL byte in the term answered, not a 500 (home/upstream/wagtail.py).
    path("admin/tag-autocomplete/", upstream_wagtail.nul_free_tag_autocomplete),
    path("admin/tag-autocomplete/<slug:app_name>/<slug:model_name>/", upstream_wagtail.nul_free_tag_autocomplete),
    path("admin/", include(wagtailadmin_urls)),
    path("documents/", include(wagtaildocs_urls)),
    path("search/", search_views.search, name="search"),
    path("review/<str:token>/", reviewer_links.review, name="reviewer_link"),
    path("sitemap.xml", sitemaps.index, name="sitemap"),
    path("sitemap-<str:section>.xml", sitemaps.section, name="sitemap_section"),
    path("robots.txt", home_views.robots_txt, name="robots_txt"),
    path("favicon.ico", home_views.favicon, name="favicon"),
    path("theme/", theme.choose_theme, name="theme"),
    path("theme.css", theme.theme_stylesheet, name="theme_stylesheet"),
    path("api/v2/", api_router.urls),
    path("search/autocomplete/", search_views.autocomplete, name="search_autocomplete"),
]

# Static files need no URL here: WhiteNoise serves them, from the finders when DEBUG is on.
# Uploaded media in development only, documents left out (home/dev_media.py).
urlpatterns += dev_media_urlpatterns()

urlpatterns += [path("", include(wagtail_urls))]

# Over-size form posts get the explanatory 413 page (home/request_limits.py).
handler400 = "home.request_limits.bad_request"

# A database outage is a 503 with Retry-After, other errors Django's 500 (home/operations/outages.py).
handler500 = "home.operations.outages.server_error"
