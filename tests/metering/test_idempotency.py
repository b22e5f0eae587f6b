"""Idempotency-Key (contract 3.4): claim, replay, conflict, join, in-progress, release."""

import sys
import threading
import time

import pytest
from django.test import Client

from metering.models import IdempotencyRecord, QuotaCounter
from tests.accounts import urls as test_urls

pytestmark = [pytest.mark.urls("tests.accounts.urls")]


def post(client, keyed, raw, key, body=None, **extra):
    headers = keyed(raw)
    if key is not None:
        headers["HTTP_IDEMPOTENCY_KEY"] = key
    return client.post(
        "/api/v1/_test/metered",
        data=body if body is not None else {"imo": "9074729"},
        content_type="application/json",
        **headers,
        **extra,
    )


@pytest.mark.django_db
def test_missing_idempotency_key_is_400_and_charges_nothing(client, issue_key, keyed):
    response = post(client, keyed, issue_key(), None)
    assert response.status_code == 400
    assert response.json()["code"] == "missing_idempotency_key"
    assert not QuotaCounter.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("key", ["", "   ", "k" * 256])
def test_empty_or_overlong_keys_are_refused(client, issue_key, keyed, key):
    response = post(client, keyed, issue_key(), key)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_idempotency_key"


@pytest.mark.django_db
def test_a_completed_key_replays_byte_for_byte_and_spends_nothing(client, issue_key, keyed):
    raw = issue_key()
    first = post(client, keyed, raw, "abc")
    second = post(client, keyed, raw, "abc")
    assert second.status_code == 201
    assert second.content == first.content
    assert second["X-Service-Idempotent-Replay"] == "true"
    assert "X-Service-Idempotent-Replay" not in first
    assert QuotaCounter.objects.get().used == 1


@pytest.mark.django_db
def test_bodies_differing_only_in_key_order_are_the_same_request(client, issue_key, keyed):
    raw = issue_key()
    post(client, keyed, raw, "order", body='{"imo": "9074729", "incomplete": false}')
    replay = post(client, keyed, raw, "order", body='{"incomplete":false,"imo":"9074729"}')
    assert replay["X-Service-Idempotent-Replay"] == "true"


@pytest.mark.django_db
def test_same_key_with_a_different_body_is_a_conflict(client, issue_key, keyed):
    raw = issue_key()
    post(client, keyed, raw, "abc")
    response = post(client, keyed, raw, "abc", body={"imo": "9187629"})
    assert response.status_code == 409
    assert response.json()["code"] == "idempotency_conflict"


@pytest.mark.django_db
def test_a_request_that_fails_validation_stores_nothing(client, issue_key, keyed):
    raw = issue_key()
    bad = post(client, keyed, raw, "v", body={"imo": 12, "incomplete": "maybe"})
    assert bad.status_code == 422
    assert not IdempotencyRecord.objects.exists()
    assert post(client, keyed, raw, "v", body={"imo": "9187629"}).status_code == 201


@pytest.mark.django_db
def test_invalid_json_claims_no_key(client, issue_key, keyed):
    raw = issue_key()
    assert post(client, keyed, raw, "j", body="{oops").status_code == 400
    assert not IdempotencyRecord.objects.exists()


@pytest.mark.django_db
def test_keys_are_namespaced_by_environment(client, issue_key, keyed):
    test_key = issue_key("test", email="same@example.com")
    live_key = issue_key("live", email="same@example.com")
    first = post(client, keyed, test_key, "shared")
    other = post(client, keyed, live_key, "shared")
    assert "X-Service-Idempotent-Replay" not in other
    assert first.json()["id"] != other.json()["id"]


@pytest.mark.django_db
def test_expired_keys_are_purged():
    from datetime import timedelta

    from django.utils import timezone

    from accounts.models import Account
    from metering.idempotency import purge_expired

    account = Account.objects.create(email="p@example.com")
    IdempotencyRecord.objects.create(
        account=account,
        environment="test",
        key="old",
        fingerprint="f",
        owner="x",
        expires_at=timezone.now() - timedelta(seconds=1),
    )
    assert purge_expired() == 1


@pytest.mark.django_db(transaction=True)
def test_a_concurrent_same_key_request_joins_and_gets_the_original(issue_key, keyed, monkeypatch):
    raw = issue_key()
    test_urls.release_slow.clear()
    results = {}

    def original():
        results["original"] = post(Client(), keyed, raw, "join", body={"imo": "9074729", "slow": True})

    worker = threading.Thread(target=original)
    worker.start()
    deadline = time.time() + 5
    while not IdempotencyRecord.objects.filter(key="join").exists() and time.time() < deadline:
        time.sleep(0.02)

    def joiner():
        results["joined"] = post(Client(), keyed, raw, "join", body={"imo": "9074729", "slow": True})

    # Release the original only once the second request is polling the claim (a fixed pause was not
    # always enough on a loaded machine: the second then arrived after the answer and was a plain replay).
    polling = threading.Event()
    real_sleep = time.sleep

    def observed_sleep(seconds: float) -> None:
        if sys._getframe(1).f_code.co_name == "_claim":
            polling.set()
        real_sleep(seconds)

    monkeypatch.setattr(time, "sleep", observed_sleep)
    second = threading.Thread(target=joiner)
    second.start()
    assert polling.wait(20), "the second request never waited on the claim"
    test_urls.release_slow.set()
    worker.join(10)
    second.join(10)
    assert results["original"].status_code == 201
    joined = results["joined"]
    assert joined.status_code == 201
    assert joined.content == results["original"].content
    assert joined["X-Service-Idempotent-Replay"] == "true"
    assert joined["X-Service-Idempotent-Joined"] == "true"
    assert QuotaCounter.objects.get().used == 1


@pytest.mark.django_db(transaction=True)
def test_a_join_that_outlasts_the_hold_is_409_in_progress(issue_key, keyed, settings):
    settings.IDEMPOTENCY_JOIN_HOLD_SECONDS = 1
    raw = issue_key()
    test_urls.release_slow.clear()
    worker = threading.Thread(target=lambda: post(Client(), keyed, raw, "hold", body={"imo": "9074729", "slow": True}))
    worker.start()
    deadline = time.time() + 5
    while not IdempotencyRecord.objects.filter(key="hold").exists() and time.time() < deadline:
        time.sleep(0.02)
    response = post(Client(), keyed, raw, "hold", body={"imo": "9074729", "slow": True})
    test_urls.release_slow.set()
    worker.join(10)
    assert response.status_code == 409
    assert response.json()["code"] == "idempotency_in_progress"
    assert int(response["Retry-After"]) > 0


@pytest.mark.django_db(transaction=True)
def test_shutdown_releases_keys_this_process_still_holds(issue_key, keyed):
    from accounts.models import Account
    from metering import idempotency

    issue_key(email="s@example.com")
    account = Account.objects.get(email="s@example.com")
    record = idempotency._claim(account.pk, "test", "held", "fp")
    assert IdempotencyRecord.objects.filter(pk=record.pk).exists()
    idempotency.release_held_keys()
    assert not IdempotencyRecord.objects.filter(pk=record.pk).exists()
