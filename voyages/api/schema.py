"""OpenAPI descriptions of voyage payloads (documentation; documents are built in services)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.api.strict_input import StrictInputSerializer
from jobs.models import Job, JobItem
from metering.quota import LIVE_MAX_ROUTES, TEST_MAX_ROUTES
from screening.api.schema import ImoTextField
from voyages.passages import PASSAGES
from voyages.requests import (
    FUEL_TYPES,
    LOAD_CONDITIONS,
    MAX_CUSTOMER_REFERENCE,
    MAX_VIA,
    NUMBER_RANGES,
    VESSEL_TYPES,
)

# The documentation of voyages.requests.parse_route_request, which is what validates: every
# constraint below is one it enforces. Optional fields may be null, which reads as absent.
_LOCODE = {"type": "string", "pattern": "^[A-Z]{2}[A-Z2-9]{3}$", "description": "Uppercase 5-character UN/LOCODE"}


@extend_schema_field(
    {
        "oneOf": [_LOCODE, {"type": "object", "properties": {"locode": _LOCODE}, "required": ["locode"]}],
        "description": 'Uppercase UN/LOCODE: "NLRTM" or {"locode": "NLRTM"}; names are refused, and a code the '
        "service does not carry is validation_failed on this field.",
    }
)
class _PortField(serializers.JSONField):
    pass


_LON = {"type": "number", "minimum": -180, "maximum": 180}
_LAT = {"type": "number", "minimum": -90, "maximum": 90}


@extend_schema_field(
    {
        "oneOf": [
            {"type": "array", "prefixItems": [_LON, _LAT], "minItems": 2, "maxItems": 2, "description": "[lon, lat]"},
            {"type": "object", "properties": {"lat": _LAT, "lon": _LON}, "required": ["lat", "lon"]},
        ]
    }
)
class _ViaPointField(serializers.JSONField):
    pass


def _number(name: str, **kwargs: Any) -> serializers.FloatField:
    minimum, maximum = NUMBER_RANGES[name]
    return serializers.FloatField(required=False, allow_null=True, min_value=minimum, max_value=maximum, **kwargs)


class RouteRequestSchema(StrictInputSerializer):
    origin = _PortField()
    destination = _PortField(help_text="As origin; must differ from it.")
    via = serializers.ListField(
        child=_ViaPointField(),
        required=False,
        allow_null=True,
        max_length=MAX_VIA,
        help_text="Up to 20 points, each [lon, lat] or {lat, lon}. A point on land is refused (validation_failed on "
        "route.via[i]); at sea it joins the nearest sea-lane node within 150 nm, returned in via_waypoints.",
    )
    vessel_type = serializers.ChoiceField(choices=VESSEL_TYPES, required=False, allow_null=True)
    load_condition = serializers.ChoiceField(choices=LOAD_CONDITIONS, required=False, allow_null=True)
    speed_knots = _number("speed_knots")
    dwt_tonnes = _number("dwt_tonnes")
    fuel_type = serializers.ChoiceField(
        choices=FUEL_TYPES,
        required=False,
        allow_null=True,
        help_text="The fuel burnt, for the carbon block; any other value is validation_failed on route.fuel_type.",
    )
    fuel_consumption_tonnes_per_day = _number("fuel_consumption_tonnes_per_day")
    bunker_price_usd_per_tonne = _number("bunker_price_usd_per_tonne")
    closed_passages = serializers.ListField(
        child=serializers.ChoiceField(choices=sorted(PASSAGES)),
        required=False,
        allow_null=True,
        help_text="Passages to route around (replaces the default closures, which close only the Northwest "
        'Passage); e.g. ["suez", "babalmandab", "northwest"].',
    )


class AssessmentRequestSchema(StrictInputSerializer):
    customer_reference = serializers.CharField(
        required=False, allow_null=True, allow_blank=True, max_length=MAX_CUSTOMER_REFERENCE
    )
    route = RouteRequestSchema()
    imo = ImoTextField(
        required=False,
        help_text="The hull sailing the route (7 digits with a valid check digit). Adds the `ais_behaviour` "
        "driver: what the hull's AIS showed over the last 90 days. It carries weight 0, so the score stays the "
        "pinned weighted average of the five drivers.",
    )


class RouteSchema(serializers.Serializer):
    origin_locode = serializers.CharField()
    dest_locode = serializers.CharField()
    via_waypoints = serializers.ListField(child=serializers.ListField(child=serializers.FloatField()))
    distance_nm = serializers.FloatField()
    geometry = serializers.JSONField(help_text="GeoJSON Feature with a LineString")


class DriverSchema(serializers.Serializer):
    # Declared fields named like Field attributes (source, label): the serializer metaclass pops them out
    # of the class body, so nothing is overridden, but the DRF stubs read them as replacing those attributes.
    source = serializers.CharField()  # type: ignore[assignment]
    label = serializers.CharField()  # type: ignore[assignment]
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
    # A declared field named like Field.source: the serializer metaclass pops it out of the class body, so
    # nothing is overridden, but the DRF stubs read it as replacing the attribute.
    source = serializers.CharField()  # type: ignore[assignment]
    status = serializers.CharField()
    checked_at = serializers.DateTimeField(allow_null=True)
    basis = serializers.CharField()
    message = serializers.CharField(required=False)


class AssessmentSchema(serializers.Serializer):
    id = serializers.CharField()
    customer_reference = serializers.CharField(required=False)
    route = RouteSchema()
    imo = serializers.CharField(required=False, help_text="Present when the request named the hull")
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


@extend_schema_field(
    {
        "description": "A route request {customer_reference?, route}, as POST /api/v1/voyage-assessments takes it. "
        "Any value is accepted here: each route is judged on its own, an invalid one rejected in the batch's items."
    }
)
class _JudgedRoute(serializers.JSONField):
    pass


class BatchRequestSchema(StrictInputSerializer):
    customer_reference = serializers.CharField(required=False, allow_null=True, allow_blank=True)
    routes = serializers.ListField(
        child=_JudgedRoute(),
        min_length=1,
        max_length=max(TEST_MAX_ROUTES, LIVE_MAX_ROUTES),
        help_text="1 to test_max_routes / live_max_routes (GET /api/v1/usage) routes. When none is valid the "
        "batch is 422 naming each route's violations.",
    )


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
