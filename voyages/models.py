"""Voyage assessments (immutable documents) and voyage assessment batches (jobs)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from accounts.tenancy import TenantModel
from core.api.ids import new_id
from jobs.models import Job, JobItem


def _assessment_id() -> str:  # referenced by migration 0001
    return new_id("vas")


def _batch_id() -> str:  # referenced by migration 0001
    return new_id("vab")


def _item_id() -> str:  # referenced by migration 0001
    return new_id("vai")


class VoyageAssessment(TenantModel):
    """An issued assessment; `document` is the JSON body as issued, replayed byte-for-byte."""

    ID_PREFIX = "vas"

    origin_locode = models.CharField(max_length=5)
    dest_locode = models.CharField(max_length=5)
    score = models.PositiveSmallIntegerField()
    risk_level = models.CharField(max_length=12)
    document = models.BinaryField()
    assessed_at = models.DateTimeField()
    expires_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["account", "environment", "assessed_at"])]


class VoyageBatch(Job):
    """Up to 10 routes assessed on workers (the jobs flow, kind `voyage_batch`)."""

    ID_PREFIX = "vab"

    class Meta:
        verbose_name_plural = "voyage batches"
        indexes = [models.Index(fields=["status", "created_at"])]


class VoyageBatchItem(JobItem):
    """One route of a batch; its result is the assessment it produced."""

    ID_PREFIX = "vai"
    JOB_FIELD = "batch"

    batch = models.ForeignKey(VoyageBatch, on_delete=models.CASCADE, related_name="items")
    assessment = models.ForeignKey(VoyageAssessment, null=True, blank=True, on_delete=models.SET_NULL)

    class Meta(JobItem.Meta):
        pass


class LayerSnapshot(models.Model):
    """A loaded copy of a risk-layer source (piracy incidents, country indicators, EEZ polygons).

    `payload` holds the parsed rows as JSON; the newest active row per layer serves. A failed load
    is kept as a failed row with its reason, and the previous active copy keeps serving.
    """

    class Status(models.TextChoices):
        ACTIVE = "active"  # the newest good load of its layer: it serves
        SUPERSEDED = "superseded"
        FAILED = "failed"  # a load refused; the active one keeps serving

    layer = models.CharField(max_length=40, help_text="piracy_asam, piracy_imb, country_indicators, eez, ...")
    status = models.CharField(max_length=12, choices=Status.choices)
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
