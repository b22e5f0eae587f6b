"""The two abstract models every job kind builds on: a Job an (account, environment) owns, and its items.

A concrete job is a tenant model (`ID_PREFIX = "vab"`); a concrete item names its own id prefix
(`ID_PREFIX = "vai"`), declares the foreign key to its job and names it in `JOB_FIELD`, and adds
whatever its result is (a foreign key to the record an item produced, for instance).
"""

from __future__ import annotations

from functools import partial
from typing import ClassVar

from django.db import models
from django.db.models.signals import class_prepared
from django.dispatch import receiver

from accounts.tenancy import TenantModel
from core.api.ids import new_id


class Job(TenantModel):
    """queued -> running (a worker took its first item) -> completed, partial or failed (written once)."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        COMPLETED = "completed"  # every item succeeded
        PARTIAL = "partial"  # some did
        FAILED = "failed"  # none did

    OPEN: ClassVar[tuple[str, ...]] = (Status.QUEUED, Status.RUNNING)
    TERMINAL: ClassVar[tuple[str, ...]] = (Status.COMPLETED, Status.PARTIAL, Status.FAILED)

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    customer_reference = models.CharField(max_length=200, blank=True)
    item_count = models.PositiveIntegerField(default=0)
    accepted_count = models.PositiveIntegerField(default=0)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True


class JobItem(models.Model):
    """One unit of a job's work: queued -> running (leased to one worker) -> succeeded or failed.

    An item refused when the job was created is `rejected` and reserves nothing. A worker claims a
    queued item by moving it to running with a lease and one more attempt; the attempt number
    fences the claim, so only the worker holding the current attempt can settle it. A queued
    item's lease is when the sweep re-sends its message; a running item's lease is when the sweep
    gives it up for lost and queues it again.
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        REJECTED = "rejected"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    OPEN: ClassVar[tuple[str, ...]] = (Status.QUEUED, Status.RUNNING)
    TERMINAL: ClassVar[tuple[str, ...]] = (Status.REJECTED, Status.SUCCEEDED, Status.FAILED)

    ID_PREFIX: ClassVar[str] = ""
    JOB_FIELD: ClassVar[str] = "job"  # the name of the concrete class's foreign key to its job

    id = models.CharField(primary_key=True, max_length=40, editable=False)
    position = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    request = models.JSONField(help_text="The item as the caller sent it.")
    error = models.JSONField(null=True, blank=True, help_text="{code, message, ...} of a rejected or failed item")
    reserved_unit = models.BooleanField(default=False)
    attempts = models.PositiveSmallIntegerField(default=0)
    lease_expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["position"]


@receiver(class_prepared)
def _give_item_ids(sender: type[models.Model], **kwargs: object) -> None:
    """Each concrete item model mints ids with its own prefix (vai_…)."""
    if issubclass(sender, JobItem) and not sender._meta.abstract:
        if not sender.ID_PREFIX:
            raise TypeError(f"{sender.__name__} must set ID_PREFIX")
        sender._meta.pk.default = partial(new_id, sender.ID_PREFIX)
