"""Importing voyages.batches here registers the voyage_batch job kind in every worker (its items run as
`jobs.run_item` and the sweep is `jobs.sweep`, jobs/tasks.py)."""

from voyages import batches  # noqa: F401
