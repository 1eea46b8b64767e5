"""Wagtail hooks of operations: the dashboard panel of failed scheduled revisions."""

from wagtail import hooks

from .dashboard_panels import ScheduledPublishFailuresPanel


@hooks.register("construct_homepage_panels")
def add_scheduled_publish_failures_panel(request, panels):
    panels.append(ScheduledPublishFailuresPanel())
