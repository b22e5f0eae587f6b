"""The free-account pace counts screenings, not metering rows (issue 25 item 3; contract 7 rule 5).

A screening batch reserves its hulls' units in one entry when it is created; the pace rules must
not count that entry (nor refunds or settlements) as a screening. Five batches of 50 hulls are
exactly 250 screenings: all of them run, and only the 251st screening pauses the account. A walk
through IMO numbers sent partly in batches is still a walk, and quota_pace counts charged
screenings, not reservations.

The first test runs the service for real (uvicorn on the test database) and a real Celery worker
process: the batches are posted over HTTP and their items run on the worker.
"""

from __future__ import annotations

import itertools
import json
import time
import urllib.error
import urllib.request
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils import timezone

from accounts.models import PLAN_FREE, Account
from metering import pace, quota
from metering.models import MeteringEvent
from screening import batches, datastate, demo
from screening.models import Screening, ScreeningBatch, ScreeningBatchItem
from tests.support.server import running_service
from tests.support.worker import start_worker, stop_worker, worker_log

BATCHES = "/api/v1/screening-batches"
_keys = itertools.count()


def unknown_hulls(count: int, *, first_stem: int = 100_000, step: int = 3571) -> list[tuple[str, str]]:
    """(IMO, vessel name) of hulls no register names, with valid check digits: screened with the
    caller's name they reach a verdict (GREEN in the demo world). `step` 3571 keeps consecutive IMO
    numbers about 35,000 apart (no register walk); step 1 walks (each within 20 of the one before)."""
    return [(demo.imo_from_stem(first_stem + step * i), f"LEDGER HULL {first_stem + step * i}") for i in range(count)]


@pytest.fixture
def world(db):
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    datastate.invalidate()
    yield
    datastate.invalidate()


def _http(url: str, raw_key: str, method: str = "GET", body: dict | None = None) -> tuple[int, dict]:
    headers = {"Authorization": f"Bearer {raw_key}"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers.update({"Content-Type": "application/json", "Idempotency-Key": f"pace-{next(_keys)}"})
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_five_batches_of_50_hulls_all_run_on_a_free_account_and_the_251st_screening_pauses_it(
    world, issue_key, tmp_path
):
    raw = issue_key("test", email="free-batches@example.com")
    account = Account.objects.get(email="free-batches@example.com")
    assert account.plan == PLAN_FREE
    hulls = unknown_hulls(251)
    # The service and the worker share a folder of their own (its Celery broker on the embedded
    # default; with REDIS_URL set both use that Redis) and this process's secret key.
    env = {"SERVICE_VAR_DIR": str(tmp_path / "var"), "SECRET_KEY": settings.SECRET_KEY}
    worker = start_worker(env)
    try:
        with running_service(env, timeout=90) as url:
            batch_ids = []
            for n in range(5):
                chunk = hulls[50 * n : 50 * (n + 1)]
                status, created = _http(
                    f"{url}{BATCHES}",
                    raw,
                    "POST",
                    {"items": [{"imo": imo, "vessel_name": name} for imo, name in chunk]},
                )
                assert status == 202, created
                batch_ids.append(created["id"])
            deadline = time.monotonic() + 240
            while ScreeningBatch.objects.filter(pk__in=batch_ids, status__in=["queued", "running"]).exists():
                assert time.monotonic() < deadline, (
                    "the batches did not finish in 240 s:\n" + worker_log(worker)[-3000:]
                )
                assert worker.poll() is None, worker_log(worker)[-3000:]
                time.sleep(0.5)

            finished = [_http(f"{url}{BATCHES}/{batch_id}", raw)[1] for batch_id in batch_ids]
            succeeded = sum(batch["counts"]["succeeded"] for batch in finished)
            failures = list(
                ScreeningBatchItem.objects.filter(batch_id__in=batch_ids, status="failed").values_list(
                    "error", flat=True
                )
            )
            assert succeeded == 250 and not failures, (
                f"{succeeded} of 250 screenings ran before the pause; {len(failures)} failed, e.g. {failures[:1]}"
            )
            assert [batch["status"] for batch in finished] == ["completed"] * 5
            assert sum(batch["verdicts"]["GREEN"] for batch in finished) == 250
            status, usage = _http(f"{url}/api/v1/usage", raw)
            assert status == 200 and usage["paused"] is False and usage["quota"]["screenings"]["used"] == 250

            imo, name = hulls[250]
            status, refused = _http(f"{url}/api/v1/screenings", raw, "POST", {"imo": imo, "vessel_name": name})
            assert status == 402 and refused["code"] == "quota_exhausted", refused
            assert "paused" in refused["message"] and pace.BURST_REASON in refused["message"]
            status, usage = _http(f"{url}/api/v1/usage", raw)
            assert usage["paused"] is True
            screenings = usage["quota"]["screenings"]
            # The pause message states the numbers /usage gives (one function reads both).
            assert f"test {screenings['used']}/{screenings['limit']}" in refused["message"], (refused, usage)
            assert screenings["used"] == 250
    finally:
        stop_worker(worker)
    assert Screening.objects.filter(account=account).count() == 250
    assert Account.objects.get(pk=account.pk).is_paused


@pytest.mark.django_db
def test_a_batch_between_rest_screenings_does_not_hide_a_register_walk(world, issue_key, client, keyed):
    """39 screenings stepping through IMO numbers, then a batch with the 40th: a walk, whatever the door."""
    raw = issue_key("test", email="walker@example.com")
    walk = unknown_hulls(41, first_stem=500_000, step=1)
    for imo, name in walk[:39]:
        response = client.post(
            "/api/v1/screenings", data={"imo": imo, "vessel_name": name}, content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=f"walk-{imo}", **keyed(raw),
        )  # fmt: skip
        assert response.status_code == 201
    assert not Account.objects.get(email="walker@example.com").is_paused
    imo, name = walk[39]
    created = client.post(
        BATCHES, data={"items": [{"imo": imo, "vessel_name": name}]}, content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="walk-batch", **keyed(raw),
    )  # fmt: skip
    assert created.status_code == 202
    (item,) = ScreeningBatchItem.objects.filter(batch_id=created.json()["id"])
    batches.run_item(item.pk)
    paused = Account.objects.get(email="walker@example.com")
    assert paused.is_paused and "step through IMO numbers" in paused.paused_reason


@pytest.mark.django_db
def test_quota_pace_counts_charged_screenings_not_batch_reservations(world, issue_key, client, keyed):
    raw = issue_key("test", email="pace@example.com", plan="paid")  # 500 a month
    account = Account.objects.get(email="pace@example.com")
    created = client.post(
        BATCHES, data={"items": [{"imo": demo.GREEN_CLEAN}, {"imo": demo.RED_OFAC}, {"imo": demo.CONTESTED}]},
        content_type="application/json", HTTP_IDEMPOTENCY_KEY="pace-batch", **keyed(raw),
    )  # fmt: skip
    assert created.status_code == 202
    # The batch was posted four days ago; its items ran just now.
    MeteringEvent.objects.filter(account=account).update(at=timezone.now() - timedelta(days=4))
    for item in ScreeningBatchItem.objects.filter(batch_id=created.json()["id"]):
        batches.run_item(item.pk)
    allowance = quota.current_state(account, "test", quota.KIND_SCREENING).allowance
    nearly_used = quota.QuotaState(allowance, allowance.limit - 1)  # a projection is due if the pace is real
    quota._first_charges.clear()
    # The first charged screening was just now (the reservation is none): under three days, no projection.
    assert quota.pace_projection(account, nearly_used) is None
    # Four days later: the two charged screenings are the window's count, the reservation is not.
    MeteringEvent.objects.filter(account=account).update(at=timezone.now() - timedelta(days=4))
    quota._first_charges.clear()
    projection = quota.pace_projection(account, nearly_used)
    if allowance.resets_at - timezone.now() > timedelta(days=3):
        assert projection is not None and projection.trailing_7_day_count == 2
