"""The `data` of the corridor monitor events (what monitoring/corridors.py emits), for the OpenAPI
`webhooks` section: `CORRIDOR_EVENT_DATA` has the shape of config.openapi_webhooks.EVENT_DATA
(type -> (data serializer, summary, when it is sent)) and joins it there."""

from __future__ import annotations

from rest_framework import serializers

from core.api.openapi import ClosedSerializer
from monitoring.corridors import SCORE_THRESHOLD

RISK_LEVELS = ["low", "moderate", "elevated", "high", "severe"]


class ScoreFloorSummarySchema(serializers.Serializer):
    basis = serializers.CharField(help_text="As score_floor.basis of the assessment")
    value = serializers.IntegerField()


class ListedAreaSummarySchema(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    risk_level = serializers.CharField()


class CorridorComparedSchema(serializers.Serializer):
    """The parts of a run's reading the change detector compares."""

    assessment_id = serializers.CharField(help_text="GET /api/v1/voyage-assessments/{id} (voyage:score) for it all")
    assessed_at = serializers.DateTimeField()
    score = serializers.IntegerField()
    risk_level = serializers.ChoiceField(choices=RISK_LEVELS)
    score_floor = ScoreFloorSummarySchema(allow_null=True)
    listed_areas = ListedAreaSummarySchema(many=True, help_text="JWC listed areas the route touches")


class CorridorChangeSchema(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["risk_level", "score", "score_floor", "listed_area"])
    # A declared field named like Field.label: the serializer metaclass pops it out of the class body, so
    # nothing is overridden, but the DRF stubs read it as replacing the str attribute.
    label = serializers.ChoiceField(choices=["Risk level", "Score", "Score floor", "Listed area"])  # type: ignore[assignment]
    previous = serializers.JSONField(allow_null=True, help_text="The baseline's value (null: none)")
    current = serializers.JSONField(allow_null=True, help_text="This run's value (null: none)")
    direction = serializers.ChoiceField(
        choices=["up", "down", "level", "applied", "lifted", "changed", "entered", "left"]
    )
    delta = serializers.IntegerField(required=False, help_text="Score changes only: current minus previous")


class _CorridorEventData(ClosedSerializer):
    monitor_id = serializers.CharField(help_text="The corridor monitor (cmo_…)")
    customer_reference = serializers.CharField(allow_null=True)
    origin_locode = serializers.CharField()
    dest_locode = serializers.CharField()


class _CorridorRunEventData(_CorridorEventData):
    assessment_id = serializers.CharField(help_text="The run's assessment (vas_…)")
    slot = serializers.DateTimeField(help_text="The scheduled instant the run stands for")


class CorridorRiskChangedData(_CorridorRunEventData):
    direction = serializers.ChoiceField(choices=["up", "down", "level"], help_text="Which way the score went")
    changes = CorridorChangeSchema(many=True)
    previous = CorridorComparedSchema(help_text="The baseline")
    current = CorridorComparedSchema(help_text="This run's reading (the new baseline)")


class CorridorDataDegradedData(_CorridorRunEventData):
    degraded_sources = serializers.ListField(child=serializers.CharField(), help_text="Sources this run lacked")
    message = serializers.CharField()


class CorridorDataRecoveredData(_CorridorRunEventData):
    recovered_sources = serializers.ListField(child=serializers.CharField(), help_text="Sources back")


class CorridorMonitorDeferredData(_CorridorEventData):
    slot = serializers.DateTimeField(help_text="The run that waits")
    reason = serializers.ChoiceField(choices=["voyage_allowance_used"])
    used = serializers.IntegerField()
    limit = serializers.IntegerField()
    resets_at = serializers.DateTimeField(allow_null=True, help_text="When the run is tried again")
    message = serializers.CharField()


CORRIDOR_EVENT_DATA: dict[str, tuple[type[serializers.Serializer], str, str]] = {
    "corridor_risk.changed": (
        CorridorRiskChangedData,
        "A monitored corridor changed materially",
        "Sent in both directions when a run differs from the baseline by any of: the risk level, the score by "
        f"{SCORE_THRESHOLD} points or more, a score floor applied, lifted or changed basis, a JWC listed area "
        "entered or left. The first run (the baseline) never sends it; the reading sent becomes the baseline.",
    ),
    "corridor_data.degraded": (
        CorridorDataDegradedData,
        "A corridor run lacked a source the baseline had",
        "Sent once, by the first run lacking it (absent from sources or newly in missing_sources); while "
        "degraded the baseline is kept and no change is sent.",
    ),
    "corridor_data.recovered": (
        CorridorDataRecoveredData,
        "A degraded corridor's sources are back",
        "Sent by the first run with every baseline source back; that run is then compared with the baseline.",
    ),
    "corridor_monitor.deferred": (
        CorridorMonitorDeferredData,
        "A corridor run waits for the live voyage allowance",
        "Sent once per deferral: nothing was charged; the run is tried again at resets_at.",
    ),
}
