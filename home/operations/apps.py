from django.apps import AppConfig


class OperationsConfig(AppConfig):
    """Backups, health probes and the scheduled-publishing loop."""

    name = "home.operations"
    label = "operations"
    verbose_name = "Operations"
