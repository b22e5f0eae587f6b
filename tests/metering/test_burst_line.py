"""The free-account burst line is held, not noticed (issue 18 defect 5; contract 7 rule 5).

More than 250 screenings in any ten minutes (live and test together) pauses a free account. The
251st is answered with the pause 402 and neither runs nor is charged: no record, no unit, no
metering event. However many screenings of the account run at once (REST requests up to the
in-flight ceiling, batch items and monitor runs beyond it), never more than 250 are written in
ten minutes, on PostgreSQL (a row lock on the account) and on SQLite (IMMEDIATE transactions).
"""

from __future__ import annotations

import itertools
import threading
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.test import Client
from django.utils import timezone

from accounts.models import Account
from core.api.errors import ApiError
from metering.models import MeteringEvent, QuotaCounter
from screening import datastate, demo, engine
from screening.models import Screening
from screening.services import ORIGIN_BATCH, ScreeningRequest, create_screening

GREEN = demo.GREEN_CLEAN  # demo world: GREEN, coverage complete, vetting A
_idempotency_keys = itertools.count()


@pytest.fixture
def world():
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    datastate.invalidate()
    yield
    datastate.invalidate()


def _account(email: str) -> Account:
    return Account.objects.get(email=email)


def _earlier_screenings(account: Account, count: int, *, ago: timedelta = timedelta(minutes=5)) -> None:
    """`count` screenings of the account `ago` (half live, half test: the line counts both)."""
    at = timezone.now() - ago
    MeteringEvent.objects.bulk_create(
        MeteringEvent(account=account, environment=("live", "test")[i % 2], kind="screening", imo=GREEN, at=at)
        for i in range(count)
    )


def _post(client: Client, raw_key: str):  # type: ignore[no-untyped-def]
    return client.post(
        "/api/v1/screenings", data={"imo": GREEN}, content_type="application/json",
        HTTP_IDEMPOTENCY_KEY=f"burst-{next(_idempotency_keys)}", HTTP_AUTHORIZATION=f"Bearer {raw_key}",
    )  # fmt: skip


def _screenings_in_ten_minutes(account: Account) -> int:
    since = timezone.now() - timedelta(minutes=10)
    return MeteringEvent.objects.filter(account=account, kind="screening", at__gt=since).count()


@pytest.mark.django_db
def test_the_251st_screening_in_ten_minutes_is_refused_with_the_pause_and_not_charged(world, client, issue_key):
    raw = issue_key("live", email="burst@example.com")
    account = _account("burst@example.com")
    _earlier_screenings(account, 249)

    the_250th = _post(client, raw)
    assert the_250th.status_code == 201
    assert not _account("burst@example.com").is_paused

    the_251st = _post(client, raw)
    assert the_251st.status_code == 402
    body = the_251st.json()
    assert body["code"] == "quota_exhausted"
    assert "This account is paused" in body["message"] and "more than 250 screenings in ten minutes" in body["message"]
    assert "Nothing ran and nothing was charged" in body["message"]
    assert the_251st["X-Service-Quota-Remaining"] == "1999"  # the 250th's unit only
    paused = _account("burst@example.com")
    assert paused.is_paused and "250" in paused.paused_reason
    assert Screening.objects.filter(account=account).count() == 1
    assert QuotaCounter.objects.get(account=account, environment="live").used == 1
    assert _screenings_in_ten_minutes(account) == 250


@pytest.mark.django_db
def test_screenings_older_than_ten_minutes_are_outside_the_line(world, client, issue_key):
    raw = issue_key("test", email="steady@example.com")
    account = _account("steady@example.com")
    _earlier_screenings(account, 300, ago=timedelta(minutes=10, seconds=5))
    _earlier_screenings(account, 249)
    assert _post(client, raw).status_code == 201
    assert _post(client, raw).status_code == 402


@pytest.mark.django_db
def test_a_paid_account_has_no_burst_line(world, client, issue_key):
    raw = issue_key("live", email="paid-burst@example.com", plan="paid")
    account = _account("paid-burst@example.com")
    _earlier_screenings(account, 300)
    assert _post(client, raw).status_code == 201
    assert not _account("paid-burst@example.com").is_paused


def _in_threads(count: int, work) -> None:  # type: ignore[no-untyped-def]
    """Run `work()` in `count` threads released together, each on its own database connection."""
    start = threading.Barrier(count)
    failures: list[BaseException] = []

    def run() -> None:
        try:
            start.wait()
            work()
        except BaseException as exc:  # reported by the test below, not lost in the thread
            failures.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures


@pytest.mark.django_db(transaction=True)
def test_parallel_rest_screenings_of_a_free_account_never_run_past_250_in_ten_minutes(world, issue_key):
    raw = issue_key("test", email="parallel@example.com")
    account = _account("parallel@example.com")
    _earlier_screenings(account, 240)
    statuses: list[int] = []
    lock = threading.Lock()

    def screen_until_paused() -> None:
        client = Client()
        for _ in range(40):
            status = _post(client, raw).status_code
            with lock:
                statuses.append(status)
            if status == 402:
                return

    _in_threads(6, screen_until_paused)  # the in-flight ceiling: 6 screenings per customer
    assert statuses.count(201) == 10
    assert set(statuses) <= {201, 402, 429}
    assert Screening.objects.filter(account=account).count() == 10
    assert _screenings_in_ten_minutes(account) == 250
    assert _account("parallel@example.com").is_paused


@pytest.mark.django_db(transaction=True)
def test_parallel_batch_item_screenings_of_a_free_account_never_run_past_250_in_ten_minutes(world, issue_key):
    """Batch items and monitor runs hold no customer slot: any number may reach create_screening at once."""
    issue_key("live", email="items@example.com")
    account = _account("items@example.com")
    _earlier_screenings(account, 240)
    result = engine.screen_hull(GREEN, check_digit_valid=True, include_vetting=True, now=timezone.now())
    outcomes: list[str] = []
    lock = threading.Lock()

    def screen_items() -> None:
        for _ in range(3):
            try:
                create_screening(account, "live", ScreeningRequest(imo=GREEN), origin=ORIGIN_BATCH, result=result)
                outcome = "issued"
            except ApiError as refused:
                assert refused.status == 402 and "paused" in refused.message
                outcome = "refused"
            with lock:
                outcomes.append(outcome)

    _in_threads(12, screen_items)
    assert outcomes.count("issued") == 10 and outcomes.count("refused") == 26
    assert Screening.objects.filter(account=account).count() == 10
    assert QuotaCounter.objects.get(account=account, environment="live").used == 10
    assert _screenings_in_ten_minutes(account) == 250
    assert _account("items@example.com").is_paused


@pytest.mark.django_db(transaction=True)
def test_the_pause_outlives_the_rollback_of_a_transaction_enclosing_the_refused_screening(world, issue_key, client):
    """A cargo screening screens its hull inside its own transaction: past the line all of it rolls
    back, and the pause is written once that transaction is over."""
    raw = issue_key("test", email="cargo-burst@example.com")
    account = _account("cargo-burst@example.com")
    _earlier_screenings(account, 250)
    response = client.post(
        "/api/v1/cargo-screenings",
        data={
            "commodity": {"hs_code": "8471", "description": "Laptop computers"},
            "origin_country": "NL", "destination_country": "SG", "load_port": "NLRTM", "discharge_port": "SGSIN",
            "parties": [{"name": "Demo Fjord Exporters AS", "role": "shipper"}],
            "vessel": {"imo": GREEN},
        },
        content_type="application/json", HTTP_IDEMPOTENCY_KEY="cargo-burst", HTTP_AUTHORIZATION=f"Bearer {raw}",
    )  # fmt: skip
    assert response.status_code == 402
    assert "more than 250 screenings in ten minutes" in response.json()["message"]
    assert _account("cargo-burst@example.com").is_paused
    assert _screenings_in_ten_minutes(account) == 250


@pytest.mark.django_db(transaction=True)
def test_a_batch_item_refused_inside_its_transaction_is_paused_when_the_workers_task_ends(world, issue_key):
    from celery.signals import task_postrun

    issue_key("live", email="nested@example.com")
    account = _account("nested@example.com")
    _earlier_screenings(account, 250)
    result = engine.screen_hull(GREEN, check_digit_valid=True, include_vetting=True, now=timezone.now())
    with pytest.raises(ApiError) as refused, transaction.atomic():  # as a batch item's transaction encloses it
        create_screening(account, "live", ScreeningRequest(imo=GREEN), origin=ORIGIN_BATCH, result=result)
    assert refused.value.status == 402
    assert not _account("nested@example.com").is_paused  # its first write rolled back with the item
    task_postrun.send(sender=None, task_id="item", task=None, args=(), kwargs={}, retval=None, state="SUCCESS")
    assert _account("nested@example.com").is_paused


@pytest.mark.django_db
def test_the_register_walk_is_still_judged_after_the_screening_commits(world, client, issue_key):
    raw = issue_key("live", email="walker@example.com")
    account = _account("walker@example.com")
    now = timezone.now()
    MeteringEvent.objects.bulk_create(
        MeteringEvent(account=account, environment="live", kind="screening", imo=str(9000000 + 11 * i),
                      at=now - timedelta(minutes=60 - i))
        for i in range(39)
    )  # fmt: skip
    assert _post(client, raw).status_code == 201  # the 40th: answered, then the walk is seen
    assert "step through IMO numbers" in _account("walker@example.com").paused_reason
    assert _post(client, raw).status_code == 402
