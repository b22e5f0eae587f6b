"""The durable event log. Deliveries to endpoints are built on top of it."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from accounts.models import ENVIRONMENTS, Account
from config.api.ids import new_id


def _event_id() -> str:
    return new_id("evt")


class Event(models.Model):
    id = models.CharField(primary_key=True, max_length=40, default=_event_id, editable=False)
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="events")
    environment = models.CharField(max_length=4, choices=ENVIRONMENTS)
    type = models.CharField(max_length=60, db_index=True)
    data = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["account", "environment", "created_at"])]

    def __str__(self) -> str:
        return f"{self.type} {self.id}"
