"""Fixtures of the match-decision and evidence tests: a reviewer's key on the demo world, and a sender."""

from __future__ import annotations

import itertools

import pytest

_keys = itertools.count()


@pytest.fixture
def key(demo_world, issue_key):
    return issue_key("test", email="reviewer@example.com", plan="paid")


@pytest.fixture
def send(client, keyed):
    def call(raw_key: str, method: str, path: str, body: dict | None = None):  # type: ignore[no-untyped-def]
        extra = {"HTTP_IDEMPOTENCY_KEY": f"api-{next(_keys)}"} if method == "post" else {}
        return getattr(client, method)(
            path, data=body if body is not None else {}, content_type="application/json", **extra, **keyed(raw_key)
        )

    return call
