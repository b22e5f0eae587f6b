"""Source snapshots (provenance and freshness), their records, and screening records."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from accounts.models import ENVIRONMENTS, Account
from accounts.tenancy import TenantModel
from core.api.ids import new_id
from jobs.models import Job, JobItem
from screening.verdict import Verdict


def _snapshot_id() -> str:
    return new_id("snp")


def _screening_id() -> str:  # referenced by migration 0001
    return new_id("scr")


class SourceSnapshot(models.Model):
    """One load of one source (or one of its files). The newest active one serves."""

    class Status(models.TextChoices):
        ACTIVE = "active"  # the newest good load of its source and edition: it serves
        SUPERSEDED = "superseded"
        FAILED = "failed"  # a load refused (unreadable, shrank too far); the active one keeps serving

    id = models.CharField(primary_key=True, max_length=40, default=_snapshot_id, editable=False)
    source = models.CharField(max_length=40, db_index=True)
    edition = models.CharField(max_length=40, blank=True, help_text="Which file of the source (eu_fsf, ...).")
    status = models.CharField(max_length=12, choices=Status.choices)
    checksum = models.CharField(max_length=64, blank=True)
    row_count = models.PositiveIntegerField(default=0)
    published_at = models.DateTimeField(null=True, blank=True, help_text="What the source stamps.")
    retrieved_at = models.DateTimeField(default=timezone.now)
    origin = models.CharField(max_length=500, blank=True, help_text="URL or file the copy came from.")
    is_demo = models.BooleanField(default=False)
    message = models.CharField(max_length=500, blank=True)
    added = models.PositiveIntegerField(default=0)
    removed = models.PositiveIntegerField(default=0)
    changed = models.PositiveIntegerField(default=0)
    diff = models.JSONField(
        null=True,
        blank=True,
        help_text="Against the previous real edition: records added, removed and changed (screening/editions.py); "
        "null for a first or demo edition.",
    )

    rescreened_at = models.DateTimeField(
        null=True, blank=True, help_text="When the monitored hulls this edition can touch were queued for re-screening."
    )

    class Meta:
        indexes = [models.Index(fields=["source", "status", "retrieved_at"])]

    def __str__(self) -> str:
        return f"{self.source} {self.edition} {self.status} {self.retrieved_at:%Y-%m-%d %H:%M}"


class SourceFeed(models.Model):
    """How one source file (a source and edition) is watched: the validators of the copy last fetched,
    when we last checked it successfully (a 304, an unchanged file or a load), and the poll lease that
    keeps one poll per source at a time, cluster-wide (screening/polling.py, core/leases.py)."""

    class Status(models.TextChoices):
        IDLE = "idle"
        POLLING = "polling"  # held by one poll under a lease

    source = models.CharField(max_length=40)
    edition = models.CharField(max_length=40, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.IDLE)
    claims = models.PositiveIntegerField(default=0, help_text="The lease's fence: one more per poll.")
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    validators = models.JSONField(
        default=dict,
        blank=True,
        help_text="The serving copy's HTTP validators by file part, as the publisher sent them: "
        '{"sdn": {"etag": ..., "last_modified": ...}, ...}; a poll sends them back (If-None-Match, If-Modified-Since).',
    )
    checked_at = models.DateTimeField(null=True, blank=True, help_text="The last successful check.")
    attempted_at = models.DateTimeField(null=True, blank=True, help_text="The last poll, successful or not.")
    last_error = models.CharField(
        max_length=500, blank=True, help_text="Why the last poll failed; blank after a success."
    )
    refused_checksum = models.CharField(
        max_length=64,
        blank=True,
        help_text="The checksum of the last file set refused (unreadable, shrank too far): polls that download "
        "the same bytes again do not load or record it again.",
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["source", "edition"], name="one_feed_per_source_edition")]

    def __str__(self) -> str:
        return f"{self.source} {self.edition} {self.status}"


class ListedEntry(models.Model):
    """A sanctions listing of an active snapshot, as the plain record (screening.records)."""

    snapshot = models.ForeignKey(SourceSnapshot, on_delete=models.CASCADE, related_name="listed")
    record = models.JSONField()


class RegisterEntry(models.Model):
    """Vessel particulars from a register store, looked up by IMO."""

    snapshot = models.ForeignKey(SourceSnapshot, on_delete=models.CASCADE, related_name="register_rows")
    register = models.CharField(max_length=40)
    imo = models.CharField(max_length=7, db_index=True)
    record = models.JSONField()


class InspectionEntry(models.Model):
    snapshot = models.ForeignKey(SourceSnapshot, on_delete=models.CASCADE, related_name="inspections")
    register = models.CharField(max_length=40)
    imo = models.CharField(max_length=7, db_index=True)
    record = models.JSONField()


class LiveRegisterName(models.Model):
    """A name a live register returned, kept 30 days then re-read."""

    register = models.CharField(max_length=40)
    imo = models.CharField(max_length=7)
    name = models.CharField(max_length=200, blank=True)
    fetched_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["register", "imo"], name="uniq_live_register_name")]


class Screening(TenantModel):
    """An issued screening record. `document` is the JSON body exactly as issued."""

    ID_PREFIX = "scr"

    class Origin(models.TextChoices):
        """Which door asked for the record."""

        API = "api"  # REST and MCP
        BATCH = "batch"
        MONITOR = "monitor"
        CARGO = "cargo"  # the hull of a cargo screening
        RESOLUTION = "resolution"  # the service's own re-screen of an open INCOMPLETE
        LIST_UPDATE = "list_update"  # a monitored hull re-screened because a new list edition can touch it

    imo = models.CharField(max_length=16)
    status = models.CharField(max_length=12, choices=Verdict.choices)
    vessel_name = models.CharField(max_length=200, blank=True)
    customer_reference = models.CharField(max_length=200, blank=True)
    unit_charged = models.BooleanField(default=False)
    origin = models.CharField(max_length=12, choices=Origin.choices, default=Origin.API)
    document = models.BinaryField()
    screened_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    as_of = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Screened against the editions in force at this past instant (never drives fleets or follow-ups).",
    )
    supersedes = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_constraint=False
    )
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_constraint=False
    )
    follow_up = models.ForeignKey(
        "FollowUp", null=True, blank=True, on_delete=models.SET_NULL, related_name="records", db_constraint=False
    )

    class Meta:
        indexes = [
            models.Index(fields=["account", "environment", "imo", "screened_at"]),
            models.Index(fields=["account", "environment", "status"]),
        ]


class FollowUp(models.Model):
    """Automatic resolution of an INCOMPLETE (contract 2.7, 3.3); one open per hull per account."""

    class Status(models.TextChoices):
        PENDING = "pending"
        RESOLVED = "resolved"
        UNRESOLVED = "unresolved"

    class Cause(models.TextChoices):
        IDENTITY = "identity"
        COVERAGE = "coverage"

    account = models.ForeignKey(Account, on_delete=models.CASCADE)
    environment = models.CharField(max_length=4, choices=ENVIRONMENTS)
    imo = models.CharField(max_length=7)
    screening = models.ForeignKey(Screening, on_delete=models.CASCADE, related_name="follow_ups")
    cause = models.CharField(max_length=10, choices=Cause.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    max_attempts = models.PositiveSmallIntegerField(default=6)
    next_attempt_at = models.DateTimeField(db_index=True)
    expires_at = models.DateTimeField()
    resolved_screening = models.ForeignKey(
        Screening, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    claims = models.PositiveIntegerField(
        default=0, help_text="How many times a runner claimed a due attempt; the number fences each claim."
    )
    lease_expires_at = models.DateTimeField(
        null=True, blank=True, help_text="While an attempt runs: when its claim lapses and another run may take it."
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["account", "environment", "imo"],
                condition=models.Q(status="pending"),
                name="one_open_follow_up_per_hull",
            )
        ]


# --- Screening batches (a job kind: screening/batches.py) and fleets (screening/fleet_*.py) ----


class ScreeningBatch(Job):
    """Up to 50 hulls screened on workers (the jobs flow, kind `screening_batch`)."""

    ID_PREFIX = "sbt"

    include_vetting = models.BooleanField(default=True, help_text="Applies to every item of the batch.")
    include_behaviour = models.BooleanField(
        default=False, help_text="Every record carries the AIS behaviour block (screening/behaviour_block.py)."
    )

    class Meta:
        verbose_name_plural = "screening batches"
        indexes = [models.Index(fields=["status", "created_at"])]


class ScreeningBatchItem(JobItem):
    """One hull of a batch; its result is the screening record it produced."""

    ID_PREFIX = "sbi"
    JOB_FIELD = "batch"

    batch = models.ForeignKey(ScreeningBatch, on_delete=models.CASCADE, related_name="items")
    imo = models.CharField(max_length=7, blank=True, help_text="The IMO screened (blank on a rejected item).")
    imo_normalized_from = models.CharField(
        max_length=64, blank=True, help_text="The value sent, when the appended-digit correction applied."
    )
    screening = models.ForeignKey(Screening, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta(JobItem.Meta):
        pass


class Fleet(TenantModel):
    """A named set of hulls whose exposure and verdict moves are read from the records the owner holds."""

    ID_PREFIX = "flt"

    name = models.CharField(max_length=200)
    hull_count = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["account", "environment", "id"])]


class FleetMember(models.Model):
    """One hull of a fleet, by IMO (the hull need not have been screened)."""

    fleet = models.ForeignKey(Fleet, on_delete=models.CASCADE, related_name="members")
    imo = models.CharField(max_length=7)
    added_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["fleet", "imo"], name="uniq_fleet_member")]


class MatchDecision(TenantModel):
    """A reviewer's decision on one match of one hull: the listing cleared (a false positive) or confirmed.

    It binds to the listing as it stood when decided (`record`, and its `record_fingerprint` over the
    names, identifiers and programmes): when a later edition changes that listing, the decision stops
    applying. Never rewritten: revoking sets the revocation once (who, when, why); expiry is a date.
    A decision never changes a verdict; screenings show it beside the match (screening/decisions.py).
    """

    ID_PREFIX = "mdc"

    class Outcome(models.TextChoices):
        CLEARED = "cleared"  # not this hull: a false positive
        CONFIRMED = "confirmed"  # this hull is the listed one

    imo = models.CharField(max_length=7)
    source = models.CharField(max_length=40)
    source_record_id = models.CharField(max_length=100)
    outcome = models.CharField(max_length=10, choices=Outcome.choices)
    reason = models.TextField()
    reviewer = models.CharField(max_length=200)
    expires_at = models.DateTimeField(null=True, blank=True)
    record = models.JSONField(help_text="The listing as decided on: names, identifiers, programmes.")
    record_fingerprint = models.CharField(max_length=64)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.CharField(max_length=200, blank=True)
    revoke_reason = models.TextField(blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["account", "environment", "id"]),
            models.Index(fields=["account", "environment", "imo"]),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["account", "environment", "imo", "source", "source_record_id"],
                condition=models.Q(revoked_at__isnull=True),
                name="one_standing_decision_per_match",
            )
        ]

    def __str__(self) -> str:
        return f"{self.id} {self.outcome} {self.source}/{self.source_record_id} on IMO {self.imo}"


class EditionFile(models.Model):
    """The file set of a loaded edition, kept for replay (screening/replay.py) and evidence: content-
    addressed by the sha256 its snapshots carry (`SourceSnapshot.checksum`), compressed as one zip."""

    checksum = models.CharField(primary_key=True, max_length=64)
    source = models.CharField(max_length=40)
    edition = models.CharField(max_length=40, blank=True)
    parts = models.JSONField(help_text='The file parts held, e.g. ["sdn", "alt", "add"].')
    data = models.BinaryField(help_text="A zip of the parts (deflated), one member per part.")
    size = models.PositiveBigIntegerField(help_text="The parts' total size before compression.")
    stored_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.source} {self.edition} {self.checksum[:12]}"
