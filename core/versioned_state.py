"""A per-process, read-mostly state built from the database and rebuilt only when it changed.

The owner supplies two functions: `version()` (a cheap stamp of what the state is built from:
counts, newest ids) and `build(version)` (the expensive part). `current()` checks the stamp at
most every `check_seconds` and rebuilds only when it moved; concurrent callers wait for one build.
Both the screening data state (sanctions index, source freshness) and the voyage risk layers use it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

StateT = TypeVar("StateT")
VersionT = TypeVar("VersionT", bound=Hashable)


class VersionedState(Generic[StateT]):
    def __init__(
        self, version: Callable[[], VersionT], build: Callable[[VersionT], StateT], check_seconds: float
    ) -> None:
        self._version: Callable[[], Hashable] = version
        # Only ever called with what `version` returned, which the signature above ties to `build`.
        self._build: Callable[[Any], StateT] = build
        self.check_seconds = check_seconds
        self._lock = threading.Lock()
        self._state: StateT | None = None
        self._built_from: Hashable = None
        self._checked_at = 0.0

    def _fresh(self) -> bool:
        return self._state is not None and time.monotonic() - self._checked_at < self.check_seconds

    def current(self) -> StateT:
        if self._fresh():
            return self._state  # type: ignore[return-value]
        with self._lock:
            if self._fresh():
                return self._state  # type: ignore[return-value]
            version = self._version()
            if self._state is None or self._built_from != version:
                self._state = self._build(version)
                self._built_from = version
            self._checked_at = time.monotonic()
            return self._state

    def invalidate(self) -> None:
        """The next current() re-checks the stamp (after a load made in this process)."""
        self._checked_at = 0.0
