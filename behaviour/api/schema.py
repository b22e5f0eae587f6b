"""OpenAPI description of the behaviour report (documentation; the report is built in selectors)."""

from __future__ import annotations

from rest_framework import serializers

from behaviour.detectors.base import EventKind, Severity
from behaviour.models import AisLink, AisLoad

# Published once each (SPECTACULAR_SETTINGS ENUM_NAME_OVERRIDES): BehaviourEventKindEnum, BehaviourSeverityEnum.
EVENT_KINDS = [kind.value for kind in EventKind]
SEVERITIES = [level.value for level in Severity]


class BehaviourPositionSchema(serializers.Serializer):
    lat = serializers.FloatField()
    lon = serializers.FloatField()


class OtherVesselSchema(serializers.Serializer):
    mmsi = serializers.CharField()
    imo = serializers.CharField(allow_null=True, help_text="The IMO the other ship transmitted, when known.")


class BehaviourEventSchema(serializers.Serializer):
    id = serializers.CharField(help_text="bev_…")
    kind = serializers.ChoiceField(choices=EVENT_KINDS)
    severity = serializers.ChoiceField(choices=SEVERITIES)
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField()
    position = BehaviourPositionSchema(help_text="Where it happened (a gap's start, a meeting's centre, a stop).")
    mmsi = serializers.CharField()
    other_vessel = OtherVesselSchema(allow_null=True)
    summary = serializers.CharField(help_text="One sentence: what, when, where, with whom.")
    advisory_practice = serializers.CharField(
        help_text="The deceptive shipping practice of the US Global Maritime Sanctions Advisory (May 2020) "
        "this kind of event is evidence of."
    )
    evidence = serializers.DictField(
        help_text="What a reviewer checks: times (RFC 3339), positions, distances, speeds, the thresholds applied."
    )
    detector_version = serializers.CharField()


class BehaviourIdentitySchema(serializers.Serializer):
    mmsi = serializers.CharField()
    basis = serializers.ChoiceField(
        choices=AisLink.Basis.values,
        help_text="static_imo: the ship transmitted this IMO (check digit valid) from this MMSI; register_mmsi: "
        "a register we hold gives this MMSI for the IMO.",
    )
    first_seen_at = serializers.DateTimeField(allow_null=True)
    last_seen_at = serializers.DateTimeField(allow_null=True)
    names = serializers.ListField(child=serializers.CharField(), help_text="Names transmitted with the IMO.")


class BehaviourFileSchema(serializers.Serializer):
    file_name = serializers.CharField()
    format = serializers.ChoiceField(choices=["dma", "marinecadastre", "nmea"])
    origin = serializers.ChoiceField(
        choices=AisLoad.Origin.values,
        help_text="command (manage.py load_ais), drop_folder, or demo: the demo world's generated AIS, not a feed",
    )
    loaded_at = serializers.DateTimeField(allow_null=True)


class BehaviourCoverageSchema(serializers.Serializer):
    positions = serializers.IntegerField(help_text="Position reports of the hull's MMSIs in the window.")
    days_with_positions = serializers.IntegerField()
    first_position_at = serializers.DateTimeField(allow_null=True)
    last_position_at = serializers.DateTimeField(allow_null=True)
    longest_gap_hours = serializers.FloatField(help_text="The longest silence between two reports, any speed.")
    files = BehaviourFileSchema(many=True, help_text="The AIS files the positions came from.")


class BehaviourSummarySchema(serializers.Serializer):
    events = serializers.IntegerField()
    by_kind = serializers.DictField(child=serializers.IntegerField(), help_text="Every kind, zeros included.")
    highest_severity = serializers.ChoiceField(choices=SEVERITIES, allow_null=True)
    strongest = BehaviourEventSchema(many=True, help_text="Up to three events above info, strongest first.")


class BehaviourReportSchema(serializers.Serializer):
    imo = serializers.CharField()
    # `from` is a Python keyword: declared below.
    to = serializers.DateTimeField()
    observed = serializers.BooleanField(
        help_text="false: no position of the hull's MMSIs is held for the window (no AIS loaded, or it was "
        "silent); the absence of events then says nothing."
    )
    identities = BehaviourIdentitySchema(many=True)
    coverage = BehaviourCoverageSchema()
    summary = BehaviourSummarySchema()
    events = BehaviourEventSchema(many=True, help_text="Oldest first; one page (?limit=, ?cursor=).")
    next_cursor = serializers.CharField(allow_null=True)


BehaviourReportSchema._declared_fields["from"] = serializers.DateTimeField()
