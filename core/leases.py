"""The one way background work is held: a row claimed under a lease, fenced by a claim number.

Every kind of background work (job items, monitor runs, webhook deliveries, follow-ups of an
INCOMPLETE) is a row that a worker takes, works on and settles, while other workers, redelivered
messages and sweeps may reach the same row. They share these mechanics:

claim    One conditional UPDATE takes a row in a claimable state: its status becomes the held
         status, its lease runs from now, and its fence column (a claim or attempt number) goes up
         by one. Whoever updated the row holds it; a second claimer updates nothing.
settle   The holder writes its outcome with one conditional UPDATE that matches only while the row
         is still held under its fence number, inside the transaction that writes the rest of the
         outcome (a record, a charge, an event). When another claim took over (the lease lapsed
         and the row was claimed again, or someone else settled it), LeaseLost is raised and that
         whole transaction rolls back: an outcome is written once.
lapsed   Rows still held past their lease lost their worker. A sweep gives them back (requeue),
         or gives them up once the fence says they were lost too many times.

What is particular to a kind stays with it: what a job reserves and refunds, a monitor run's
slots and deferral, a delivery's retry schedule, a follow-up's attempt slots.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar

from django.db import models
from django.db.models import F, Q
from django.utils.module_loading import autodiscover_modules

logger = logging.getLogger("service.leases")


class LeaseLost(Exception):
    """The row is no longer held under this claim: roll back what the claim wrote."""


@dataclass(frozen=True)
class Lease:
    """How one model's rows are held.

    held: the status a row has while a claim holds it (a follow-up stays `pending`: the fence alone
    says who holds it). fence: the column that numbers claims (`attempts` for job items and monitor
    runs, `attempt_count` for deliveries, `claims` for follow-ups). seconds: the lease's length,
    read when used (settings may change under tests).
    """

    model: type[models.Model]
    held: str
    seconds: Callable[[], float]
    fence: str = "attempts"

    def expiry(self, now: datetime) -> datetime:
        return now + timedelta(seconds=self.seconds())

    def claim(self, claimable: Q, now: datetime, **fields: Any) -> int:
        """Take the rows matching `claimable` (normally one, by pk and state) under a fresh lease and
        one more fence number, writing `fields` too; how many rows were taken (0: not ours)."""
        return self.model._default_manager.filter(claimable).update(
            status=self.held, lease_expires_at=self.expiry(now), **{self.fence: F(self.fence) + 1}, **fields
        )

    def holding(self, pk: Any, fence_value: int) -> models.QuerySet:
        """The row, only while the claim numbered `fence_value` still holds it."""
        return self.model._default_manager.filter(pk=pk, status=self.held, **{self.fence: fence_value})

    def settle(self, pk: Any, fence_value: int, **fields: Any) -> None:
        """Write the claim's outcome and release the lease; raises LeaseLost when the claim no longer
        holds the row. Call inside the transaction that writes the rest of the outcome."""
        if not self.holding(pk, fence_value).update(lease_expires_at=None, **fields):
            raise LeaseLost(pk)

    def release(self, pk: Any, fence_value: int) -> int:
        """Let go of a claim without an outcome (the work failed before settling): claimable again."""
        return self.model._default_manager.filter(pk=pk, **{self.fence: fence_value}).update(lease_expires_at=None)

    def lapsed(self, now: datetime) -> models.QuerySet:
        """Rows held past their lease: their worker stopped or lost the database."""
        return self.model._default_manager.filter(status=self.held, lease_expires_at__lte=now)

    def give_up_lapsed(self, now: datetime, max_claims: int, **fields: Any) -> int:
        """End the lapsed rows that were claimed `max_claims` times or more with `fields` (a final
        status and its error); how many."""
        return self.lapsed(now).filter(**{f"{self.fence}__gte": max_claims}).update(lease_expires_at=None, **fields)

    def requeue(self, stale: models.QuerySet, queued: str, now: datetime) -> list[Any]:
        """Queue the `stale` rows again under a fresh lease (a queued row's lease is when it is sent
        again); each is conditional on the status and lease read, so a worker that claimed or
        settled it meanwhile wins. Returns the ids queued."""
        requeued = []
        manager = self.model._default_manager
        for pk, status, lease in stale.values_list("pk", "status", "lease_expires_at"):
            if manager.filter(pk=pk, status=status, lease_expires_at=lease).update(
                status=queued, lease_expires_at=self.expiry(now)
            ):
                if status == self.held:
                    logger.warning("%s %s lost its worker (lease ran out); queued again", self.model.__name__, pk)
                requeued.append(pk)
        return requeued


class SweepReport:
    """What one sweep did: named counts declared by the kind's sweep (and, under `listed`, the ids
    behind a count), readable as attributes; as_dict gives every one as a count."""

    def __init__(self, *names: str, listed: tuple[str, ...] = ()) -> None:
        self._counts: dict[str, int] = dict.fromkeys(names, 0)
        self._ids: dict[str, list[Any]] = {name: [] for name in listed}

    def add(self, name: str, count: int = 1) -> None:
        self._counts[name] += count

    def add_id(self, name: str, pk: Any) -> None:
        self._ids[name].append(pk)

    def __getattr__(self, name: str) -> Any:
        state = self.__dict__
        if name in state.get("_counts", {}):
            return state["_counts"][name]
        if name in state.get("_ids", {}):
            return state["_ids"][name]
        raise AttributeError(name)

    def as_dict(self) -> dict[str, int]:
        return {**self._counts, **{name: len(ids) for name, ids in self._ids.items()}}


KindT = TypeVar("KindT")


@dataclass
class KindRegistry(Generic[KindT]):
    """Kinds of one mechanism (job kinds, monitor kinds), registered at import time by their apps'
    `tasks` modules, which every Celery worker imports; a lookup that misses imports them again."""

    what: str
    _kinds: dict[str, KindT] = field(default_factory=dict)

    def register(self, name: str, kind: KindT) -> KindT:
        existing = self._kinds.get(name)
        if existing is not None and existing != kind:
            raise ValueError(f"{self.what} {name} is already registered")
        self._kinds[name] = kind
        return kind

    def get(self, name: str) -> KindT:
        if name not in self._kinds:
            autodiscover_modules("tasks")
        try:
            return self._kinds[name]
        except KeyError:
            raise LookupError(f"unknown {self.what} {name}") from None

    def all(self) -> list[KindT]:
        autodiscover_modules("tasks")
        return list(self._kinds.values())
