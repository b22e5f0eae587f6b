"""The demo world loaded into the test database, and a helper to screen through the API."""

from __future__ import annotations

import itertools

import pytest

from screening import datastate, freshness

_keys = itertools.count()


def undated_sdn_csv(imo: str = "9074729") -> str:
    """OFAC SDN.CSV as published (header-less, 12 columns, "-0- " for empty; it states no publication
    date): a tanker listed by `imo` and a company."""
    return (
        '36,"FIXTURE TANKER","vessel","IRAN",-0- ,-0- ,"Crude Oil Tanker",-0- ,-0- ,"Panama",-0- ,'
        f'"Vessel Registration Identification IMO {imo}."\n'
        '173,"FIXTURE TRADING CO.",-0- ,"CUBA",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \n'
    )


@pytest.fixture
def fresh_list_state():
    """The data state and the last checks are read afresh before and after the test."""
    freshness.forget_cached()
    datastate.invalidate()
    yield
    freshness.forget_cached()
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
