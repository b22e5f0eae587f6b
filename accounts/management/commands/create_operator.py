"""manage.py create_operator --username NAME --email EMAIL: an admin (back-office) user."""

from __future__ import annotations

import os
import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = (
        "Create or update a Django admin operator. The password comes from --password, the "
        "OPERATOR_PASSWORD environment variable, or is generated and printed once."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--username", required=True)
        parser.add_argument("--email", default="")
        parser.add_argument("--password", default=None)

    def handle(self, *args, **options) -> None:
        password = options["password"] or os.environ.get("OPERATOR_PASSWORD") or secrets.token_urlsafe(16)
        user_model = get_user_model()
        user, created = user_model.objects.get_or_create(
            username=options["username"], defaults={"email": options["email"]}
        )
        user.is_staff = True
        user.is_superuser = True
        user.set_password(password)
        user.save()
        verb = "Created" if created else "Updated"
        self.stdout.write(f"{verb} operator {user.username}. Admin at /admin/.")
        if not options["password"] and not os.environ.get("OPERATOR_PASSWORD"):
            self.stdout.write(f"Password (shown once): {password}")
