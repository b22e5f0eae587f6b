"""manage.py refresh_sources: bring official lists, register files and risk layers in.

refresh_sources                                   every source with an official URL
refresh_sources --source ofac_sdn                 one source, downloaded
refresh_sources --source ofac_sdn --file SDN.CSV --file ALT.CSV --file ADD.CSV   (or --file SDN.XML)
refresh_sources --source ofac_sdn --file sdn=sdn-2024-05-03.csv                  (PART= names a file)
refresh_sources --source ofac_sdn --file sdn=sdn.csv --published 2024-05-03       (the edition's date)
refresh_sources --source eu_sanctions --edition eu_journal_sanctions --file journal.csv
refresh_sources --source tokyo_mou_psc --kind inspections --file inspections.csv
refresh_sources --layer piracy_asam --file asam.csv      (piracy_imb, country_indicators, eez)
refresh_sources --unlocode-aliases alias.csv
refresh_sources --from-dir DIR                    every file under DIR recognised by its official name

The command lives in the voyages app because it loads both the lists and registers (screening.refresh)
and the voyage risk layers and port aliases (voyages), and voyages sits above screening.

A source with one file takes `--file PATH`; OFAC's set is told apart by its official names
(SDN.CSV, ALT.CSV, ADD.CSV, SDN.XML) or named with PART=PATH (parts sdn, alt, add, xml).

A load that would remove more than a fifth of the serving copy's records, or shares none with
it (another list in the same format), is refused and the previous copy keeps serving;
`--allow-shrink` loads it anyway (screening.ingest, "Shrink guard").

--published YYYY-MM-DD[THH:MM:SSZ] says when the publisher issued an operator's file (OFAC's
SDN.CSV, the maritime CSV and the operator-saved vessel lists state no date of their own). A date
the file stamps itself wins; when the two differ the command says so. After the load the command
says when the serving edition's publication date is still unknown, and how to set it: an
edition's age (list_edition.published, the sources rows) can only be shown when it is known.

--from-dir recognises these names (case-insensitive) and says which files it skipped and why:
  OFAC      SDN.CSV (+ ALT.CSV, ADD.CSV beside it), or SDN.XML when there is no SDN.CSV; any
            sdn*.csv / sdn*.xml. Not read: SDN_ENHANCED.XML, SDN_ADVANCED.XML, SDN_COMMENTS.CSV,
            and OFAC's consolidated (non-SDN) list: CONSOLIDATED.XML with root sdnList, CONS_*.CSV
  UN        consolidated*.xml whose root is CONSOLIDATED_LIST; un_1718*.csv (1718 vessels)
  EU        YYYYMMDD-FULL-1_1(xsd).xml (the Financial Sanctions File; also *fsf*.xml,
            *fullsanctionslist*.xml); eu_journal*.csv, eu_sanctions_map*.csv
  UK        UK-Sanctions-List.csv (uk*sanctions*.csv)
  aggregated  entities.ftm.json (*.ftm.json), maritime*.csv
  Ukraine   ua_*.csv, *shadow*fleet*.csv
  registers <store>*.csv (…inspection… for inspections), e.g. paris_mou_thetis_inspections.csv
  layers    asam*.csv, pirate-attacks*.csv / imb*.csv, country_indicators*.csv,
            Marine Regions EEZ: World_EEZ*.zip (shapefile or GeoPackage), eez*.zip|gpkg|geojson|json
  aliases   alias*.csv (UN/LOCODE "=" rows)
"""

from __future__ import annotations

import argparse
import re
from datetime import UTC, date, datetime
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, DjangoHelpFormatter
from django.utils import timezone

from core.api.timefmt import rfc3339
from screening import datastate, refresh
from screening.ingest import IngestError, active_snapshot
from screening.models import SourceSnapshot
from screening.sources.catalog import sources_named
from voyages.layers import loading
from voyages.ports import load_unlocode_aliases

PUBLISHED_FORMAT = "YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ"
_PUBLISHED = re.compile(r"^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:Z|[+-]\d{2}:\d{2}))?$")


def parse_published(value: str, now: datetime | None = None) -> datetime:
    """--published as an aware time (a date alone is the start of that day, UTC); CommandError if malformed
    or in the future."""
    text = value.strip()
    try:
        if not _PUBLISHED.match(text):
            raise ValueError(text)
        parsed = (
            datetime.combine(date.fromisoformat(text), datetime.min.time(), tzinfo=UTC)
            if len(text) == 10
            else datetime.fromisoformat(text.replace("Z", "+00:00"))
        )
    except ValueError:
        raise CommandError(
            f"--published {value!r} is not a date: give {PUBLISHED_FORMAT} (UTC), e.g. 2024-05-03"
        ) from None
    if parsed > (now or timezone.now()):
        raise CommandError(f"--published {value!r} is in the future; give the date the publisher issued the file")
    return parsed


def _read_files(specs: list[str]) -> list[tuple[str | None, str, bytes]]:
    """(part or None, file name, bytes) of each --file [PART=]PATH."""
    files: list[tuple[str | None, str, bytes]] = []
    for spec in specs:
        part: str | None
        part, sep, path = spec.partition("=")
        if not sep or not part or "/" in part or Path(spec).exists():
            part, path = None, spec
        try:
            files.append((part, Path(path).name, Path(path).read_bytes()))
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror}") from None
    return files


# `refresh_sources --help` ends with the module's examples and the names --from-dir recognises, as laid out above.
_DOC_PARAGRAPHS = (__doc__ or "").strip().split("\n\n")
HELP_EPILOG = "examples:\n" + "\n\n".join(
    [_DOC_PARAGRAPHS[1], *(p for p in _DOC_PARAGRAPHS if p.startswith("--from-dir recognises"))]
)


class _HelpWithLayout(DjangoHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Django's option order, with the epilog's lines kept as written (one file family a line)."""


class Command(BaseCommand):
    help = "Download or load official source files and make them the serving snapshots (atomic per source)."

    def create_parser(self, prog_name: str, subcommand: str, **kwargs):
        kwargs.setdefault("formatter_class", _HelpWithLayout)
        kwargs.setdefault("epilog", HELP_EPILOG)
        return super().create_parser(prog_name, subcommand, **kwargs)

    def add_arguments(self, parser) -> None:
        parser.add_argument("--source", help="Contract source name (ofac_sdn, un_sanctions, eu_sanctions, ...)")
        parser.add_argument("--edition", help="Which file of the source (eu_fsf, eu_journal_sanctions, ...)")
        parser.add_argument(
            "--kind",
            choices=["particulars", "inspections"],
            default="particulars",
            help="For register stores: which import format the file is in",
        )
        parser.add_argument(
            "--file",
            action="append",
            default=[],
            metavar="[PART=]PATH",
            help="Load local files instead of downloading (PART names the file, e.g. sdn, alt)",
        )
        parser.add_argument("--layer", help="A voyage risk layer: piracy_asam, piracy_imb, country_indicators, eez")
        parser.add_argument("--unlocode-aliases", metavar="PATH", help="UN/LOCODE '=' reference rows (CSV)")
        parser.add_argument(
            "--from-dir", metavar="DIR", help="Load every file under DIR recognised by its official name"
        )
        parser.add_argument(
            "--published",
            metavar="YYYY-MM-DD[THH:MM:SSZ]",
            help="When the publisher issued the file given with --file (UTC), for a file that states no date "
            "itself; a date the file stamps wins",
        )
        parser.add_argument(
            "--allow-shrink",
            action="store_true",
            help="Load even when the file would remove more than a fifth of the serving copy's records "
            "or shares none with it (a truncated edition or another list is refused without this)",
        )

    def handle(self, *args, **options) -> None:
        published = parse_published(options["published"]) if options["published"] is not None else None
        if published is not None and not (options["source"] and options["file"]):
            raise CommandError("--published dates one operator's file: use it with --source NAME --file PATH")
        if options["from_dir"]:
            self._from_dir(Path(options["from_dir"]), allow_shrink=options["allow_shrink"])
            return
        if options["unlocode_aliases"]:
            self._aliases(options["unlocode_aliases"])
            return
        if options["layer"]:
            self._layer(options["layer"], options["file"])
            return
        name = options["source"]
        try:
            if name is None:
                if options["file"]:
                    raise CommandError("--file needs --source (or --layer)")
                for status, names in refresh.refresh_all().items():
                    self.stdout.write(f"{status}: {', '.join(names)}")
                return
            if options["file"]:
                outcome = refresh.load_files(
                    name,
                    refresh.name_parts(name, _read_files(options["file"]), edition=options["edition"]),
                    edition=options["edition"],
                    origin=", ".join(options["file"]),
                    kind=options["kind"],
                    allow_shrink=options["allow_shrink"],
                    published_at=published,
                )
            else:
                outcome = refresh.refresh_source(
                    refresh.source_for(name, options["edition"]), allow_shrink=options["allow_shrink"]
                )
        except IngestError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"{outcome.source}{'/' + outcome.edition if outcome.edition else ''}: {outcome.status} — {outcome.detail}"
        )
        if outcome.status == "failed":
            raise CommandError(outcome.detail)
        if options["file"] and outcome.status in {"loaded", "unchanged"} and sources_named(outcome.source):
            self._publication(outcome.source, outcome.edition, published, loaded=outcome.status == "loaded")

    def _publication(self, name: str, edition: str, given: datetime | None, *, loaded: bool) -> None:
        """Say what the serving edition's publication date is, where it came from, or that it is unknown."""
        serving = active_snapshot(name, edition)
        if serving is None:
            return
        label = f"{name}{'/' + edition if edition else ''}"
        stamped = serving.published_at
        if stamped is None and given is not None:
            # The same file as the serving copy (unchanged) that was loaded without a date: date it now.
            SourceSnapshot.objects.filter(pk=serving.pk, published_at__isnull=True).update(published_at=given)
            datastate.invalidate()
            stamped = given
        if stamped is None:
            self.stdout.write(
                f"{label}: publication date unknown: the file states none. Give it with --published "
                f"{PUBLISHED_FORMAT} (the date on the publisher's page) and load the file again."
            )
        elif given is not None and stamped != given:
            # A loaded edition took `given` unless the file stamps its own date; an unchanged one keeps
            # the date its copy was loaded with.
            origin = "as the file states" if loaded else "as the serving copy (the same file) records it"
            self.stdout.write(
                f"{label}: published {rfc3339(stamped)} {origin}; --published {rfc3339(given)} differs "
                "and was not used."
            )
        else:
            self.stdout.write(f"{label}: published {rfc3339(stamped)}.")

    def _layer(self, layer: str, specs: list[str]) -> None:
        files = [data for _part, _name, data in _read_files(specs)]
        if len(files) != 1:
            raise CommandError("--layer takes exactly one --file")
        origin = specs[0]
        loaders = {
            "piracy_asam": lambda data: loading.load_piracy_file(data, "asam", origin),
            "piracy_imb": lambda data: loading.load_piracy_file(data, "imb", origin),
            "country_indicators": lambda data: loading.load_country_indicators_csv(data, origin),
            "eez": lambda data: loading.load_eez_file(data, origin),  # Marine Regions .zip (shapefile), .gpkg, GeoJSON
        }
        if layer not in loaders:
            raise CommandError(f"unknown layer {layer!r}; layers: {', '.join(loaders)}")
        snapshot = loaders[layer](files[0])
        self.stdout.write(f"{layer}: {snapshot.status} — {snapshot.row_count} rows {snapshot.message}".rstrip())
        if snapshot.status == "failed":
            raise CommandError(snapshot.message)

    def _aliases(self, path: str) -> None:
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror}") from None
        snapshot = load_unlocode_aliases(data, path)
        self.stdout.write(f"port_aliases: {snapshot.status} — {snapshot.row_count} aliases {snapshot.message}".rstrip())
        if snapshot.status == "failed":
            raise CommandError(snapshot.message)

    def _from_dir(self, folder: Path, *, allow_shrink: bool = False) -> None:
        if not folder.is_dir():
            raise CommandError(f"{folder} is not a directory")
        failures = 0
        jobs, skipped = plan_directory(folder)
        for job in jobs:
            kind, target, paths, extra = job
            try:
                if kind == "source":
                    files = {part: path.read_bytes() for part, path in paths.items()}
                    outcome = refresh.load_files(
                        target,
                        files,
                        edition=extra.get("edition"),
                        origin=", ".join(str(p) for p in paths.values()),
                        kind=extra.get("kind", "particulars"),
                        allow_shrink=allow_shrink,
                    )
                    line = f"{outcome.source}{'/' + outcome.edition if outcome.edition else ''}: {outcome.status}"
                    failures += outcome.status == "failed"
                    self.stdout.write(f"{line} — {outcome.detail}")
                elif kind == "layer":
                    self._layer(target, [str(paths["file"])])
                else:
                    self._aliases(str(paths["file"]))
            except (CommandError, IngestError) as exc:
                failures += 1
                self.stdout.write(f"{target}: failed — {exc}")
        for path, reason in skipped:
            self.stdout.write(f"skipped {path.relative_to(folder)} — {reason}")
        if failures:
            raise CommandError(f"{failures} file(s) could not be loaded; the previous copies keep serving")


_STORES = ("service_vessel_register", "ais_registry", "tokyo_mou_psc", "paris_mou_thetis", "apcis_tokyo_mou_history")
_EU_FSF_NAME = re.compile(r"^\d{8}-full-1_1(?:\(xsd\))?\.xml$")
_EU_FSF_OTHER = re.compile(r"^\d{8}-full(?:-1_[01])?(?:\(xsd\))?\.(?:csv|xml)$")
_NOT_READ = {
    "sdn_enhanced.xml": "OFAC's enhanced XML is not read; SDN.CSV (or SDN.XML) carries the same list",
    "sdn_advanced.xml": "OFAC's advanced XML is not read; SDN.CSV (or SDN.XML) carries the same list",
    "sdn_comments.csv": "SDN_COMMENTS.CSV is not read (remarks beyond SDN.CSV's column are not needed to match)",
}


Job = tuple[str, str, dict[str, Path], dict[str, str]]


def _xml_root(path: Path) -> str:
    """The local name of an XML file's root element ("" when it is not XML), read from its first bytes."""
    with path.open("rb") as handle:
        head = handle.read(4096).decode("utf-8", errors="replace")
    found = re.search(r"<(?![?!])([A-Za-z_][\w.:-]*)", head)
    return found.group(1).rsplit(":", 1)[-1] if found else ""


def _ofac_set(path: Path) -> dict[str, Path]:
    parts = {"sdn": path}
    for extra in ("alt", "add"):
        sibling = next(
            (
                p
                for p in sorted(path.parent.iterdir())
                if p.name.lower().startswith(extra) and p.suffix.lower() == ".csv"
            ),
            None,
        )
        if sibling:
            parts[extra] = sibling
    return parts


def _classify(path: Path, has_sdn_csv: set[Path]) -> Job | str | None:
    """The job for one file, or why it is skipped (a string), or None for a file loaded with another (ALT.CSV)."""
    name = path.name.lower()
    if name in _NOT_READ:
        return _NOT_READ[name]
    if name.startswith(("cons_", "cons-")) and name.endswith(".csv"):
        return "OFAC's consolidated (non-SDN) list: not a list this service reads"
    if name.startswith("sdn") and name.endswith(".csv"):
        return ("source", "ofac_sdn", _ofac_set(path), {})
    if (name.startswith("alt") or name.startswith("add")) and name.endswith(".csv"):
        if path.parent in has_sdn_csv:
            return None
        return "an OFAC ALT.CSV/ADD.CSV without an SDN.CSV beside it"
    if name.endswith(".xml"):
        root = _xml_root(path)
        if name.startswith("sdn"):
            if path.parent in has_sdn_csv:
                return "SDN.CSV in the same folder is loaded instead (the same list)"
            if root != "sdnList":
                return f"named like OFAC's SDN.XML but its root element is {root or 'not XML'!r}"
            return ("source", "ofac_sdn", {"xml": path}, {})
        if name.startswith("consolidated"):
            if root == "CONSOLIDATED_LIST":
                return ("source", "un_sanctions", {"xml": path}, {"edition": ""})
            if root == "sdnList":
                return "OFAC's CONSOLIDATED.XML is the consolidated non-SDN list, not the SDN list: not read"
            return (
                f"a consolidated*.xml whose root element is {root or 'not XML'!r} (the UN list's is CONSOLIDATED_LIST)"
            )
        if _EU_FSF_NAME.match(name) or "fsf" in name or "fullsanctionslist" in name:
            if root != "export":
                return f"named like the EU Financial Sanctions File but its root element is {root or 'not XML'!r}"
            return ("source", "eu_sanctions", {"xml": path}, {"edition": "eu_fsf"})
        if name.startswith("uk") and "sanctions" in name:
            return "the UK list's XML edition is not read; load UK-Sanctions-List.csv (the same records)"
    if _EU_FSF_OTHER.match(name):
        return "an EU Financial Sanctions File format other than the 1.1 XML: load YYYYMMDD-FULL-1_1(xsd).xml"
    if name.startswith("un_1718") and name.endswith(".csv"):
        return ("source", "un_sanctions", {"csv": path}, {"edition": "un_1718_vessels"})
    if name.startswith("eu_journal") and name.endswith(".csv"):
        return ("source", "eu_sanctions", {"csv": path}, {"edition": "eu_journal_sanctions"})
    if name.startswith("eu_sanctions_map") and name.endswith(".csv"):
        return ("source", "eu_sanctions", {"csv": path}, {"edition": "eu_sanctions_map"})
    if name.startswith("uk") and "sanctions" in name and name.endswith(".csv"):
        return ("source", "uk_sanctions", {"csv": path}, {})
    if name.endswith(".ftm.json") or (name.startswith("entities") and name.endswith(".json")):
        return ("source", "opensanctions", {"jsonl": path}, {"edition": ""})
    if name.startswith("maritime") and name.endswith(".csv"):
        return ("source", "opensanctions", {"csv": path}, {"edition": "maritime"})
    if (name.startswith("ua_") or ("shadow" in name and "fleet" in name)) and name.endswith(".csv"):
        return ("source", "ua_war_sanctions", {"csv": path}, {})
    if name.endswith(".csv") and any(name.startswith(store) for store in _STORES):
        store = next(store for store in _STORES if name.startswith(store))
        kind = "inspections" if "inspection" in name else "particulars"
        return ("source", store, {"csv": path}, {"kind": kind})
    if name.startswith("asam") and name.endswith(".csv"):
        return ("layer", "piracy_asam", {"file": path}, {})
    if (name.startswith("pirate-attacks") or name.startswith("imb")) and name.endswith(".csv"):
        return ("layer", "piracy_imb", {"file": path}, {})
    if name.startswith("country_indicators") and name.endswith(".csv"):
        return ("layer", "country_indicators", {"file": path}, {})
    if name.startswith(("eez", "world_eez")) and name.endswith((".zip", ".gpkg", ".geojson", ".json")):
        return ("layer", "eez", {"file": path}, {})
    if name.startswith("alias") and name.endswith(".csv"):
        return ("aliases", "port_aliases", {"file": path}, {})
    return "not a file name this command recognises (see refresh_sources --help)"


def plan_directory(folder: Path) -> tuple[list[Job], list[tuple[Path, str]]]:
    """What to load from a folder, by official file name (module docstring), and what is skipped with why."""
    files = sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith("."))
    has_sdn_csv = {
        p.parent
        for p in files
        if p.name.lower().startswith("sdn") and p.name.lower().endswith(".csv") and p.name.lower() not in _NOT_READ
    }
    jobs: list[Job] = []
    skipped: list[tuple[Path, str]] = []
    for path in files:
        verdict = _classify(path, has_sdn_csv)
        if isinstance(verdict, str):
            skipped.append((path, verdict))
        elif verdict is not None:
            jobs.append(verdict)
    return jobs, skipped
