"""Voyage assessments (immutable documents) and voyage assessment batches."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from accounts.models import ENVIRONMENTS, Account
from config.api.ids import new_id


def _assessment_id() -> str:
    return new_id("vas")


def _batch_id() -> str:
    return new_id("vab")


def _item_id() -> str:
    return new_id("vai")


class VoyageAssessment(models.Model):
    """An issued assessment; `document` is the JSON body as issued, replayed byte-for-byte."""

    id = models.CharField(primary_key=True, max_length=40, default=_assessment_id, editable=False)
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="voyage_assessments")
    environment = models.CharField(max_length=4, choices=ENVIRONMENTS)
    origin_locode = models.CharField(max_length=5)
    dest_locode = models.CharField(max_length=5)
    score = models.PositiveSmallIntegerField()
    risk_level = models.CharField(max_length=12)
    document = models.BinaryField()
    assessed_at = models.DateTimeField()
    expires_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["account", "environment", "assessed_at"])]


class VoyageBatch(models.Model):
    STATUS_QUEUED = "queued"
    STATUS_RUNNING = "running"
    STATUS_COMPLETED = "completed"
    STATUS_PARTIAL = "partial"
    STATUS_FAILED = "failed"
    TERMINAL = (STATUS_COMPLETED, STATUS_PARTIAL, STATUS_FAILED)
    OPEN = (STATUS_QUEUED, STATUS_RUNNING)

    id = models.CharField(primary_key=True, max_length=40, default=_batch_id, editable=False)
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="voyage_batches")
    environment = models.CharField(max_length=4, choices=ENVIRONMENTS)
    status = models.CharField(max_length=10, default=STATUS_QUEUED)
    customer_reference = models.CharField(max_length=200, blank=True)
    item_count = models.PositiveSmallIntegerField(default=0)
    accepted_count = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["status", "created_at"])]


class VoyageBatchItem(models.Model):
    """One route of a batch: queued -> running (leased to one worker) -> succeeded or failed.

    A worker claims a queued item by moving it to running with a lease and one more attempt; the
    attempt number fences the claim, so only the worker holding the current attempt can settle it.
    A queued item's lease is when the sweep re-sends its message; a running item's lease is when
    the sweep gives it up for lost and queues it again.
    """

    STATUS_QUEUED = "queued"
    STATUS_RUNNING = "running"
    STATUS_REJECTED = "rejected"
    STATUS_SUCCEEDED = "succeeded"
    STATUS_FAILED = "failed"
    OPEN = (STATUS_QUEUED, STATUS_RUNNING)
    TERMINAL = (STATUS_REJECTED, STATUS_SUCCEEDED, STATUS_FAILED)

    id = models.CharField(primary_key=True, max_length=40, default=_item_id, editable=False)
    batch = models.ForeignKey(VoyageBatch, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=10, default=STATUS_QUEUED)
    request = models.JSONField()
    assessment = models.ForeignKey(VoyageAssessment, null=True, blank=True, on_delete=models.SET_NULL)
    error = models.JSONField(null=True, blank=True)
    reserved_unit = models.BooleanField(default=False)
    attempts = models.PositiveSmallIntegerField(default=0)
    lease_expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["position"]


class LayerSnapshot(models.Model):
    """A loaded copy of a risk-layer source (piracy incidents, country indicators, EEZ polygons).

    `payload` holds the parsed rows as JSON; the newest active row per layer serves. A failed load
    is kept as a failed row with its reason, and the previous active copy keeps serving.
    """

    STATUS_ACTIVE = "active"
    STATUS_SUPERSEDED = "superseded"
    STATUS_FAILED = "failed"
    STATUSES = [(STATUS_ACTIVE, "active"), (STATUS_SUPERSEDED, "superseded"), (STATUS_FAILED, "failed")]

    layer = models.CharField(max_length=40, help_text="piracy_asam, piracy_imb, country_indicators, eez, ...")
    status = models.CharField(max_length=12, choices=STATUSES)
    payload = models.JSONField(default=list)
    row_count = models.PositiveIntegerField(default=0)
    latest_event_at = models.DateTimeField(null=True, blank=True)
    loaded_at = models.DateTimeField(default=timezone.now)
    origin = models.CharField(max_length=500, blank=True)
    message = models.CharField(max_length=500, blank=True)

    class Meta:
        indexes = [models.Index(fields=["layer", "status", "-loaded_at"])]

    def __str__(self) -> str:
        return f"{self.layer} {self.status} {self.loaded_at:%Y-%m-%d %H:%M}"
