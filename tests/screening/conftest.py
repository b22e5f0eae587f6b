"""The demo world loaded into the test database, and a helper to screen through the API."""

from __future__ import annotations

import itertools

import pytest
from django.core.management import call_command

from screening import datastate

_keys = itertools.count()


@pytest.fixture
def demo_world(db):
    call_command("seed_demo", stdout=open("/dev/null", "w"))
    datastate.invalidate()
    yield
    datastate.invalidate()


@pytest.fixture
def screen(client, keyed):
    """screen(raw_key, imo, **body) -> response of POST /api/v1/screenings under a fresh Idempotency-Key."""

    def post(raw_key: str, imo, key: str | None = None, **body):
        payload = {"imo": imo, **body}
        return client.post(
            "/api/v1/screenings",
            data=payload,
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=key or f"k{next(_keys)}",
            **keyed(raw_key),
        )

    return post
