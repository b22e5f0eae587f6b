"""Exports: a file of every record of one resource matching the list filters, produced by a worker.

An export is a job (jobs/) with one item, the file; its status is the job's (queued, running,
completed, failed) and `expired` once its file was removed after EXPORT_RETENTION_HOURS.
"""

from __future__ import annotations

from django.db import models

from jobs.models import Job, JobItem


class Export(Job):
    ID_PREFIX = "exp"

    class Format(models.TextChoices):
        CSV = "csv"
        JSONL = "jsonl"
        ZIP = "zip"  # one JSON file per record (evidence packs)

    resource = models.CharField(max_length=30)
    format = models.CharField(max_length=5, choices=Format.choices)
    filters = models.JSONField(default=dict, blank=True)
    scope = models.CharField(max_length=40, help_text="The exported resource's scope, needed to read the export")
    row_count = models.PositiveIntegerField(null=True, blank=True)
    rows_written = models.PositiveIntegerField(default=0)
    file_name = models.CharField(max_length=200, blank=True)
    size_bytes = models.BigIntegerField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    file_removed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["account", "environment", "id"]),
            models.Index(fields=["expires_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.id} {self.resource} {self.format}"


class ExportItem(JobItem):
    ID_PREFIX = "exi"
    JOB_FIELD = "export"

    export = models.ForeignKey(Export, on_delete=models.CASCADE, related_name="items")

    class Meta(JobItem.Meta):
        pass
