"""What the behaviour app keeps in the database: AIS loads, per-hull daily summaries, the links from an
MMSI to a hull, and the events the detectors found.

The raw positions are not here: they live in the columnar store (`behaviour.store`, partitioned
Parquet read through DuckDB). A load's files are invisible until its row here is `committed`, and the
row turns `committed` in the transaction that writes its summaries, links and events, so a half-done
load leaves nothing a reader can see.
"""

from __future__ import annotations

from typing import ClassVar

from django.db import models

from behaviour.detectors.base import EventKind, Severity


class AisLoad(models.Model):
    """One AIS file through ingestion; a leased row (core/leases.py) so one worker loads it at a time."""

    class Status(models.TextChoices):
        QUEUED = "queued"  # found in the drop folder or named on the command line, not started
        LOADING = "loading"  # held by one loader under a lease
        COMMITTED = "committed"  # its positions are served
        FAILED = "failed"  # refused or broken; `error` says why, its files were removed

    class Origin(models.TextChoices):
        COMMAND = "command"  # manage.py load_ais
        DROP_FOLDER = "drop_folder"  # AIS_DROP_DIR, picked up by the worker
        DEMO = "demo"  # the demo world's generated AIS (behaviour/demo.py), never a real feed

    file_name = models.CharField(max_length=500)
    file_path = models.CharField(max_length=1000, blank=True, help_text="Where the file was read from.")
    file_sha256 = models.CharField(max_length=64, db_index=True)
    file_size = models.BigIntegerField(default=0)
    format = models.CharField(max_length=20, blank=True, help_text="dma, marinecadastre or nmea.")
    origin = models.CharField(max_length=20, choices=Origin.choices, default=Origin.COMMAND)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    claims = models.PositiveIntegerField(default=0, help_text="The lease's fence: one more per attempt.")
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    positions = models.BigIntegerField(default=0, help_text="Position reports kept after cleaning.")
    statics = models.BigIntegerField(default=0, help_text="Distinct static reports kept.")
    mmsis = models.IntegerField(default=0)
    first_position_at = models.DateTimeField(null=True, blank=True)
    last_position_at = models.DateTimeField(null=True, blank=True)
    days = models.JSONField(default=list, blank=True, help_text="The UTC days (YYYY-MM-DD) its positions fall on.")
    counts = models.JSONField(default=dict, blank=True, help_text="Rows read, kept and dropped, by reason.")
    events = models.IntegerField(default=0, help_text="Events the detection that committed it found.")
    error = models.TextField(blank=True)

    class Meta:
        verbose_name = "AIS load"
        verbose_name_plural = "AIS loads"
        indexes: ClassVar = [models.Index(fields=["status", "created_at"])]

    def __str__(self) -> str:
        return f"{self.file_name} ({self.status})"


class AisLink(models.Model):
    """An MMSI seen as a hull (IMO), and on what basis. A static message's IMO links only when its check
    digit is valid; a register's MMSI for the IMO links without any AIS being loaded."""

    class Basis(models.TextChoices):
        STATIC_IMO = "static_imo"  # the IMO the ship itself transmitted in its static messages
        REGISTER_MMSI = "register_mmsi"  # a register we hold gives this MMSI for the IMO

    mmsi = models.BigIntegerField(db_index=True)
    imo = models.CharField(max_length=7, db_index=True)
    basis = models.CharField(max_length=20, choices=Basis.choices)
    first_seen_at = models.DateTimeField(null=True, blank=True)
    last_seen_at = models.DateTimeField(null=True, blank=True)
    reports = models.BigIntegerField(default=0)
    names = models.JSONField(default=list, blank=True, help_text="Names transmitted with this IMO.")
    load = models.ForeignKey(AisLoad, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        verbose_name = "AIS link"
        constraints: ClassVar = [models.UniqueConstraint(fields=["mmsi", "imo", "basis"], name="ais_link_unique")]

    def __str__(self) -> str:
        return f"MMSI {self.mmsi} -> IMO {self.imo} ({self.basis})"


class AisVesselDay(models.Model):
    """One MMSI's positions on one UTC day from one load: the per-hull summary the endpoint reads
    without opening the columnar store."""

    load = models.ForeignKey(AisLoad, on_delete=models.CASCADE, related_name="vessel_days")
    mmsi = models.BigIntegerField()
    day = models.DateField()
    positions = models.IntegerField()
    first_position_at = models.DateTimeField()
    last_position_at = models.DateTimeField()
    min_lat = models.FloatField()
    max_lat = models.FloatField()
    min_lon = models.FloatField()
    max_lon = models.FloatField()
    longest_gap_seconds = models.IntegerField(default=0)

    class Meta:
        verbose_name = "AIS vessel day"
        indexes: ClassVar = [models.Index(fields=["mmsi", "day"])]
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["load", "mmsi", "day"], name="ais_vessel_day_unique"),
        ]


class BehaviourEvent(models.Model):
    """One finding of a detector (behaviour/detectors), with the evidence a reviewer checks."""

    id = models.CharField(primary_key=True, max_length=40, editable=False)
    kind = models.CharField(max_length=30, choices=[(kind.value, kind.value) for kind in EventKind])
    severity = models.CharField(max_length=10, choices=[(level.value, level.value) for level in Severity])
    mmsi = models.BigIntegerField()
    imo = models.CharField(max_length=7, blank=True, help_text="The hull the MMSI was linked to when detected.")
    other_mmsi = models.BigIntegerField(null=True, blank=True)
    other_imo = models.CharField(max_length=7, blank=True)
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField()
    lat = models.FloatField()
    lon = models.FloatField()
    summary = models.TextField()
    evidence = models.JSONField(default=dict)
    detector_version = models.CharField(max_length=40)
    detected_at = models.DateTimeField()
    load = models.ForeignKey(AisLoad, null=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        verbose_name = "behaviour event"
        indexes: ClassVar = [
            models.Index(fields=["mmsi", "started_at"]),
            models.Index(fields=["imo", "started_at"]),
            models.Index(fields=["started_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.kind} MMSI {self.mmsi} {self.started_at:%Y-%m-%d %H:%M}"


class DetectionLock(models.Model):
    """The one row a committing load updates first, so loads detect and replace events one at a time."""

    SINGLETON = 1

    taken_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "AIS detection lock"
