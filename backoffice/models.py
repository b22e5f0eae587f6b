"""The operator audit: one row per operator action in the back office (who, when, what, before and after)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class OperatorAction(models.Model):
    """Written in the transaction of the change it describes; never edited or deleted through the admin."""

    at = models.DateTimeField(default=timezone.now)
    operator = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    operator_name = models.CharField(max_length=150, help_text="Kept when the operator's login is removed.")
    action = models.CharField(max_length=60)
    target_type = models.CharField(max_length=60)
    target_id = models.CharField(max_length=64)
    target_label = models.CharField(max_length=300, blank=True)
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)
    note = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [
            models.Index(fields=["-at"], name="backoffice_action_at"),
            models.Index(fields=["target_type", "target_id", "-at"], name="backoffice_action_target"),
        ]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.operator_name} {self.action} {self.target_type} {self.target_id}"
