"""The port catalogue: ports the routing network can reach, and the keyless port lookup (4.2).

Ports come from the catalogue bundled with the `searoute` package; a port is carried only
when a sea-lane node lies within MAX_PORT_SNAP_NM of it by a straight leg over water (global
land mask; the first few nm may touch the shore), so every code returned is routable and no
leg to reach it crosses land.

The bundled rows pass through voyages.port_corrections first (coordinates, names, countries
and duplicate rows corrected by facts written there); `country` is the country's proper name.
Names a port carries on a second bundled row, and the names of rows merged into it, become
searchable names of that port like the official local and former names of port_aliases.

Lookup ranking (match_score 0-100, best first; README "Port lookup"):
    exact_locode   100  the query is the code (spaces ignored, any case)        auto-selectable
    exact_name      95  a name (the port's own, or an official local/former      auto-selectable
                        name) that no other catalogue port holds (spacing,
                        punctuation, accents ignored; "St"/"St." read as "Saint")
    prefix          85  a name several ports share (Portland, Victoria, St       shown to a person
                        Petersburg): never auto-selected
    prefix       71-80  a name starts with the query (longer names rank lower)   shown to a person
    word            70  the query is a whole word of a name                      shown to a person
    similar     40-69   rapidfuzz similarity of at least 80                      shown to a person
Equal scores rank by the port's weight in the bundled data (the number of trading-partner
countries it lists, plus one for a port marked as a main port), then name, then code: of the
ports named Portland, Portland (Maine), with its listed trade, comes before Portland, Victoria.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from django.db import DatabaseError
from django.db.models import QuerySet
from rapidfuzz import fuzz, process

from core.versioned_state import VersionedState
from screening.normalize import compact, fold
from voyages import port_corrections
from voyages.layers.loading import activate_layer, fail_layer
from voyages.models import LayerSnapshot
from voyages.port_aliases import PORT_ALIASES
from voyages.routing import network

MAX_PORT_SNAP_NM = 150.0
# The last 40 nm to a berth may follow a river or dredged channel the 1 km land mask cannot see.
PORT_COASTAL_ALLOWANCE_NM = 40.0
DEFAULT_LIMIT = 10
MAX_LIMIT = 50
FUZZY_CUTOFF = 80.0
LOCODE_QUERY = re.compile(r"^([A-Za-z]{2})\s?([A-Za-z2-9]{3})$")

MATCH_EXACT_LOCODE = "exact_locode"
MATCH_EXACT_NAME = "exact_name"
MATCH_PREFIX = "prefix"
MATCH_WORD = "word"
MATCH_SIMILAR = "similar"
AUTO_SELECTABLE = frozenset({MATCH_EXACT_LOCODE, MATCH_EXACT_NAME})


@dataclass(frozen=True)
class Port:
    locode: str
    name: str
    country: str
    country_code: str
    lat: float
    lon: float
    node: int = field(default=-1, compare=False)  # nearest sea-lane node
    weight: int = field(default=0, compare=False)  # trading-partner countries listed (+1 for a main port)

    def as_dict(self) -> dict:
        return {
            "locode": self.locode,
            "name": self.name,
            "country": self.country,
            "country_code": self.country_code,
            "lat": self.lat,
            "lon": self.lon,
        }


@dataclass(frozen=True)
class PortMatch:
    port: Port
    match_score: int
    match_type: str


_SAINT = {"ST": "SAINT", "STE": "SAINTE"}


def _folded(text: str) -> str:
    """fold(), with "St"/"St." and "Ste" read as "Saint"/"Sainte" (St Petersburg = Saint Petersburg)."""
    return " ".join(_SAINT.get(word, word) for word in fold(text).split())


def _compact(text: str) -> str:
    return _folded(text).replace(" ", "")


class PortCatalogue:
    def __init__(self, ports: list[Port], aliases: list[tuple[str, str]]) -> None:
        self.ports = ports
        self._by_code = {p.locode: p for p in ports}
        self._position = {p.locode: i for i, p in enumerate(ports)}
        # (folded name, compact name, port index, is the port's own name)
        self._names: list[tuple[str, str, int, bool]] = []
        for position, port in enumerate(ports):
            self._names.append((_folded(port.name), _compact(port.name), position, True))
        index_of = {p.locode: i for i, p in enumerate(ports)}
        for locode, alias in aliases:
            if locode in index_of and _compact(alias):
                self._names.append((_folded(alias), _compact(alias), index_of[locode], False))
        owners: dict[str, set[int]] = {}
        for _, packed, position, _own in self._names:
            owners.setdefault(packed, set()).add(position)
        self._unique_compact = {packed for packed, positions in owners.items() if len(positions) == 1}
        self._folded_list = [folded for folded, *_ in self._names]

    def __len__(self) -> int:
        return len(self.ports)

    def get_port(self, locode: str) -> Port | None:
        return self._by_code.get(locode)

    def search(self, query: str, limit: int = DEFAULT_LIMIT) -> list[PortMatch]:
        best: dict[int, tuple[int, str]] = {}

        def offer(position: int, score: int, match_type: str) -> None:
            held = best.get(position)
            if held is None or score > held[0]:
                best[position] = (score, match_type)

        text = query.strip()
        code = LOCODE_QUERY.match(text)
        if code:
            port = self._by_code.get((code.group(1) + code.group(2)).upper())
            if port is not None:
                offer(self._position[port.locode], 100, MATCH_EXACT_LOCODE)
        folded, packed = _folded(text), _compact(text)
        if packed:
            for name_folded, name_packed, position, _own in self._names:
                if name_packed == packed:
                    # A name several ports hold is never auto-selected (contract 2.2): a person chooses.
                    if packed in self._unique_compact:
                        offer(position, 95, MATCH_EXACT_NAME)
                    else:
                        offer(position, 85, MATCH_PREFIX)
                elif name_packed.startswith(packed) and len(packed) >= 2:
                    offer(position, max(71, 80 - (len(name_packed) - len(packed)) // 3), MATCH_PREFIX)
                elif folded and f" {folded} " in f" {name_folded} ":
                    offer(position, 70, MATCH_WORD)
            if len(packed) >= 4:
                for _, score, entry in process.extract(
                    folded, self._folded_list, scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF, limit=limit * 3
                ):
                    position = self._names[entry][2]
                    offer(position, int(40 + (score - FUZZY_CUTOFF) * 29 / (100 - FUZZY_CUTOFF)), MATCH_SIMILAR)
        ports = self.ports
        ranked = sorted(
            best.items(),
            key=lambda item: (-item[1][0], -ports[item[0]].weight, ports[item[0]].name, ports[item[0]].locode),
        )
        return [PortMatch(self.ports[position], score, kind) for position, (score, kind) in ranked[:limit]]


def _bundled_ports() -> list[dict]:
    raw = resources.files("searoute.data").joinpath("ports.geojson").read_text()
    return json.loads(raw)["features"]


def corrected_bundled_ports() -> list[tuple[str, str, str, float, float, int]]:
    """Every bundled row after voyages.port_corrections: (locode, name, country_code, lat, lon, weight).

    Dropped rows are left out; a code may appear on several rows (the bundled list repeats some).
    """
    rows = []
    for feature in _bundled_ports():
        props = feature["properties"]
        locode = str(props.get("port") or "").upper()
        if len(locode) != 5:
            continue
        lon, lat = feature["geometry"]["coordinates"]
        fixed = port_corrections.apply(locode, str(props.get("name") or locode), float(lat), float(lon))
        if fixed is None:
            continue
        country_code, name, lat, lon = fixed
        weight = len(props.get("to_cty") or []) + (1 if props.get("t") == 1.0 else 0)
        rows.append((locode, name, country_code, lat, lon, weight))
    return rows


@lru_cache(maxsize=1)
def _routable() -> tuple[tuple[Port, ...], tuple[tuple[str, str], ...]]:
    net = network()
    ports: list[Port] = []
    seen: dict[str, int] = {}
    bundled_aliases: list[tuple[str, str]] = []
    rows = corrected_bundled_ports()
    for locode, name, country_code, lat, lon, weight in rows:
        if locode in seen:
            continue
        joined = net.join_point(lon, lat, MAX_PORT_SNAP_NM, coastal_allowance_nm=PORT_COASTAL_ALLOWANCE_NM)
        if joined is None:
            continue
        seen[locode] = len(ports)
        ports.append(
            Port(locode, name, port_corrections.country_name(country_code), country_code, lat, lon, joined[0], weight)
        )
    # A second bundled row's name for the same code, and a merged duplicate's name, are names of that port.
    for locode, name, *_ in rows:
        if locode in seen and _compact(name) != _compact(ports[seen[locode]].name):
            bundled_aliases.append((locode, name))
    for feature in _bundled_ports():
        props = feature["properties"]
        fix = port_corrections.CORRECTIONS.get(str(props.get("port") or "").upper())
        if fix is not None and fix.merged_into in seen:
            bundled_aliases.append((fix.merged_into, str(props.get("name") or "").strip()))
    return tuple(ports), tuple(dict.fromkeys(bundled_aliases))


def routable_ports() -> tuple[Port, ...]:
    """The corrected bundled ports that join the sea-lane network over water; computed once per process (~2 s)."""
    return _routable()[0]


def build_catalogue(extra_aliases: list[tuple[str, str]] | None = None) -> PortCatalogue:
    """The catalogue with the bundled and written aliases plus any loaded ones (the network joins are reused)."""
    return PortCatalogue(list(routable_ports()), list(_routable()[1]) + list(PORT_ALIASES) + list(extra_aliases or []))


ALIAS_CHECK_SECONDS = 5.0


def _active_aliases() -> QuerySet:
    return LayerSnapshot.objects.filter(layer="port_aliases", status=LayerSnapshot.Status.ACTIVE).order_by(
        "-loaded_at", "-id"
    )


def _alias_version() -> object:
    """Which UN/LOCODE alias file is loaded (refresh_sources --unlocode-aliases); None for none."""
    try:
        return _active_aliases().values_list("pk", flat=True).first()
    except DatabaseError:  # no database yet (first migrate): the bundled names serve
        return None


def _catalogue_with_aliases(version: object) -> PortCatalogue:
    row = _active_aliases().filter(pk=version).first() if version is not None else None
    aliases = [(str(locode), str(name)) for locode, name in row.payload] if row is not None else []
    return build_catalogue(aliases)


_holder: VersionedState[PortCatalogue] = VersionedState(_alias_version, _catalogue_with_aliases, ALIAS_CHECK_SECONDS)


def get_catalogue() -> PortCatalogue:
    """The process-wide catalogue; rebuilt when a new alias file has been loaded."""
    return _holder.current()


def invalidate() -> None:
    """Re-check loaded aliases on the next call (after a load in this process)."""
    _holder.invalidate()


def parse_unlocode_aliases(data: bytes, catalogue: PortCatalogue) -> tuple[list[tuple[str, str]], int]:
    """UN/LOCODE "=" reference rows (Country, Name, NameWoDiacritics; "Former = Current") as (locode, alias).

    Either side may be the name the catalogue carries; the other becomes an alias of that
    port. Rows whose names match no catalogue port of that country are skipped (counted).
    """
    import csv
    import io

    text = data.decode("utf-8-sig")
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames or not {"Country", "Name"} <= set(reader.fieldnames):
        raise ValueError("expected a CSV with the columns Country, Name (and NameWoDiacritics)")
    by_country_name: dict[tuple[str, str], str] = {}
    for port in catalogue.ports:
        by_country_name.setdefault((port.locode[:2], compact(port.name)), port.locode)
        by_country_name.setdefault((port.country_code, compact(port.name)), port.locode)
    aliases: list[tuple[str, str]] = []
    skipped = 0
    for row in reader:
        country = (row.get("Country") or "").strip().upper()
        names = [part.strip() for part in (row.get("Name") or "").split("=")]
        plain = [part.strip() for part in (row.get("NameWoDiacritics") or "").split("=")]
        if len(names) != 2 or not all(names):
            skipped += 1
            continue
        found = False
        for here, other in ((0, 1), (1, 0)):
            locode = by_country_name.get((country, compact(names[here])))
            if locode:
                aliases.append((locode, names[other]))
                if len(plain) == 2 and plain[other] and plain[other] != names[other]:
                    aliases.append((locode, plain[other]))
                found = True
                break
        skipped += 0 if found else 1
    return aliases, skipped


def load_unlocode_aliases(data: bytes, origin: str) -> LayerSnapshot:
    """Load an alias file as the serving `port_aliases` layer (atomic; a bad file changes nothing)."""
    try:
        aliases, skipped = parse_unlocode_aliases(data, build_catalogue())
    except (ValueError, UnicodeDecodeError) as exc:
        return fail_layer("port_aliases", origin, str(exc))
    snapshot = activate_layer(
        "port_aliases",
        [list(a) for a in aliases],
        origin=origin,
        message=f"({skipped} row(s) matched no catalogue port)" if skipped else "",
    )
    invalidate()
    return snapshot
