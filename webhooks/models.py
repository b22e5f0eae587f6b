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
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["account", "environment", "created_at"])]

    def __str__(self) -> str:
        return f"{self.id} {self.url}"

    def receives(self, event_type: str) -> bool:
        return self.enabled and (not self.event_types or event_type in self.event_types)
