from django.apps import AppConfig


class HomeConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "home"
    verbose_name = "Home and site"

    def ready(self):
        from . import upstream
        from .caching import fragments
        from .caching import invalidation as cache_invalidation

        cache_invalidation.connect()
        fragments.connect()
        upstream.install()
