"""manage.py seed_demo_ais: the demo world's AIS (behaviour/demo.py), generated and loaded as demo.

Idempotent: a demo load younger than 25 days is kept; an older one is replaced by a fresh one dated two days
back, so the demo hull's behaviour stays inside the 30-day report. Real AIS is never touched.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from behaviour import demo


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0] if __doc__ else ""

    def handle(self, *args: object, **options: object) -> None:
        load, loaded = demo.seed_demo_ais()
        verb = "loaded" if loaded else "already loaded"
        self.stdout.write(
            f"Demo AIS {verb}: {load.file_name}, {load.positions:,} positions of {load.mmsis} ships, "
            f"{load.events} events (see GET /api/v1/vessels/{demo.GREEN_CLEAN}/behaviour)"
        )
