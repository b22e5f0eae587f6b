"""manage.py load_ais: bring AIS position files in, one atomic load per file.

load_ais FILE...                               the format guessed from each file's first line
load_ais --format dma aisdk-2024-03-01.csv      Danish Maritime Authority daily CSV
load_ais --format marinecadastre AIS_2022_01_03.csv   NOAA MarineCadastre CSV
load_ais --format nmea --received-at 2024-03-01T12:00:00Z capture.nmea
                                                raw AIVDM; --received-at dates sentences that carry
                                                no tag-block or trailing timestamp (else they are
                                                counted as no_timestamp and skipped)

Files may be gzip- or zip-compressed. Each file is streamed (never read whole), cleaned (duplicates,
invalid positions, base stations, aids to navigation, Class B, out-of-range speeds and courses),
written to the position store, summarised per hull and day, linked to hulls by the IMO its static
messages carry (only when the check digit holds), and the detectors re-run over the days it touched;
then all of it commits at once. A file already loaded (same bytes) is skipped. A file in the wrong
format is refused with what was expected, and the other files go on; the exit status is 1 when any
file failed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from behaviour import services
from behaviour.ais.formats import AisFormat
from core.api.timefmt import parse_rfc3339


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0] if __doc__ else ""

    def create_parser(self, prog_name: str, subcommand: str, **kwargs):
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        parser.formatter_class = argparse.RawDescriptionHelpFormatter
        parser.epilog = __doc__
        return parser

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("files", nargs="+", type=Path, metavar="FILE")
        parser.add_argument("--format", choices=[fmt.value for fmt in AisFormat], help="Skip the guess.")
        parser.add_argument(
            "--received-at",
            help="RFC 3339 time given to NMEA sentences that carry no timestamp of their own.",
        )

    def handle(self, *args, **options) -> None:
        fmt = AisFormat(options["format"]) if options["format"] else None
        default_ts = None
        if options["received_at"]:
            try:
                default_ts = int(parse_rfc3339(options["received_at"]).timestamp())
            except ValueError as error:
                raise CommandError(f"--received-at: {error}") from error
        failed = 0
        for path in options["files"]:
            if not path.is_file():
                self.stderr.write(f"{path}: no such file")
                failed += 1
                continue
            queued = services.queue_load(path)
            if queued.already_loaded is not None:
                earlier = queued.already_loaded
                self.stdout.write(f"{path.name}: already loaded (load {earlier.pk}, {earlier.positions:,} positions)")
                continue
            try:
                outcome = services.run_load(queued.load.pk, fmt, default_ts=default_ts)
            except services.LoadRefused as error:
                self.stderr.write(f"{path.name}: refused: {error}")
                failed += 1
                continue
            load = outcome.load
            dropped = ", ".join(
                f"{reason} {count:,}"
                for reason, count in sorted(outcome.counts.items())
                if reason not in ("rows_read", "positions_kept", "statics_kept") and count
            )
            self.stdout.write(
                f"{path.name}: {load.format}, {load.positions:,} positions of {load.mmsis:,} ships "
                f"({', '.join(load.days)}), {outcome.events:,} events ({outcome.new_events:,} new) "
                f"in {outcome.seconds:.1f} s" + (f"; dropped or cleaned: {dropped}" if dropped else "")
            )
        if failed:
            raise CommandError(f"{failed} of {len(options['files'])} files not loaded")
