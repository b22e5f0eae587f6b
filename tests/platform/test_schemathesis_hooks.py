"""The schemathesis hooks (tests/platform/schemathesis_hooks.py) give each generated call a fresh
Idempotency-Key (issue 25 item 8e): generated keys repeat ("0", "00", ...) and one account holds every
key of the pool, so a reused key answered 409 idempotency_conflict (or replayed) instead of running."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.platform import schemathesis_hooks as hooks


def _case(headers: dict | None) -> SimpleNamespace:
    return SimpleNamespace(headers=headers)


def _sent(headers: dict | None) -> dict:
    case = _case(headers)
    hooks.before_call(None, case)
    return case.headers


def test_two_calls_generated_with_the_same_key_are_sent_with_different_keys():
    first = _sent({"Idempotency-Key": "0", "Content-Type": "application/json"})
    second = _sent({"Idempotency-Key": "0", "Content-Type": "application/json"})
    assert first["Idempotency-Key"] != "0" and second["Idempotency-Key"] != "0"
    assert first["Idempotency-Key"] != second["Idempotency-Key"]
    assert first["Content-Type"] == "application/json"  # the other headers are kept
    assert first["X-Forwarded-For"] != second["X-Forwarded-For"]


def test_the_fresh_key_is_one_the_server_accepts():
    key = _sent({"idempotency-key": "x"})["idempotency-key"]  # header names are case-insensitive
    assert key != "x" and key.strip() and len(key) <= 255


@pytest.mark.parametrize("unusable", ["", "   ", "k" * 256])
def test_a_key_a_negative_case_made_unusable_is_sent_as_generated(unusable):
    assert _sent({"Idempotency-Key": unusable})["Idempotency-Key"] == unusable


def test_a_call_without_a_key_is_sent_without_one():
    assert "Idempotency-Key" not in _sent(None)
    assert "Idempotency-Key" not in _sent({"Accept": "application/json"})
