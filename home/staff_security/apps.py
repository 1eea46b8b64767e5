from django.apps import AppConfig


class StaffSecurityConfig(AppConfig):
    """Two-step verification for staff and the client address behind the proxy."""

    name = "home.staff_security"
    label = "staff_security"
    verbose_name = "Staff security"
