"""Workarounds for defects and missing settings in Wagtail, Willow, modelsearch, Django, django-redis
and CPython.

The one place such code lives (developers' guide, "Engineering standards"): one module per
upstream project, each workaround with a comment naming the upstream issue or the text we will
send (docs/upstream.md), and a test in tests/test_home_upstream.py that fails once upstream
fixes it, so that an upgrade tells us to delete the workaround. ``install()`` runs from
``HomeConfig.ready``; ``cpython`` installs nothing, its helper is called where a process runs
(gunicorn's worker class, the test session), and ``django_redis`` is a cache backend that
config/settings/production.py names.
"""


def install() -> None:
    """Apply every workaround; idempotent (each module's ``install`` may run more than once)."""
    from . import django, wagtail, willow

    django.install()
    wagtail.install()
    willow.install()
