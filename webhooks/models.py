"""The durable event log. Deliveries to endpoints are built on top of it."""

from __future__ import annotations

from django.db import models

from accounts.tenancy import TenantModel
from config.api.ids import new_id


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
