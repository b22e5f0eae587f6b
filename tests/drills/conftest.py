"""The drill stack is started once per test session, and restored after every drill."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from tests.drills.stack import DrillStack, missing_tools


@pytest.fixture(scope="session")
def drill_stack():
    reason = missing_tools()
    if reason:
        pytest.skip(f"fault drills need their own servers: {reason}")
    folder = Path(tempfile.mkdtemp(prefix="svc-drill-"))
    stack = DrillStack(folder)
    yield stack
    stack.destroy()


@pytest.fixture
def drill(drill_stack):
    """The shared stack, healthy before the drill and restored after it."""
    drill_stack.restore()
    yield drill_stack
    drill_stack.restore()
