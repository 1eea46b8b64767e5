"""django-redis: a failed ``get_many`` answers every caller with one shared dict.

``RedisCache.get_many`` is declared ``@omit_exception(return_value={})``: with
``IGNORE_EXCEPTIONS`` (production's setting) a read that fails (Redis down) returns that one dict
object, made once when the module was imported, to every failed read of the process. A caller
that adds to what it got (ours: ``home.caching.fragments.versions`` adds the tokens it made)
hands those entries to every later failed read of any alias: Wagtail's
``AbstractImage.find_existing_renditions`` then took our version strings for renditions
(``AttributeError: 'str' object has no attribute 'filter_spec'``), a 500 for every page with an
image until Redis came back (seen under ``make faults``, 4 December 2026).

``RedisCache`` below is production's backend for both cache aliases (config/settings/production.py):
``get_many`` returns a new empty dict where django-redis returns an empty one, so no caller ever
holds the shared one. docs/upstream.md, "django-redis: a failed get_many returns one shared dict".
"""

from django_redis.cache import RedisCache as DjangoRedisCache


class RedisCache(DjangoRedisCache):
    """django-redis's ``RedisCache`` whose ``get_many`` never returns django-redis's shared empty
    dict (a failed read, Redis down): ``{key: value}`` as django-redis found them, a new dict when
    none was found."""

    def get_many(self, *args, **kwargs):
        return super().get_many(*args, **kwargs) or {}
