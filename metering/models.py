"""What the keyed lane counts and keeps: allowances drawn, screenings metered, idempotency keys,
the access log and the operator switches. Their tables kept the names they had under accounts."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from accounts.models import ENVIRONMENTS, Account


class AllowanceKind(models.TextChoices):
    """What an allowance counts (contract part 8)."""

    SCREENING = "screening"
    ASSESSMENT = "assessment"


class QuotaCounter(models.Model):
    """Units drawn on one allowance in one period. period is 'YYYY-MM' or 'once'."""

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="quota_counters")
    environment = models.CharField(max_length=4, choices=ENVIRONMENTS)
    kind = models.CharField(max_length=12, choices=AllowanceKind.choices)
    period = models.CharField(max_length=7)
    used = models.PositiveIntegerField(default=0)

    class Meta:
        db_table = "accounts_quotacounter"
        constraints = [
            models.UniqueConstraint(fields=["account", "environment", "kind", "period"], name="uniq_quota_counter")
        ]


class MeteringEvent(models.Model):
    """One entry of the allowance ledger: every charge, reservation, settlement, refund and correction.

    For every (account, environment, kind, period) the entries' units sum to QuotaCounter.used: each
    is written in the transaction, and by the same call (metering.quota), that moves the counter.
    The pace rules (metering.pace) count the CHARGE entries of kind screening: one per screening record
    the customer caused, whatever the door; quota_pace counts the charged ones (units > 0).
    """

    class Reason(models.TextChoices):
        # A screening record the customer caused (REST, MCP, batch item, vessel monitor run, cargo
        # screening) or an assessment: 1 unit, or 0 for an INCOMPLETE. The pace rules count these.
        CHARGE = "charge"
        # The service's own re-screen of an INCOMPLETE (origin resolution): 1 unit when it reaches a
        # verdict, else 0. Not the customer's: the pace rules do not count it.
        RESCREEN = "rescreen"
        # The units a job (screening batch, voyage batch) holds for its accepted items at creation.
        RESERVATION = "reservation"
        # A batch item settling against its job's reservation: -1 when the item's own record draws its
        # unit (a screening batch hull's verdict), 0 when the reserved unit pays for the result (a route).
        SETTLEMENT = "settlement"
        # Units given back (negative): a failed, deadline or attempts-exhausted item, a batch hull that
        # came back INCOMPLETE, a cargo screening that owes less than its hull drew.
        REFUND = "refund"
        # The unit a cargo screening owes beyond its hull's (the hull came back INCOMPLETE).
        TOPUP = "topup"
        # A correction of the counter: an operator's edit, or the opening balance the ledger migration
        # wrote for what the entries before it did not record (refunds).
        ADJUSTMENT = "adjustment"

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="metering_events")
    environment = models.CharField(max_length=4, choices=ENVIRONMENTS)
    kind = models.CharField(max_length=12, choices=AllowanceKind.choices)
    at = models.DateTimeField(default=timezone.now, db_index=True)
    imo = models.CharField(max_length=16, blank=True)
    units = models.SmallIntegerField(default=1)  # signed: refunds and settlements are negative
    reason = models.CharField(max_length=12, choices=Reason.choices, default=Reason.CHARGE)
    period = models.CharField(max_length=7, blank=True)  # the QuotaCounter period drawn on: 'YYYY-MM' or 'once'

    class Meta:
        db_table = "accounts_meteringevent"
        indexes = [
            # The pace rules' read: an account's newest CHARGE entries of kind screening.
            models.Index(fields=["account", "kind", "reason", "at"], name="metering_ledger_pace_idx")
        ]


class IdempotencyRecord(models.Model):
    STATE_RUNNING = "running"
    STATE_COMPLETED = "completed"

    account = models.ForeignKey(Account, on_delete=models.CASCADE)
    environment = models.CharField(max_length=4, choices=ENVIRONMENTS)
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)
    state = models.CharField(max_length=10, default=STATE_RUNNING)
    owner = models.CharField(max_length=64, help_text="Process that claimed the key, released on shutdown.")
    status_code = models.PositiveSmallIntegerField(null=True)
    headers = models.JSONField(default=dict)
    body = models.BinaryField(null=True)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        db_table = "accounts_idempotencyrecord"
        constraints = [models.UniqueConstraint(fields=["account", "environment", "key"], name="uniq_idempotency_key")]


class AccessLogEntry(models.Model):
    account = models.ForeignKey(Account, on_delete=models.CASCADE)
    environment = models.CharField(max_length=4, choices=ENVIRONMENTS)
    id = models.CharField(primary_key=True, max_length=40)
    at = models.DateTimeField()
    method = models.CharField(max_length=8)
    path = models.CharField(max_length=500)
    status = models.PositiveSmallIntegerField()
    code = models.CharField(max_length=40, blank=True)
    request_id = models.CharField(max_length=128)
    key_prefix = models.CharField(max_length=32)
    client_ip = models.GenericIPAddressField(null=True)
    duration_ms = models.FloatField()
    units_charged = models.SmallIntegerField(default=0)

    class Meta:
        db_table = "accounts_accesslogentry"
        indexes = [models.Index(fields=["account", "environment", "at"], name="accounts_ac_account_6bf551_idx")]
        verbose_name_plural = "access log entries"


class ServiceSwitches(models.Model):
    """Operator pause switches (a single row, edited in the admin)."""

    api_paused = models.BooleanField(default=False, help_text="Keyed API answers 503 api_paused.")
    api_paused_retry_after = models.PositiveIntegerField(default=300)
    keyless_paused = models.BooleanField(default=False, help_text="Keyless check answers 503 keyless_paused.")
    keyless_paused_retry_after = models.PositiveIntegerField(default=300)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "accounts_serviceswitches"
        verbose_name = "service switches"
        verbose_name_plural = "service switches"

    def __str__(self) -> str:
        return "Service switches"
