"""The demo world, a test key, and a helper that posts a cargo screening."""

from __future__ import annotations

import itertools

import pytest
from django.core.management import call_command

from screening import datastate

_keys = itertools.count()


def cargo_body(**overrides) -> dict:
    """A clean cargo (machinery from the Netherlands to Singapore, one clean shipper) with overrides."""
    body = {
        "commodity": {"hs_code": "8471", "description": "Laptop computers"},
        "origin_country": "NL",
        "destination_country": "SG",
        "load_port": "NLRTM",
        "discharge_port": "SGSIN",
        "parties": [{"name": "Demo Fjord Exporters AS", "role": "shipper"}],
    }
    body.update(overrides)
    return body


@pytest.fixture
def key(issue_key):
    return issue_key("test", plan="paid")


@pytest.fixture
def screen_cargo(client, keyed):
    """screen_cargo(raw_key, body, key=None) -> response of POST /api/v1/cargo-screenings."""

    def post(raw_key: str, body: dict, key: str | None = None, **headers):
        return client.post(
            "/api/v1/cargo-screenings",
            data=body,
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=key or f"cargo-{next(_keys)}",
            **keyed(raw_key, **headers),
        )

    return post


@pytest.fixture
def demo_world_without(db):
    """demo_world_without(*sources): the demo world with those sources withdrawn."""

    def seed(*omitted: str) -> None:
        call_command("seed_demo", *[f"--omit-source={name}" for name in omitted], stdout=open("/dev/null", "w"))
        datastate.invalidate()

    yield seed
    datastate.invalidate()
