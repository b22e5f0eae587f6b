"""What the keyed lane counts and keeps: allowances drawn, screenings metered, idempotency keys,
the access log and the operator switches. Their tables kept the names they had under accounts."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from accounts.models import ENVIRONMENTS, Account


class QuotaCounter(models.Model):
    """Units drawn on one allowance in one period. period is 'YYYY-MM' or 'once'."""

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="quota_counters")
    environment = models.CharField(max_length=4, choices=ENVIRONMENTS)
    kind = models.CharField(max_length=12)  # screening | assessment
    period = models.CharField(max_length=7)
    used = models.PositiveIntegerField(default=0)

    class Meta:
        db_table = "accounts_quotacounter"
        constraints = [
            models.UniqueConstraint(fields=["account", "environment", "kind", "period"], name="uniq_quota_counter")
        ]


class MeteringEvent(models.Model):
    """One screening (charged or not) — the history pace and quota_pace are computed from."""

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="metering_events")
    environment = models.CharField(max_length=4, choices=ENVIRONMENTS)
    kind = models.CharField(max_length=12)
    at = models.DateTimeField(default=timezone.now, db_index=True)
    imo = models.CharField(max_length=16, blank=True)
    units = models.SmallIntegerField(default=1)

    class Meta:
        db_table = "accounts_meteringevent"
        indexes = [models.Index(fields=["account", "kind", "at"], name="accounts_me_account_a78580_idx")]


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
