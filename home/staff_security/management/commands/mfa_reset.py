"""``manage.py mfa_reset USERNAME``: remove a user's authenticator apps (a lost or replaced phone)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from django_otp.plugins.otp_totp.models import TOTPDevice


class Command(BaseCommand):
    help = (
        "Remove USERNAME's TOTP devices. At their next sign-in they enrol a new authenticator app "
        "(required for Moderators and Administrators when STAFF_MFA_REQUIRED is on)."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")

    def handle(self, *args, username: str, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No user named {username!r}.")
        deleted, _ = TOTPDevice.objects.filter(user=user).delete()
        self.stdout.write(f"Removed {deleted} authenticator app(s) of {username}.")
