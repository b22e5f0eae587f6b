"""Celery tasks of monitors (thin: monitoring.runs does the work). Importing the kinds registers them."""

from celery import shared_task

from monitoring import corridors, list_updates, runs, vessels  # noqa: F401  (importing the kinds registers them)


@shared_task(name="monitoring.run")
def run_monitor(kind: str, run_id: int) -> str:
    """One run of a monitor of `kind` (a duplicate message does nothing)."""
    return runs.run(runs.get(kind), run_id)


@shared_task(name="monitoring.tick")
def tick_monitors() -> dict:
    """Beat: open the runs whose slot has come, recover lost and deferred runs."""
    return runs.tick()


@shared_task(name="monitoring.rescreen_for_edition")
def rescreen_for_edition(snapshot_id: str) -> dict:
    """A new list edition: re-screen, out of cycle, the monitored hulls it can touch."""
    report = list_updates.rescreen_for_edition(snapshot_id)
    return {"affected_hulls": report.affected_hulls, "runs_opened": report.runs_opened, "sent": report.runs_sent}
