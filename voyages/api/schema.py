"""OpenAPI descriptions of voyage payloads (documentation; documents are built in services)."""

from __future__ import annotations

from rest_framework import serializers

from jobs.models import Job, JobItem
from voyages.passages import PASSAGES
from voyages.requests import LOAD_CONDITIONS, MAX_VIA, VESSEL_TYPES


class RouteRequestSchema(serializers.Serializer):
    origin = serializers.JSONField(help_text='Uppercase UN/LOCODE: "NLRTM" or {"locode": "NLRTM"}; names are refused.')
    destination = serializers.JSONField(help_text="As origin.")
    via = serializers.ListField(
        child=serializers.JSONField(),
        required=False,
        max_length=MAX_VIA,
        help_text="Up to 20 points, each [lon, lat] or {lat, lon}. A point on land is refused (validation_failed on "
        "route.via[i]); at sea it joins the nearest sea-lane node within 150 nm, returned in via_waypoints.",
    )
    vessel_type = serializers.ChoiceField(choices=VESSEL_TYPES, required=False)
    load_condition = serializers.ChoiceField(choices=LOAD_CONDITIONS, required=False)
    speed_knots = serializers.FloatField(required=False, min_value=1, max_value=40)
    dwt_tonnes = serializers.FloatField(required=False, min_value=100, max_value=600000)
    fuel_type = serializers.CharField(required=False, help_text="HFO, LFO, MDO, MGO, LNG, methanol …")
    fuel_consumption_tonnes_per_day = serializers.FloatField(required=False)
    bunker_price_usd_per_tonne = serializers.FloatField(required=False)
    closed_passages = serializers.ListField(
        child=serializers.ChoiceField(choices=sorted(PASSAGES)),
        required=False,
        help_text="Passages to route around (replaces the default closures, which close only the Northwest "
        'Passage); e.g. ["suez", "babalmandab", "northwest"].',
    )


class AssessmentRequestSchema(serializers.Serializer):
    customer_reference = serializers.CharField(required=False)
    route = RouteRequestSchema()


class RouteSchema(serializers.Serializer):
    origin_locode = serializers.CharField()
    dest_locode = serializers.CharField()
    via_waypoints = serializers.ListField(child=serializers.ListField(child=serializers.FloatField()))
    distance_nm = serializers.FloatField()
    geometry = serializers.JSONField(help_text="GeoJSON Feature with a LineString")


class DriverSchema(serializers.Serializer):
    source = serializers.CharField()
    label = serializers.CharField()
    summary = serializers.CharField()
    event_count = serializers.IntegerField(allow_null=True)
    signal_score = serializers.IntegerField()
    weight_pct = serializers.IntegerField()
    contribution_pct = serializers.FloatField(help_text="Share of the score, in percent, to one decimal place.")
    contribution_band = serializers.CharField()
    sets_floor = serializers.BooleanField()
    relative_rank = serializers.IntegerField()


class JwcAreaSchema(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    risk_level = serializers.CharField()
    route_fraction = serializers.FloatField()


class EezSanctionsSchema(serializers.Serializer):
    is_sanctioned = serializers.BooleanField()
    regimes = serializers.ListField(child=serializers.CharField())


class EezTransitSchema(serializers.Serializer):
    country_code = serializers.CharField()
    country_name = serializers.CharField()
    risk_category = serializers.CharField()
    route_fraction = serializers.FloatField()
    sanctions = EezSanctionsSchema()


class VoyageScoreFloorSchema(serializers.Serializer):
    basis = serializers.ChoiceField(
        choices=[
            "listed_area_transit",
            "listed_area_active_hostility",
            "named_country_port_call",
            "sanctioned_eez_transit",
        ]
    )
    value = serializers.IntegerField()
    explanation = serializers.CharField()
    weighted_score = serializers.IntegerField()


class VoyageSourceSchema(serializers.Serializer):
    source = serializers.CharField()
    status = serializers.CharField()
    checked_at = serializers.DateTimeField(allow_null=True)
    basis = serializers.CharField()
    message = serializers.CharField(required=False)


class AssessmentSchema(serializers.Serializer):
    id = serializers.CharField()
    customer_reference = serializers.CharField(required=False)
    route = RouteSchema()
    score = serializers.IntegerField()
    risk_level = serializers.ChoiceField(choices=["low", "moderate", "elevated", "high", "severe"])
    drivers = DriverSchema(many=True)
    jwc_intersected_areas = JwcAreaSchema(many=True)
    eez_transit = EezTransitSchema(many=True)
    score_floor = VoyageScoreFloorSchema(required=False)
    confidence = serializers.FloatField()
    missing_sources = serializers.ListField(child=serializers.CharField())
    sources = VoyageSourceSchema(many=True)
    source_status = serializers.DictField(child=serializers.CharField(), help_text="Deprecated: use sources.")
    methodology_version = serializers.CharField()
    assessed_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    disclaimer = serializers.CharField()
    carbon_intensity = serializers.JSONField(
        required=False, help_text="IMO CII block when vessel_type, dwt and speed are given"
    )
    report_url = serializers.URLField()


class BatchRequestSchema(serializers.Serializer):
    customer_reference = serializers.CharField(required=False)
    routes = AssessmentRequestSchema(many=True, help_text="Up to 10 (test_max_routes / live_max_routes)")


class BatchSchema(serializers.Serializer):
    id = serializers.CharField()
    status = serializers.ChoiceField(choices=Job.Status.values)
    customer_reference = serializers.CharField(allow_null=True)
    item_count = serializers.IntegerField()
    accepted_count = serializers.IntegerField()
    counts = serializers.DictField(child=serializers.IntegerField())
    created_at = serializers.DateTimeField()
    completed_at = serializers.DateTimeField(allow_null=True)
    items_url = serializers.CharField()


class BatchItemSchema(serializers.Serializer):
    id = serializers.CharField()
    position = serializers.IntegerField()
    status = serializers.ChoiceField(choices=JobItem.Status.values)
    assessment = AssessmentSchema(required=False)
    error = serializers.JSONField(required=False)


class BatchItemsSchema(serializers.Serializer):
    items = BatchItemSchema(many=True)
    next_cursor = serializers.CharField(allow_null=True)
