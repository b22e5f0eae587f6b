"""Accounts and their API keys."""

from __future__ import annotations

from datetime import date

from django.conf import settings
from django.db import models
from django.utils import timezone

from core.api.ids import new_id

ENV_TEST = "test"
ENV_LIVE = "live"
ENVIRONMENTS = [(ENV_TEST, "test"), (ENV_LIVE, "live")]

PLAN_FREE = "free"
PLAN_PAID = "paid"
PLANS = [(PLAN_FREE, "free"), (PLAN_PAID, "paid")]

ENTITLEMENT_ACTIVE = "active"
ENTITLEMENT_INACTIVE = "inactive"
ENTITLEMENTS = [(ENTITLEMENT_ACTIVE, "active"), (ENTITLEMENT_INACTIVE, "inactive")]

# Contract part 5 scope table; new keys carry every scope.
ALL_SCOPES = (
    "vessel:screen",
    "vessel:monitor",
    "cargo:screen",
    "voyage:score",
    "voyage:monitor",
    "webhooks:manage",
    "usage:read",
    "logs:read",
)


def _account_id() -> str:
    return new_id("acc")


def _key_id() -> str:
    return new_id("key")


class Account(models.Model):
    id = models.CharField(primary_key=True, max_length=40, default=_account_id, editable=False)
    email = models.EmailField(unique=True)
    name = models.CharField(max_length=200, blank=True)
    plan = models.CharField(max_length=10, choices=PLANS, default=PLAN_FREE)
    opened_on = models.DateField(default=date.today)
    entitlement = models.CharField(max_length=10, choices=ENTITLEMENTS, default=ENTITLEMENT_ACTIVE)
    pilot_screening_total = models.PositiveIntegerField(
        null=True, blank=True, help_text="A pilot's own one-time live screening total; overrides the plan allowance."
    )
    appended_digit_correction = models.BooleanField(
        default=False, help_text="Screen the first seven digits of an 8-digit IMO whose pipeline appends a digit."
    )
    paused_reason = models.CharField(max_length=300, blank=True, help_text="Non-empty: the account is paused (402).")
    paused_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    # The browser login (django.contrib.auth User, username = the e-mail address) of an account opened
    # through sign-up; empty for accounts an operator opened with `manage.py issue_key`.
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="service_account",
        help_text="The sign-up login that manages this account's keys.",
    )

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.email

    @property
    def is_paused(self) -> bool:
        return bool(self.paused_reason)


class ApiKey(models.Model):
    """Stored only as an HMAC of the secret under a server pepper, plus a lookup prefix."""

    id = models.CharField(primary_key=True, max_length=40, default=_key_id, editable=False)
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="keys")
    environment = models.CharField(max_length=4, choices=ENVIRONMENTS)
    label = models.CharField(max_length=100, blank=True)
    lookup = models.CharField(max_length=16, unique=True, help_text="First characters of the secret part.")
    secret_hash = models.CharField(max_length=64)
    pepper_id = models.CharField(max_length=16)
    scopes = models.JSONField(default=list)
    allowed_ips = models.JSONField(default=list, blank=True, help_text="IPs or CIDR ranges (v4/v6); empty: any.")
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = "API key"
        verbose_name_plural = "API keys"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.display_prefix}… ({self.account.email})"

    @property
    def display_prefix(self) -> str:
        return f"svc_{self.environment}_{self.lookup}"
