"""The registry of job kinds: what each kind of job is made of and how one of its items runs.

A kind is declared once, in its app (voyage batches in voyages/batches.py), and registered at
import time; the app's `tasks` module imports it, so every Celery worker (which autodiscovers
`tasks` modules) knows every kind. A lookup that misses imports the `tasks` modules once more.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from django.conf import settings

from core.leases import KindRegistry, Lease
from jobs.models import Job, JobItem

if TYPE_CHECKING:
    from jobs.flow import ItemRun

# A kind's concrete job and item models (a ScreeningBatch and its ScreeningBatchItems): the kind's callables
# and the ItemRun handed to run_item are typed with them.
JobT = TypeVar("JobT", bound=Job)
ItemT = TypeVar("ItemT", bound=JobItem)


@dataclass(frozen=True)
class JobKind(Generic[JobT, ItemT]):
    """One kind of job.

    name: the kind's name, in task messages and in its event type (`<name>.completed`).
    job_model / item_model: the concrete Job and JobItem (the item's JOB_FIELD names its job).
    quota_kind: the allowance an accepted item reserves one unit of (metering.quota.KIND_*), or None.
    run_item: does one claimed item's work. It must call `run.succeeded(**result_fields)` inside
        the transaction that writes the item's result (pass `charged=False` when the result came
        back uncharged: the reserved unit is refunded with it), or raise ApiError for a failed
        item (the flow marks it failed and refunds its unit). Anything else it raises leaves the
        item running; the sweep re-sends it once its lease runs out.
    render: the job document (the 202 body and the poll body).
    settings_prefix: `<prefix>_ITEM_LEASE_SECONDS`, `<prefix>_ITEM_MAX_ATTEMPTS` and
        `<prefix>_DEADLINE_SECONDS` are read from settings when used.
    event_data: extra fields for the `<name>.completed` event (the flow always sends the id,
        status, customer_reference, item_count, accepted_count, counts and completed_at).
    job_noun / item_noun: what the customer calls them ("batch", "route"), in the error messages of
        items the sweep gives up on.
    """

    name: str
    job_model: type[JobT]
    item_model: type[ItemT]
    quota_kind: str | None  # None: the kind draws no allowance (exports)
    run_item: Callable[[ItemRun[JobT, ItemT]], None]
    render: Callable[[JobT], dict]
    settings_prefix: str
    event_data: Callable[[JobT], dict[str, Any]] | None = field(default=None)
    job_noun: str = "job"  # in the messages of items the sweep gives up on
    item_noun: str = "item"

    @property
    def event_type(self) -> str:
        return f"{self.name}.completed"

    @property
    def job_field(self) -> str:
        return self.item_model.JOB_FIELD

    @property
    def lease_seconds(self) -> int:
        return int(getattr(settings, f"{self.settings_prefix}_ITEM_LEASE_SECONDS"))

    @property
    def lease(self) -> Lease:
        """An item is held while running, fenced by its attempt number (core/leases.py)."""
        return Lease(self.item_model, JobItem.Status.RUNNING, lambda: self.lease_seconds)

    @property
    def max_attempts(self) -> int:
        return int(getattr(settings, f"{self.settings_prefix}_ITEM_MAX_ATTEMPTS"))

    @property
    def deadline_seconds(self) -> int:
        return int(getattr(settings, f"{self.settings_prefix}_DEADLINE_SECONDS"))


# Kinds of every model pair: one looked up by name is typed JobKind[Any, Any].
_KINDS: KindRegistry[JobKind[Any, Any]] = KindRegistry("job kind")


def register(kind: JobKind[JobT, ItemT]) -> JobKind[JobT, ItemT]:
    return _KINDS.register(kind.name, kind)


def get(name: str) -> JobKind[Any, Any]:
    return _KINDS.get(name)


def all_kinds() -> list[JobKind[Any, Any]]:
    return _KINDS.all()
