from django.apps import AppConfig


class SearchConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "search"
    label = "site_search"
    verbose_name = "Site search"

    def ready(self):
        from . import freshness

        freshness.connect()
