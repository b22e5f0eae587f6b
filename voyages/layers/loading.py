"""Files in, LayerSnapshot rows out: atomic per layer; a bad file is recorded and changes nothing."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from datetime import UTC, datetime, time

from django.db import transaction

from voyages.layers.piracy import incidents_to_payload, parse_asam_csv, parse_imb_csv
from voyages.models import LayerSnapshot


def fail_layer(layer: str, origin: str, reason: str) -> LayerSnapshot:
    return LayerSnapshot.objects.create(
        layer=layer, status=LayerSnapshot.STATUS_FAILED, origin=origin[:500], message=reason[:500]
    )


def activate_layer(
    layer: str, payload: list, *, origin: str, message: str = "", latest_event_at: datetime | None = None
) -> LayerSnapshot:
    """Make `payload` the serving copy of `layer` in one transaction."""
    with transaction.atomic():
        LayerSnapshot.objects.filter(layer=layer, status=LayerSnapshot.STATUS_ACTIVE).update(
            status=LayerSnapshot.STATUS_SUPERSEDED
        )
        return LayerSnapshot.objects.create(
            layer=layer,
            status=LayerSnapshot.STATUS_ACTIVE,
            payload=payload,
            row_count=len(payload),
            latest_event_at=latest_event_at,
            origin=origin[:500],
            message=message[:500],
        )


def _load(layer: str, origin: str, parse: Callable[[], tuple[list, str, datetime | None]]) -> LayerSnapshot:
    try:
        payload, message, latest = parse()
    except (ValueError, KeyError, UnicodeDecodeError) as exc:
        return fail_layer(layer, origin, f"parse failed: {exc}")
    if not payload:
        return fail_layer(layer, origin, "the file holds no usable rows")
    return activate_layer(layer, payload, origin=origin, message=message, latest_event_at=latest)


def load_piracy_file(data: bytes, fmt: str, origin: str) -> LayerSnapshot:
    """An ASAM or IMB-format incident file as layer piracy_asam / piracy_imb."""
    parser = {"asam": parse_asam_csv, "imb": parse_imb_csv}[fmt]

    def parse() -> tuple[list, str, datetime | None]:
        incidents = parser(data)
        newest = max((i.day for i in incidents), default=None)
        latest = datetime.combine(newest, time.min, tzinfo=UTC) if newest else None
        return incidents_to_payload(incidents), "", latest

    return _load(f"piracy_{fmt}", origin, parse)


def load_country_indicators_csv(data: bytes, origin: str) -> LayerSnapshot:
    """CSV with header iso2, political_stability (World Bank WGI style estimate, -2.5 to 2.5)."""

    def parse() -> tuple[list, str, datetime | None]:
        reader = csv.DictReader(io.StringIO(data.decode("utf-8-sig")))
        if not reader.fieldnames or not {"iso2", "political_stability"} <= set(reader.fieldnames):
            raise ValueError("expected the columns iso2, political_stability")
        rows = []
        for row in reader:
            try:
                value = float(row["political_stability"])
            except (TypeError, ValueError):
                continue
            code = (row["iso2"] or "").strip().upper()
            if len(code) == 2 and -3.0 <= value <= 3.0:
                rows.append([code, value])
        return rows, "", None

    return _load("country_indicators", origin, parse)


def load_eez_geojson(data: bytes, origin: str) -> LayerSnapshot:
    """Marine Regions EEZ polygons (GeoJSON FeatureCollection with iso2 or ISO_TER1/ISO_SOV1 properties)."""
    import pycountry

    def parse() -> tuple[list, str, datetime | None]:
        collection = json.loads(data)
        if collection.get("type") != "FeatureCollection":
            raise ValueError("expected a GeoJSON FeatureCollection")
        features = []
        for feature in collection.get("features", []):
            props = feature.get("properties") or {}
            code = (props.get("iso2") or "").upper()
            if not code:
                alpha3 = props.get("ISO_TER1") or props.get("ISO_SOV1") or ""
                country = pycountry.countries.get(alpha_3=alpha3) if alpha3 else None
                code = country.alpha_2 if country else ""
            if len(code) == 2 and feature.get("geometry"):
                features.append([code, feature["geometry"]])
        return features, "Marine Regions EEZ polygons", None

    return _load("eez", origin, parse)
