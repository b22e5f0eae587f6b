"""Issue 30 item 5: a keyless call refused by the burst rule says so, and when the next call is accepted."""

from __future__ import annotations

import re

import pytest

from screening import demo, keyless

pytestmark = pytest.mark.django_db


def first_refusal(client, ip="198.51.100.77"):
    for _ in range(40):
        response = client.get(f"/api/v1/vessels/{demo.GREEN_CLEAN}/check", REMOTE_ADDR=ip)
        if response.status_code == 429:
            return response
    raise AssertionError("no 429 within 40 calls")


def test_a_burst_refusal_names_the_burst_rule_not_the_hourly_limit(demo_world, client):
    refused = first_refusal(client)
    message = refused.json()["message"]
    amount, _, unit = keyless.BURST_SPEC.partition("/")
    assert "burst rule" in message and f"at most {amount} keyless calls per {unit}" in message
    assert "smoothed" not in message


def test_a_burst_refusal_says_when_the_next_call_is_accepted(demo_world, client):
    refused = first_refusal(client)
    body = refused.json()
    wait = int(refused["Retry-After"])
    assert f"The next call is accepted in {wait} s (at " in body["message"]
    assert re.search(r"\(at \d\d:\d\d:\d\d UTC\)", body["message"])


def test_a_burst_refusal_explains_the_hourly_calls_that_remain(demo_world, client):
    refused = first_refusal(client)
    body = refused.json()
    remaining = body["usage"]["remaining"]
    assert remaining > 0  # the hourly allowance is not what refused the call
    assert f"the 100 per hour (of which {remaining} remain)" in body["message"]
