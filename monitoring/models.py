"""Standing watches: vessel monitors (a hull re-screened every 24 hours) and corridor monitors (a route
recomputed every 6 hours), each with the history of its runs.

A run is one row per (monitor, slot): the slot is the scheduled instant it stands for, so a worker
that crashes and a sweep that re-sends the run can never make two runs of one slot (nor charge twice).
"""

from __future__ import annotations

from typing import ClassVar

from django.db import models

from accounts.tenancy import TenantModel


class RunStatus(models.TextChoices):
    QUEUED = "queued"  # due, waiting for a worker
    RUNNING = "running"  # claimed under a lease
    DEFERRED = "deferred"  # the allowance is used or the account paused: tried again after the reset
    COMPLETED = "completed"
    FAILED = "failed"  # the service gave up (its error says why); the next slot runs as usual


class VesselMonitor(TenantModel):
    """One hull watched by one (account, environment).

    `mode` live: run by the schedule (live keys only). `mode` simulation: never scheduled; its runs
    come from POST /vessel-monitors/{id}/simulate, which feeds a hypothetical verdict into the same
    change detector (the way a test key exercises monitors).
    `baseline_verdict` is the verdict the monitor compares against (set by the first run, moved by a
    confirmed change); `previous_verdict` is the baseline before the last change.
    """

    ID_PREFIX = "vmo"

    class Mode(models.TextChoices):
        LIVE = "live"
        SIMULATION = "simulation"

    class Status(models.TextChoices):
        CREATED = "created"  # no baseline yet
        WATCHING = "watching"

    imo = models.CharField(max_length=7)
    vessel_name = models.CharField(max_length=200, blank=True)
    customer_reference = models.CharField(max_length=200, blank=True)
    mode = models.CharField(max_length=10, choices=Mode.choices, default=Mode.LIVE)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.CREATED)
    baseline_verdict = models.JSONField(null=True, blank=True)
    previous_verdict = models.JSONField(null=True, blank=True)
    last_verdict = models.JSONField(null=True, blank=True, help_text="What the latest run read, degraded or not")
    next_run_at = models.DateTimeField(null=True, blank=True, help_text="The next slot (live mode)")
    last_run_at = models.DateTimeField(null=True, blank=True)
    run_count = models.PositiveIntegerField(default=0)

    class Meta:
        indexes = [
            models.Index(fields=["account", "environment", "id"]),
            models.Index(fields=["mode", "next_run_at"]),
        ]
        constraints = [
            models.UniqueConstraint(fields=["account", "environment", "imo", "mode"], name="one_monitor_per_hull")
        ]

    def __str__(self) -> str:
        return f"{self.id} IMO {self.imo} ({self.mode})"


class MonitorRun(models.Model):
    """One run of a monitor for one slot, held under a lease while it runs (monitoring/runs.py,
    core/leases.py): its status, attempts (the claim fence), what it changed and emitted."""

    OPEN: ClassVar[tuple[str, ...]] = (RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.DEFERRED)

    slot = models.DateTimeField()
    status = models.CharField(max_length=10, choices=RunStatus.choices, default=RunStatus.QUEUED)
    attempts = models.PositiveSmallIntegerField(default=0)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    changes = models.JSONField(default=list, blank=True)
    event_ids = models.JSONField(default=list, blank=True)
    error = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"{self.monitor_id} @ {self.slot:%Y-%m-%d %H:%M} {self.status}"  # type: ignore[attr-defined]


class VesselMonitorRun(MonitorRun):
    """One run of a vessel monitor for one slot: what it read, what it concluded, what it emitted."""

    class Outcome(models.TextChoices):
        BASELINE = "baseline"  # first run: vessel_monitor.ready
        UNCHANGED = "unchanged"
        CHANGED = "changed"  # vessel_risk.changed
        UNCONFIRMED = "unconfirmed"  # moved on one screen, not on the re-screen: nothing emitted
        DEGRADED = "degraded"  # INCOMPLETE: vessel_data.degraded, baseline kept

    class Trigger(models.TextChoices):
        SCHEDULE = "schedule"  # the daily slot (or a simulation)
        LIST_UPDATE = "list_update"  # out of cycle: a new list edition changed a listing this hull can match

    monitor = models.ForeignKey(VesselMonitor, on_delete=models.CASCADE, related_name="runs")
    simulated = models.BooleanField(default=False)
    trigger = models.CharField(max_length=12, choices=Trigger.choices, default=Trigger.SCHEDULE)
    list_snapshot = models.ForeignKey(
        "screening.SourceSnapshot",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The list edition that triggered an out-of-cycle run.",
    )
    outcome = models.CharField(max_length=12, choices=Outcome.choices, blank=True)
    screening = models.ForeignKey(
        "screening.Screening", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    verdict = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-slot"]
        constraints = [models.UniqueConstraint(fields=["monitor", "slot"], name="one_vessel_run_per_slot")]
        indexes = [models.Index(fields=["status", "lease_expires_at"])]


class CorridorMonitor(TenantModel):
    """A route recomputed on a cadence (live keys only); `request` is the assessment body it scores."""

    ID_PREFIX = "cmo"

    class Status(models.TextChoices):
        ACTIVE = "active"

    request = models.JSONField(help_text="origin, destination, via and vessel details, as an assessment takes them")
    customer_reference = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    baseline = models.JSONField(null=True, blank=True, help_text="The summary the next run is compared against")
    degraded = models.BooleanField(default=False)
    next_run_at = models.DateTimeField(null=True, blank=True)
    last_run_at = models.DateTimeField(null=True, blank=True)
    run_count = models.PositiveIntegerField(default=0)

    class Meta:
        indexes = [
            models.Index(fields=["account", "environment", "id"]),
            models.Index(fields=["status", "next_run_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.id} corridor"


class CorridorMonitorRun(MonitorRun):
    """One recomputation of a corridor monitor for one slot."""

    monitor = models.ForeignKey(CorridorMonitor, on_delete=models.CASCADE, related_name="runs")
    assessment = models.ForeignKey(
        "voyages.VoyageAssessment", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    summary = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-slot"]
        constraints = [models.UniqueConstraint(fields=["monitor", "slot"], name="one_corridor_run_per_slot")]
        indexes = [models.Index(fields=["status", "lease_expires_at"])]
