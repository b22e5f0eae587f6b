"""The durable event log. Deliveries to endpoints are built on top of it."""

from __future__ import annotations

from django.db import models

from accounts.tenancy import TenantModel
from core.api.ids import new_id


def _event_id() -> str:  # referenced by migration 0001
    return new_id("evt")


class Event(TenantModel):
    """One entry of the event log, written in the transaction that causes it."""

    ID_PREFIX = "evt"

    type = models.CharField(max_length=60, db_index=True)
    data = models.JSONField()

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["account", "environment", "created_at"])]

    def __str__(self) -> str:
        return f"{self.type} {self.id}"


class WebhookEndpoint(TenantModel):
    """A public HTTPS URL that receives signed events of its environment.

    `event_types` empty means every type; a listed set receives only those types (a type added to
    the service later is never sent to an endpoint that listed its own). `secret` signs deliveries
    (HMAC-SHA256); it is returned once, at creation.
    """

    ID_PREFIX = "whe"

    url = models.CharField(max_length=2000)
    event_types = models.JSONField(default=list, blank=True)
    enabled = models.BooleanField(default=True)
    description = models.CharField(max_length=200, blank=True)
    secret = models.CharField(max_length=80, editable=False)
    # During a rotation's overlap both secrets sign every delivery (`v1=` twice, the new one first).
    previous_secret = models.CharField(max_length=80, blank=True, editable=False)
    previous_secret_expires_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.CharField(max_length=300, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["account", "environment", "created_at"])]

    def __str__(self) -> str:
        return f"{self.id} {self.url}"

    def receives(self, event_type: str) -> bool:
        return self.enabled and (not self.event_types or event_type in self.event_types)


class Delivery(TenantModel):
    """One event to one endpoint: attempted until a 2xx (`delivered`) or until its attempts run out (`dead`).

    pending   waiting for its next attempt (`next_attempt_at`); a worker claims it when due.
    sending   an attempt is in flight under a lease (`lease_expires_at`); a worker lost mid-attempt
              is recorded as a lost attempt by the sweep, and the delivery is retried.
    delivered a 2xx came back.
    dead      the retry schedule ran out, the receiver answered 410 (the endpoint is disabled) or
              the endpoint was disabled before the attempt.

    `round_attempts` counts the attempts since the delivery was created or last redelivered: the
    retry schedule starts again on a redelivery; `attempt_count` counts every attempt.
    """

    ID_PREFIX = "whd"

    class Status(models.TextChoices):
        PENDING = "pending"
        SENDING = "sending"
        DELIVERED = "delivered"
        DEAD = "dead"

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="+")
    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    event_type = models.CharField(max_length=60)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempt_count = models.PositiveSmallIntegerField(default=0)
    round_attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    dispatched_at = models.DateTimeField(null=True, blank=True, help_text="When a task was last sent for it")
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "deliveries"
        indexes = [
            models.Index(fields=["account", "environment", "id"]),
            models.Index(fields=["status", "next_attempt_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.id} {self.event_type} -> {self.endpoint_id} ({self.status})"


class DeliveryAttempt(models.Model):
    """One POST of a delivery: when, how long, what came back (a bounded excerpt) or what failed."""

    class Trigger(models.TextChoices):
        AUTOMATIC = "automatic"  # the first attempt and the scheduled retries
        REDELIVERY = "redelivery"  # the first attempt after POST .../redeliver

    class Outcome(models.TextChoices):
        IN_PROGRESS = "in_progress"
        SUCCEEDED = "succeeded"  # 2xx
        FAILED = "failed"  # another status, a connection error, a timeout, a refused address
        LOST = "lost"  # the worker stopped during the attempt

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempts")
    number = models.PositiveSmallIntegerField()
    trigger = models.CharField(max_length=12, choices=Trigger.choices, default=Trigger.AUTOMATIC)
    outcome = models.CharField(max_length=12, choices=Outcome.choices, default=Outcome.IN_PROGRESS)
    started_at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True)
    response_excerpt = models.TextField(blank=True)

    class Meta:
        ordering = ["number"]
        constraints = [models.UniqueConstraint(fields=["delivery", "number"], name="one_attempt_per_number")]

    def __str__(self) -> str:
        return f"{self.delivery_id} #{self.number} {self.outcome}"
