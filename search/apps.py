from django.apps import AppConfig


class SearchConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "search"
    label = "site_search"
    verbose_name = "Site search"

    def ready(self):
        from django.db.models.signals import post_delete, post_save

        from wagtail.contrib.search_promotions.models import SearchPromotion

        from home.operations.maintenance import register_daily

        from . import freshness
        from .retention import trim_search_log

        freshness.connect()
        # Searches trim the log past its count limit; the scheduler applies the age limit daily.
        register_daily("trim_search_log", trim_search_log)
        # The search page remembers which queries have editors' picks (``views.promoted_queries``)
        # for one page-cache generation; a changed pick starts a new one.
        post_save.connect(_picks_changed, sender=SearchPromotion, dispatch_uid="search-picks-saved")
        post_delete.connect(_picks_changed, sender=SearchPromotion, dispatch_uid="search-picks-deleted")


def _picks_changed(sender, **kwargs):
    from home.caching.invalidation import invalidate

    invalidate(cdn=None)  # no cached page shows picks: only the generation changes
