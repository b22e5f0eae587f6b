"""manage.py refresh_sources: bring official lists, register files and risk layers in.

refresh_sources                                   every source with an official URL
refresh_sources --source ofac_sdn                 one source, downloaded
refresh_sources --source ofac_sdn --file sdn=SDN.CSV --file alt=ALT.CSV
refresh_sources --source eu_sanctions --edition eu_journal_sanctions --file journal.csv
refresh_sources --source tokyo_mou_psc --kind inspections --file inspections.csv
refresh_sources --layer piracy_asam --file asam.csv      (piracy_imb, country_indicators, eez)
refresh_sources --unlocode-aliases alias.csv
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from screening import refresh
from screening.ingest import IngestError


def _read_files(specs: list[str]) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for spec in specs:
        part, sep, path = spec.partition("=")
        if not sep:
            part, path = Path(spec).stem.lower(), spec
        try:
            files[part] = Path(path).read_bytes()
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror}") from None
    return files


class Command(BaseCommand):
    help = "Download or load official source files and make them the serving snapshots (atomic per source)."

    def add_arguments(self, parser) -> None:  # type: ignore[no-untyped-def]
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
        parser.add_argument("--from-dir", metavar="DIR", help="Load every recognised file under DIR (see --help)")

    def handle(self, *args, **options) -> None:  # type: ignore[no-untyped-def]
        if options["from_dir"]:
            self._from_dir(Path(options["from_dir"]))
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
                    _read_files(options["file"]),
                    edition=options["edition"],
                    origin=", ".join(options["file"]),
                    kind=options["kind"],
                )
            else:
                outcome = refresh.refresh_source(refresh.source_for(name, options["edition"]))
        except IngestError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"{outcome.source}{'/' + outcome.edition if outcome.edition else ''}: {outcome.status} — {outcome.detail}"
        )
        if outcome.status == "failed":
            raise CommandError(outcome.detail)

    def _layer(self, layer: str, specs: list[str]) -> None:
        from voyages.layers import loading

        files = list(_read_files(specs).values())
        if len(files) != 1:
            raise CommandError("--layer takes exactly one --file")
        origin = specs[0]
        loaders = {
            "piracy_asam": lambda data: loading.load_piracy_file(data, "asam", origin),
            "piracy_imb": lambda data: loading.load_piracy_file(data, "imb", origin),
            "country_indicators": lambda data: loading.load_country_indicators_csv(data, origin),
            "eez": lambda data: loading.load_eez_geojson(data, origin),
        }
        if layer not in loaders:
            raise CommandError(f"unknown layer {layer!r}; layers: {', '.join(loaders)}")
        snapshot = loaders[layer](files[0])
        self.stdout.write(f"{layer}: {snapshot.status} — {snapshot.row_count} rows {snapshot.message}".rstrip())
        if snapshot.status == "failed":
            raise CommandError(snapshot.message)

    def _aliases(self, path: str) -> None:
        from voyages.ports import load_unlocode_aliases

        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror}") from None
        snapshot = load_unlocode_aliases(data, path)
        self.stdout.write(f"port_aliases: {snapshot.status} — {snapshot.row_count} aliases {snapshot.message}".rstrip())
        if snapshot.status == "failed":
            raise CommandError(snapshot.message)

    def _from_dir(self, folder: Path) -> None:
        if not folder.is_dir():
            raise CommandError(f"{folder} is not a directory")
        failures = 0
        for job in plan_directory(folder):
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
        if failures:
            raise CommandError(f"{failures} file(s) could not be loaded; the previous copies keep serving")


_STORES = ("service_vessel_register", "ais_registry", "tokyo_mou_psc", "paris_mou_thetis", "apcis_tokyo_mou_history")


def plan_directory(folder: Path) -> list[tuple[str, str, dict[str, Path], dict[str, str]]]:
    """What to load from a folder, by file name (see the module docstring)."""
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    jobs: list[tuple[str, str, dict[str, Path], dict[str, str]]] = []

    for path in files:
        name = path.name.lower()
        if name.startswith("sdn") and name.endswith(".csv"):
            parts = {"sdn": path}
            for extra in ("alt", "add"):
                sibling = next(
                    (
                        p
                        for p in path.parent.iterdir()
                        if p.name.lower().startswith(extra) and p.suffix.lower() == ".csv"
                    ),
                    None,
                )
                if sibling:
                    parts[extra] = sibling
            jobs.append(("source", "ofac_sdn", parts, {}))
        elif name.startswith("sdn") and name.endswith(".xml"):
            jobs.append(("source", "ofac_sdn", {"xml": path}, {}))
        elif name.startswith("consolidated") and name.endswith(".xml"):
            jobs.append(("source", "un_sanctions", {"xml": path}, {"edition": ""}))
        elif name.startswith("un_1718") and name.endswith(".csv"):
            jobs.append(("source", "un_sanctions", {"csv": path}, {"edition": "un_1718_vessels"}))
        elif name.endswith(".xml") and ("fsf" in name or "fullsanctionslist" in name):
            jobs.append(("source", "eu_sanctions", {"xml": path}, {"edition": "eu_fsf"}))
        elif name.startswith("eu_journal") and name.endswith(".csv"):
            jobs.append(("source", "eu_sanctions", {"csv": path}, {"edition": "eu_journal_sanctions"}))
        elif name.startswith("eu_sanctions_map") and name.endswith(".csv"):
            jobs.append(("source", "eu_sanctions", {"csv": path}, {"edition": "eu_sanctions_map"}))
        elif name.startswith("uk") and "sanctions" in name and name.endswith(".csv"):
            jobs.append(("source", "uk_sanctions", {"csv": path}, {}))
        elif name.endswith(".ftm.json") or (name.startswith("entities") and name.endswith(".json")):
            jobs.append(("source", "opensanctions", {"jsonl": path}, {"edition": ""}))
        elif name.startswith("maritime") and name.endswith(".csv"):
            jobs.append(("source", "opensanctions", {"csv": path}, {"edition": "maritime"}))
        elif (name.startswith("ua_") or ("shadow" in name and "fleet" in name)) and name.endswith(".csv"):
            jobs.append(("source", "ua_war_sanctions", {"csv": path}, {}))
        elif name.endswith(".csv") and any(name.startswith(store) for store in _STORES):
            store = next(store for store in _STORES if name.startswith(store))
            kind = "inspections" if "inspection" in name else "particulars"
            jobs.append(("source", store, {"csv": path}, {"kind": kind}))
        elif name.startswith("asam") and name.endswith(".csv"):
            jobs.append(("layer", "piracy_asam", {"file": path}, {}))
        elif (name.startswith("pirate-attacks") or name.startswith("imb")) and name.endswith(".csv"):
            jobs.append(("layer", "piracy_imb", {"file": path}, {}))
        elif name.startswith("country_indicators") and name.endswith(".csv"):
            jobs.append(("layer", "country_indicators", {"file": path}, {}))
        elif name.startswith("eez") and name.endswith((".geojson", ".json")):
            jobs.append(("layer", "eez", {"file": path}, {}))
        elif name.startswith("alias") and name.endswith(".csv"):
            jobs.append(("aliases", "port_aliases", {"file": path}, {}))
    return jobs
