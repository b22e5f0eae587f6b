"""manage.py build_landmask [--force] [--path FILE]: the packed 1 km land mask under the var dir.

Idempotent: a present, verified file is kept (about 0.2 s); a missing, truncated, corrupt or
stale one is rebuilt from the global_land_mask package data and renamed into place.
"""

from __future__ import annotations

import time
from pathlib import Path

from django.core.management.base import BaseCommand

from voyages import landmask


class Command(BaseCommand):
    help = "Build (when missing or damaged) the memory-mapped 1 km land mask file every process shares."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser) -> None:
        parser.add_argument("--force", action="store_true", help="rebuild even when the file verifies")
        parser.add_argument("--path", default=None, help=f"default: <VAR_DIR>/{landmask.FILE_NAME}")

    def handle(self, *args, **options) -> None:
        started = time.perf_counter()
        path = Path(options["path"]) if options["path"] else None
        path, header, built = landmask.ensure(path, force=options["force"])
        rows, columns = header["shape"]
        state = "built" if built else "verified"
        self.stdout.write(
            f"land mask {state}: {path} ({rows} x {columns} cells, {path.stat().st_size / 1e6:.1f} MB, "
            f"{time.perf_counter() - started:.2f} s)"
        )
