"""Files in, LayerSnapshot rows out: atomic per layer; a bad file is recorded and changes nothing."""

from __future__ import annotations

import csv
import io
import tempfile
import zipfile
from collections.abc import Callable
from datetime import UTC, datetime, time
from pathlib import Path

from django.db import transaction

from voyages.layers.piracy import incidents_to_payload, parse_asam_csv, parse_imb_csv
from voyages.models import LayerSnapshot


def fail_layer(layer: str, origin: str, reason: str) -> LayerSnapshot:
    return LayerSnapshot.objects.create(
        layer=layer, status=LayerSnapshot.Status.FAILED, origin=origin[:500], message=reason[:500]
    )


def activate_layer(
    layer: str, payload: list, *, origin: str, message: str = "", latest_event_at: datetime | None = None
) -> LayerSnapshot:
    """Make `payload` the serving copy of `layer` in one transaction."""
    with transaction.atomic():
        LayerSnapshot.objects.filter(layer=layer, status=LayerSnapshot.Status.ACTIVE).update(
            status=LayerSnapshot.Status.SUPERSEDED
        )
        return LayerSnapshot.objects.create(
            layer=layer,
            status=LayerSnapshot.Status.ACTIVE,
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


# Marine Regions publishes the World EEZ as a zipped shapefile (World_EEZ_v12_20231025.zip, holding
# eez_v12.shp beside eez_boundaries_v12.shp) and as a GeoPackage (also offered zipped); GeoJSON
# exports are read too. Polygons are simplified to about 0.6 nm (route samples are 10 nm apart).
EEZ_SIMPLIFY_DEGREES = 0.01
EEZ_MAX_UNZIPPED_BYTES = 4 * 1024**3
_EEZ_CODE_COLUMNS = ("iso2", "iso_ter1", "iso_sov1")  # Marine Regions: ISO 3166 alpha-3 in ISO_TER1/ISO_SOV1


def _eez_datasets(folder: Path) -> list[tuple[Path, str]]:
    """(file, layer) pairs in `folder` that hold polygons, the EEZ layer first."""
    import pyogrio

    found = []
    for path in sorted(folder.rglob("*")):
        if path.suffix.lower() not in (".shp", ".gpkg", ".geojson", ".json"):
            continue
        for name, geometry_type in pyogrio.list_layers(path):
            if geometry_type and "polygon" in str(geometry_type).lower():
                found.append((path, str(name)))

    def rank(item: tuple[Path, str]) -> tuple[bool, bool, str]:
        label = f"{item[0].stem} {item[1]}".lower()
        return ("eez" not in label, "boundar" in label or "line" in label, label)

    return sorted(found, key=rank)


def read_eez_polygons(data: bytes) -> tuple[list[list], str]:
    """[[iso2, GeoJSON geometry], ...] from a Marine Regions EEZ download, one row per country.

    Accepts the bytes of the zipped shapefile, a GeoPackage (bare or zipped) or GeoJSON. The
    territory's code (ISO_TER1) is used, else the sovereign's (ISO_SOV1); overlapping claims and
    joint regimes go to their first-named party. Raises ValueError on anything else.
    """
    import geopandas
    import pycountry
    import pyogrio.errors
    import shapely

    with tempfile.TemporaryDirectory(prefix="eez-") as tmp:
        folder = Path(tmp)
        if data[:4] == b"PK\x03\x04":
            try:
                with zipfile.ZipFile(io.BytesIO(data)) as archive:
                    if sum(info.file_size for info in archive.infolist()) > EEZ_MAX_UNZIPPED_BYTES:
                        raise ValueError("the archive unpacks to more than 4 GB")
                    archive.extractall(folder)  # zipfile drops absolute and '..' parts of member names
            except zipfile.BadZipFile as exc:
                raise ValueError(f"not a readable zip archive ({exc})") from None
        elif data[:16] == b"SQLite format 3\x00":
            (folder / "eez.gpkg").write_bytes(data)
        elif data.lstrip()[:1] == b"{":
            (folder / "eez.geojson").write_bytes(data)
        else:
            raise ValueError("expected the Marine Regions download: a zipped shapefile, a GeoPackage or GeoJSON")
        try:
            datasets = _eez_datasets(folder)
            if not datasets:
                raise ValueError("the file holds no polygon layer")
            path, layer = datasets[0]
            frame = geopandas.read_file(path, layer=layer, engine="pyogrio")
        except (pyogrio.errors.DataSourceError, pyogrio.errors.DataLayerError) as exc:
            raise ValueError(f"unreadable spatial data ({exc})") from None
    if frame.crs is not None and frame.crs.to_epsg() != 4326:
        frame = frame.to_crs(4326)
    columns = {str(c).lower(): c for c in frame.columns}
    present = [columns[c] for c in _EEZ_CODE_COLUMNS if c in columns]
    if not present:
        raise ValueError(f"layer {layer!r} has no ISO_TER1, ISO_SOV1 or iso2 column")

    def code_of(row) -> str:
        for column in present:
            value = row[column]
            if not isinstance(value, str) or not value.strip():
                continue
            value = value.strip().upper()
            country = (
                pycountry.countries.get(alpha_2=value) if len(value) == 2 else pycountry.countries.get(alpha_3=value)
            )
            if country is not None:
                return country.alpha_2
        return ""

    by_code: dict[str, list] = {}
    for _, row in frame.iterrows():
        geometry = row.geometry
        code = code_of(row)
        if not code or geometry is None or geometry.is_empty:
            continue
        geometry = shapely.make_valid(geometry).simplify(EEZ_SIMPLIFY_DEGREES, preserve_topology=True)
        by_code.setdefault(code, []).append(geometry)
    rows = []
    for code, parts in by_code.items():
        merged = shapely.set_precision(shapely.union_all(parts), 1e-4)
        polygons = [g for g in shapely.get_parts(merged) if g.geom_type == "Polygon" and not g.is_empty]
        if polygons:
            rows.append([code, shapely.geometry.mapping(shapely.MultiPolygon(polygons))])
    return rows, f"Marine Regions EEZ polygons ({path.name}, layer {layer})"


def load_eez_file(data: bytes, origin: str) -> LayerSnapshot:
    """The Marine Regions EEZ download as published (zipped shapefile, GeoPackage or GeoJSON) as layer eez."""

    def parse() -> tuple[list, str, datetime | None]:
        rows, message = read_eez_polygons(data)
        return rows, message, None

    return _load("eez", origin, parse)


load_eez_geojson = load_eez_file  # older name, kept for callers
