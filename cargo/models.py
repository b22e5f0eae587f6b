"""Cargo screenings: immutable documents, like hull screening records."""

from __future__ import annotations

from django.db import models

from accounts.tenancy import TenantModel
from screening.verdict import Verdict


class CargoScreening(TenantModel):
    """An issued cargo screening; `document` is the JSON body as issued, replayed byte-for-byte."""

    ID_PREFIX = "cgs"

    status = models.CharField(max_length=12, choices=Verdict.choices)
    hs_code = models.CharField(max_length=6)
    origin_country = models.CharField(max_length=2)
    destination_country = models.CharField(max_length=2)
    vessel_imo = models.CharField(max_length=7, blank=True)
    vessel_screening = models.ForeignKey(
        "screening.Screening", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    customer_reference = models.CharField(max_length=200, blank=True)
    unit_charged = models.BooleanField(default=False)
    document = models.BinaryField()
    screened_at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(fields=["account", "environment", "status"]),
            models.Index(fields=["account", "environment", "created_at"]),
        ]
