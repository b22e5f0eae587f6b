"""The OpenAPI `webhooks` section: one webhook per event type, its envelope and its `data` field by field.

Published through SPECTACULAR_SETTINGS["WEBHOOKS"], one import path to the list `WEBHOOKS` below (DRF's
import of a string setting returns the list itself), so a type added to EVENT_TYPES is published without
touching settings. The `data` serializers describe what the emitters write (screening/services.py,
jobs/flow.py `_emit_completed`, monitoring/vessels.py `detect`, webhooks/delivery.py for the test event);
tests/webhooks/test_event_schema.py validates real events against the published document, so the two
cannot drift apart. Note: drf-spectacular builds `components` before the webhooks; the components they
add reach the document because the `postprocess_schema_enums` hook rebuilds `components` afterwards.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse, OpenApiWebhook, extend_schema, extend_schema_field
from rest_framework import serializers

from behaviour.api.schema import BehaviourEventSchema
from config.openapi_reference import SIGNATURES_ANCHOR
from core.api.openapi import ClosedSerializer
from jobs.models import JobItem
from monitoring.api.corridor_events import CORRIDOR_EVENT_DATA
from webhooks.delivery import (
    EVENT_ID_HEADER,
    SIGNATURE_HEADER,
    TEST_EVENT_TYPE,
    human_duration,
    max_attempts,
    retry_delays,
)
from webhooks.events import EVENT_TYPES

SANCTIONS_VERDICTS = ["RED", "AMBER", "GREEN"]  # an answer is never INCOMPLETE
GRADES = ["A", "B", "C", "D", "E"]
OPACITY_BANDS = ["LOW", "MEDIUM", "HIGH"]
SEVERITIES = ["critical", "high", "low"]


# -- data, one serializer per event type ----------------------------------------------------------


class ScreeningResolvedData(ClosedSerializer):
    """`data` of screening.resolved: exactly these fields (contract part 6)."""

    screening_id = serializers.CharField(help_text="The record that answers (scr_…)")
    supersedes_screening_id = serializers.CharField(help_text="The INCOMPLETE record it answers (scr_…)")
    imo = serializers.CharField(min_length=7, max_length=7, help_text="The hull's 7-digit IMO number")
    customer_reference = serializers.CharField(allow_null=True, help_text="As sent with either record")
    vessel_name = serializers.CharField(allow_null=True, help_text="The chosen name; null when identity_basis is none")
    identity_basis = serializers.ChoiceField(choices=["sources", "user", "none"])
    sanctions_status = serializers.ChoiceField(choices=SANCTIONS_VERDICTS)
    vetting_grade = serializers.ChoiceField(
        choices=GRADES, allow_null=True, help_text="null when vetting was not assessed or not requested"
    )
    ownership_opacity = serializers.ChoiceField(
        choices=OPACITY_BANDS, allow_null=True, help_text="null when ownership was not assessed"
    )
    screened_at = serializers.DateTimeField()
    unit_charged = serializers.BooleanField()


class ScreeningUnresolvedData(ClosedSerializer):
    """`data` of screening.unresolved: the open record and the remedy."""

    screening_id = serializers.CharField(help_text="The INCOMPLETE record that stays unanswered (scr_…)")
    imo = serializers.CharField(min_length=7, max_length=7)
    customer_reference = serializers.CharField(allow_null=True)
    cause = serializers.ChoiceField(
        choices=["identity", "coverage"],
        help_text="identity: no register names the hull; coverage: a core sanctions source stayed unavailable",
    )
    attempts = serializers.IntegerField(min_value=0, help_text="Scheduled re-screens made")
    remedy = serializers.CharField(
        help_text="What to do: for identity, re-screen with vessel_name; for coverage, re-screen once the outage ends"
    )


class UsageQuotaWarningData(ClosedSerializer):
    """`data` of usage.quota_warning."""

    used = serializers.IntegerField(min_value=0, help_text="Live screening units used in the period")
    limit = serializers.IntegerField(min_value=0, help_text="The allowance of the period")


# What jobs.flow.status_counts writes: every item status, with how many routes are in it.
JobItemCounts = type(
    "JobItemCounts",
    (ClosedSerializer,),
    {
        "__module__": __name__,
        "__doc__": "How many of the batch's routes ended in each item status.",
        **{status: serializers.IntegerField(min_value=0) for status in JobItem.Status.values},
    },
)


class VoyageBatchCompletedData(ClosedSerializer):
    """`data` of voyage_batch.completed: the batch's final status and its routes by status."""

    voyage_batch_id = serializers.CharField(help_text="The batch (vab_…); GET /api/v1/voyage-assessment-batches/{id}")
    status = serializers.ChoiceField(
        choices=["completed", "partial", "failed"],
        help_text="completed: every route succeeded; partial: some did; failed: none did",
    )
    customer_reference = serializers.CharField(allow_null=True)
    item_count = serializers.IntegerField(min_value=0)
    accepted_count = serializers.IntegerField(min_value=0)
    counts = JobItemCounts(help_text="Routes by item status")
    completed_at = serializers.DateTimeField()


class ExportCompletedData(ClosedSerializer):
    """`data` of export.completed: the export's final status; download it with GET /api/v1/exports/{id}/download."""

    export_id = serializers.CharField(help_text="The export (exp_…)")
    status = serializers.ChoiceField(choices=["completed", "failed"], help_text="completed: the file is ready")
    customer_reference = serializers.CharField(allow_null=True)
    item_count = serializers.IntegerField(min_value=0, help_text="Always 1: the file")
    accepted_count = serializers.IntegerField(min_value=0)
    counts = JobItemCounts(help_text="The file's item by status")
    completed_at = serializers.DateTimeField()
    resource = serializers.ChoiceField(choices=["screenings", "cargo_screenings", "access_log"])
    format = serializers.ChoiceField(choices=["csv", "jsonl"])


class WebhookTestData(ClosedSerializer):
    """`data` of webhook.test."""

    webhook_endpoint_id = serializers.CharField(help_text="The endpoint the test was asked for (whe_…)")
    message = serializers.CharField()


class VerdictSanctions(serializers.Serializer):
    """The sanctions part of a monitor's verdict."""

    status = serializers.ChoiceField(choices=[*SANCTIONS_VERDICTS, "INCOMPLETE"])
    coverage_complete = serializers.BooleanField()
    coverage_gaps = serializers.ListField(child=serializers.CharField(), help_text="Sources missing from the screen")


class MonitorVerdict(serializers.Serializer):
    """A verdict as a vessel monitor keeps it, read from one screening."""

    screening_id = serializers.CharField(allow_null=True, help_text="The screening it was read from")
    screened_at = serializers.DateTimeField(allow_null=True)
    sanctions = VerdictSanctions()
    ownership_opacity = serializers.ChoiceField(choices=OPACITY_BANDS, allow_null=True)
    vetting_grade = serializers.ChoiceField(choices=GRADES, allow_null=True)


class ListEditionTrigger(serializers.Serializer):
    """The list edition that started an out-of-cycle run (its sanctions_list.updated event says more)."""

    type = serializers.ChoiceField(choices=["sanctions_list.updated"])
    # Declared fields leave the class body (the serializer metaclass takes them), so this does not
    # replace Field.source; the stubs see a plain class attribute.
    source = serializers.CharField(help_text="e.g. ofac_sdn")  # type: ignore[assignment]
    edition = serializers.CharField(allow_null=True, help_text="Which file of the source, where it has several")
    list_snapshot_id = serializers.CharField(help_text="The loaded edition (snp_…)")
    published = serializers.DateTimeField(allow_null=True, help_text="What the publisher stamps; null when unknown")


class _MonitorEventData(serializers.Serializer):
    vessel_monitor_id = serializers.CharField(help_text="The vessel monitor")
    imo = serializers.CharField(min_length=7, max_length=7)
    customer_reference = serializers.CharField(allow_null=True)
    trigger = ListEditionTrigger(
        required=False,
        help_text="Present when the run was out of cycle: a new edition of a list changed a listing this hull "
        "can match (its names or identifiers). Absent on the daily run.",
    )


class SanctionsListUpdatedData(ClosedSerializer):
    """`data` of sanctions_list.updated."""

    source = serializers.CharField(help_text="The list, e.g. ofac_sdn")  # type: ignore[assignment]
    edition = serializers.CharField(allow_null=True, help_text="Which file of the source, where it has several")
    list_snapshot_id = serializers.CharField(help_text="The loaded edition (snp_…)")
    published = serializers.DateTimeField(allow_null=True, help_text="What the publisher stamps; null when unknown")
    retrieved_at = serializers.DateTimeField(help_text="When the service took this copy")
    added = serializers.IntegerField(min_value=0, help_text="Listings in this edition and not the previous one")
    removed = serializers.IntegerField(min_value=0, help_text="Listings in the previous edition and not this one")
    changed = serializers.IntegerField(
        min_value=0, help_text="Listings in both whose names, identifiers or programmes changed"
    )
    monitored_hulls_rescreened = serializers.IntegerField(
        min_value=0,
        help_text="How many of this account's live vessel monitors were queued for an out-of-cycle run because the "
        "edition changed a listing their hull can match (by IMO, MMSI or name); each emits vessel_risk.changed "
        "exactly as a daily run would. No unit is charged.",
    )


class VesselMonitorReadyData(_MonitorEventData):
    """`data` of vessel_monitor.ready: the baseline the monitor's first run established."""

    baseline_verdict = MonitorVerdict()


class RiskChange(serializers.Serializer):
    """One field of the verdict that moved (either direction) and both screens agreed on."""

    # The serializer's metaclass takes declared fields out of the class, so this does not replace
    # Field.label; the stubs see a plain class attribute.
    label = serializers.ChoiceField(  # type: ignore[assignment]
        choices=["Sanctions status", "Ownership opacity", "Vetting grade"]
    )
    previous = serializers.CharField(
        allow_null=True, help_text="RED/AMBER/GREEN, LOW/MEDIUM/HIGH or A to E, as the label says"
    )
    current = serializers.CharField(allow_null=True)
    severity = serializers.ChoiceField(choices=SEVERITIES)


class VesselRiskChangedData(_MonitorEventData):
    """`data` of vessel_risk.changed."""

    screening_id = serializers.CharField(allow_null=True, help_text="The screening that read the change")
    severity = serializers.ChoiceField(choices=SEVERITIES, help_text="The highest severity of the changes")
    changes = RiskChange(many=True)
    previous_verdict = MonitorVerdict(help_text="The baseline before the change")
    current_verdict = MonitorVerdict(help_text="The baseline after it (only the agreed fields moved)")


class VesselDataDegradedData(_MonitorEventData):
    """`data` of vessel_data.degraded: the run's screen was INCOMPLETE; the baseline is kept."""

    screening_id = serializers.CharField(allow_null=True)
    coverage_complete = serializers.BooleanField()
    coverage_gaps = serializers.ListField(child=serializers.CharField())
    baseline_verdict = MonitorVerdict(allow_null=True, help_text="null when the monitor has no baseline yet")


class VesselBehaviourFlaggedData(_MonitorEventData):
    """`data` of vessel_behaviour.flagged: one new event of a monitored hull's AIS."""

    event = BehaviourEventSchema(
        help_text="As GET /api/v1/vessels/{imo}/behaviour returns it, with the evidence a reviewer checks"
    )


# type -> (data serializer, summary, when it is sent)
EVENT_DATA: dict[str, tuple[type[serializers.Serializer], str, str]] = {
    "vessel_monitor.ready": (
        VesselMonitorReadyData,
        "A vessel monitor's first run established its baseline",
        "Sent once per monitor, by its first run with a verdict (live or simulated); never a change.",
    ),
    "vessel_risk.changed": (
        VesselRiskChangedData,
        "A monitored hull's sanctions status, ownership opacity or vetting grade moved",
        "Sent in both directions, only for fields a second screen agreed on. Severity: Sanctions status is "
        "critical when RED is on either side, high otherwise; Ownership opacity high when it becomes HIGH; "
        "Vetting grade high when it becomes E or moves two grades or more; low otherwise.",
    ),
    "sanctions_list.updated": (
        SanctionsListUpdatedData,
        "A new edition of a sanctions list was loaded and changed listings",
        "Sent within minutes of the publisher's file (sources are polled every SOURCE_POLL_SECONDS, 600 by "
        "default), once per edition, to endpoints receiving it, with how many of the account's monitored hulls "
        "are being re-screened because of it. Hulls the edition cannot touch are not re-screened.",
    ),
    "vessel_behaviour.flagged": (
        VesselBehaviourFlaggedData,
        "A monitored hull's AIS shows a new event of medium or high severity",
        "Sent once per new event and live vessel monitor, when the AIS load that revealed it commits: a dark "
        "period, a ship-to-ship meeting (the hull on either side), an identity change, a shared MMSI, spoofed "
        "positions, a call in a sanctioned state's port, or a draught change away from any port. Never changes "
        "the monitor's baseline verdict (sanctions status, opacity, grade). No unit is charged.",
    ),
    "vessel_data.degraded": (
        VesselDataDegradedData,
        "A monitor run's screen was INCOMPLETE",
        "The baseline is not updated; the coverage fields say what was missing.",
    ),
    "screening.resolved": (
        ScreeningResolvedData,
        "An INCOMPLETE screening was answered by a later record",
        "Sent when a later screening of the same hull (automatic re-screen or the caller's own) gives a verdict. "
        "`data` holds exactly these fields.",
    ),
    "screening.unresolved": (
        ScreeningUnresolvedData,
        "The automatic re-screening schedule ran out with the hull still INCOMPLETE",
        "`remedy` says what to send (identity) or when to re-screen (coverage).",
    ),
    "usage.quota_warning": (
        UsageQuotaWarningData,
        "80 % of the live screening allowance is used",
        "Sent once, when a screening crosses the mark.",
    ),
    "voyage_batch.completed": (
        VoyageBatchCompletedData,
        "A voyage assessment batch ended",
        "Sent when the last route of a batch reaches a final status.",
    ),
    "export.completed": (
        ExportCompletedData,
        "An export's file is written (or the export failed)",
        "Sent once per export when its worker ends; the file stays downloadable for EXPORT_RETENTION_HOURS.",
    ),
    TEST_EVENT_TYPE: (
        WebhookTestData,
        "A signed test delivery (POST /api/v1/webhook-endpoints/{id}/test)",
        "Sent only to the endpoint asked, whatever event_types it lists; never listed in event_types.",
    ),
}

# Types in EVENT_TYPES whose emitter is being built: published with an open `data` object until the
# emitter lands and its serializer joins EVENT_DATA. tests/webhooks/test_event_schema.py fails for any
# other type without a documented payload.
PENDING_PAYLOADS = frozenset(
    {
        "screening_batch.completed",
    }
)


class PendingData(serializers.DictField):
    """`data` of an event type whose payload is not documented yet: an object."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(help_text="An object; its fields are documented once the emitter is built", **kwargs)


def documented() -> dict[str, tuple[type[serializers.Serializer], str, str]]:
    """EVENT_DATA with the corridor monitor events (documented beside their emitter)."""
    return {**EVENT_DATA, **CORRIDOR_EVENT_DATA}


def _published() -> dict[str, tuple[type[serializers.Field], str, str]]:
    """Every type an endpoint can receive (EVENT_TYPES and webhook.test), in that order."""
    published: dict[str, tuple[type[serializers.Field], str, str]] = {}
    data = documented()
    for event_type in [*EVENT_TYPES, TEST_EVENT_TYPE]:
        published[event_type] = data.get(event_type) or (
            PendingData,
            f"{event_type} (payload not documented yet)",
            "The payload of this type is documented when its emitter is built; `data` is an object.",
        )
    return published


# -- the envelope -----------------------------------------------------------------------------


def _const(value: str) -> serializers.Field:
    @extend_schema_field({"type": "string", "const": value})
    class ConstField(serializers.CharField):
        pass

    return ConstField(help_text=f"Always `{value}`")


def _component_name(event_type: str) -> str:
    return "".join(part.capitalize() for part in event_type.replace(".", "_").split("_"))


def _envelope(event_type: str, data: type[serializers.Field]) -> type[serializers.Serializer]:
    fields = {
        "__module__": __name__,
        "__doc__": f"The signed body of a `{event_type}` delivery.",
        "id": serializers.CharField(
            help_text="Event id (evt_…), also in the X-Service-Event-Id header: deduplicate on it"
        ),
        "type": _const(event_type),
        "created": serializers.DateTimeField(help_text="When the event was recorded (RFC 3339, UTC)"),
        "environment": serializers.ChoiceField(
            choices=["test", "live"], help_text="The environment of the key that owns the endpoint"
        ),
        "api_version": serializers.CharField(
            help_text=f"The API version of the payload ({settings.SERVICE_API_VERSION})"
        ),
        "data": data(),
    }
    return type(f"{_component_name(event_type)}Event", (ClosedSerializer,), fields)


def _delays_text() -> str:
    delays = retry_delays()
    return f"{max_attempts()} attempts: the first at once, then after {', '.join(map(human_duration, delays))} (±10 %)"


def _description(event_type: str, when: str) -> str:
    return (
        f"{when}\n\n"
        "A POST of the JSON envelope to each endpoint of the event's environment that receives this type "
        "(`event_types` empty, or listing it). Headers:\n\n"
        f'- `{SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex>` — hex HMAC-SHA256 of `t + "." + raw body` keyed '
        "with the endpoint secret; during a secret rotation's overlap a second `v1=` signs with the previous "
        "secret. Compare in constant time with any `v1`, reject a `t` older than 5 minutes.\n"
        f"- `{EVENT_ID_HEADER}` — the event id (the body's `id`); at-least-once delivery, so deduplicate on it.\n"
        "- `X-Service-Event-Type`, `X-Service-Delivery-Id`, `X-Service-Delivery-Attempt`.\n\n"
        f"Retries: {_delays_text()}; then the delivery is `dead`. See "
        f"[Verifying webhook signatures]({SIGNATURES_ANCHOR}), with recipes in Python and Node.js."
    )


RESPONSES = {
    "2XX": OpenApiResponse(description="Received: answer any 2xx promptly (within 10 seconds); the body is ignored"),
    "410": OpenApiResponse(description="Gone: the endpoint is disabled and the delivery ends `dead`"),
    "default": OpenApiResponse(description="Anything else, or no answer in time, is retried on the schedule"),
}

PUBLISHED = _published()
PUBLISHED_EVENT_TYPES = list(PUBLISHED)  # the EventTypeEnum entry of SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"]
ENVELOPES = {event_type: _envelope(event_type, spec[0]) for event_type, spec in PUBLISHED.items()}

WEBHOOKS = [
    OpenApiWebhook(
        name=event_type,
        decorator=extend_schema(
            summary=summary,
            description=_description(event_type, when),
            request={"application/json": ENVELOPES[event_type]},
            responses=RESPONSES,
        ),
    )
    for event_type, (_, summary, when) in PUBLISHED.items()
]
