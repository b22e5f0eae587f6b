"""manage.py issue_key --email EMAIL --environment test|live [...]: the key alone on the last line."""

from __future__ import annotations

from datetime import date

from django.core.management.base import BaseCommand, CommandError

from accounts.models import ALL_SCOPES, ApiKey
from accounts.services import KeyRequestError, issue_key, revoke_key


class Command(BaseCommand):
    help = (
        "Create the account if needed and issue an API key for it. The key is printed once, "
        "alone on the last line of stdout; only its hash is stored."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--email", required=True, help="Account e-mail (created when new).")
        parser.add_argument("--environment", required=True, choices=["test", "live"], help="Key environment.")
        parser.add_argument(
            "--scopes",
            nargs="*",
            default=None,
            metavar="SCOPE",
            help=f"Scopes (default: every scope): {' '.join(ALL_SCOPES)}",
        )
        parser.add_argument(
            "--opened",
            type=date.fromisoformat,
            default=None,
            metavar="YYYY-MM-DD",
            help="Account opening date (decides the live screening allowance).",
        )
        parser.add_argument("--plan", choices=["free", "paid"], default=None, help="Account plan (default free).")
        parser.add_argument(
            "--allowed-ips",
            nargs="*",
            default=[],
            metavar="IP_OR_CIDR",
            help="Restrict the key to these addresses or ranges (v4/v6).",
        )
        parser.add_argument("--label", default="", help="A label shown in the admin.")
        parser.add_argument(
            "--replace-label",
            action="store_true",
            help="Revoke the account's other keys with the same label first (bin/run's demo key).",
        )

    def handle(self, *args, **options) -> None:
        if options["replace_label"]:
            for old in ApiKey.objects.filter(
                account__email=options["email"].strip().lower(), label=options["label"], revoked_at__isnull=True
            ):
                revoke_key(old)
        try:
            account, key, raw = issue_key(
                email=options["email"],
                environment=options["environment"],
                scopes=options["scopes"],
                opened_on=options["opened"],
                plan=options["plan"],
                allowed_ips=options["allowed_ips"],
                label=options["label"],
            )
        except KeyRequestError as exc:
            raise CommandError(str(exc)) from exc
        self.stderr.write(f"Issued {key.display_prefix}… for {account.email} ({key.environment}); shown once:")
        self.stdout.write(raw)
