"""Sending Celery messages for work the database already holds (job items, webhook deliveries).

Best effort by design: the rows are committed before any message is sent, and the beat sweeps
re-send whatever a worker never picked up. So a send that fails is logged and the rest of the
batch is left to the sweep: a broker that refused one message is down or full, and every further
try would cost its own connection retries (about 0.65 s each with Redis down) on the caller's
request.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from celery import current_app
from celery.canvas import Signature

logger = logging.getLogger("service.tasks")


def task_named(name: str) -> Signature:
    """A task by its registered name. The modules that send work cannot import the task modules,
    which import them (the task is thin: the module does the work)."""
    return current_app.signature(name)


def send_each(task: Any, argument_lists: Iterable[tuple], what: str) -> int:
    """`task.delay(*arguments)` for each entry until the broker refuses one; how many were sent."""
    sent = 0
    for arguments in argument_lists:
        try:
            task.delay(*arguments)
        except Exception:  # the broker's errors vary by transport; the sweep is the recovery
            logger.warning(
                "%s %s not sent to a worker; the sweep will re-send it and the rest of this batch",
                what, arguments, exc_info=True,
            )  # fmt: skip
            break
        sent += 1
    return sent
