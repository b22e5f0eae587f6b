"""POST /api/v1/screening-batches, GET /{id}, GET /{id}/items, and the batch's items on workers.

Workers are played by calling the worker body (screening.batches.run_item / claim_item and the
flow's run_claimed) in this process against the test database; "a worker killed mid-item" is an
item claimed whose run never finishes, as in tests/voyages/test_batch_recovery.py.
"""

from __future__ import annotations

import itertools
import json
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from accounts.models import Account
from jobs import flow
from metering import quota
from metering.models import QuotaCounter
from screening import batches, demo
from screening.models import FollowUp, Screening, ScreeningBatch, ScreeningBatchItem
from webhooks.models import Event

pytestmark = pytest.mark.django_db

BATCHES = "/api/v1/screening-batches"
_keys = itertools.count()


@pytest.fixture
def key(issue_key):
    return issue_key("test", email="batches@example.com", plan="paid")


@pytest.fixture
def account(key):
    return Account.objects.get(email="batches@example.com")


@pytest.fixture
def submit(client, keyed):
    def post(raw_key: str, body, idempotency_key: str | None = None):  # type: ignore[no-untyped-def]
        return client.post(
            BATCHES,
            data=body,
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=idempotency_key or f"sb-{next(_keys)}",
            **keyed(raw_key),
        )

    return post


def units_used(account: Account, environment: str = "test") -> int:
    counter = QuotaCounter.objects.filter(account=account, environment=environment, kind=quota.KIND_SCREENING).first()
    return counter.used if counter else 0


def items_of(batch_id: str) -> list[ScreeningBatchItem]:
    return list(ScreeningBatchItem.objects.filter(batch_id=batch_id).order_by("position"))


def run_all(batch_id: str) -> list[str]:
    return [batches.run_item(item.pk) for item in items_of(batch_id) if item.status == ScreeningBatchItem.Status.QUEUED]


def hulls(*imos: str) -> dict:
    return {"items": [{"imo": imo} for imo in imos]}


def after_lease():  # type: ignore[no-untyped-def]
    return timezone.now() + timedelta(seconds=settings.SCREENING_BATCH_ITEM_LEASE_SECONDS + 1)


# --- creating --------------------------------------------------------------------------------


def test_the_202_answer_reserves_one_unit_per_accepted_hull_and_a_retry_replays_it(demo_world, key, account, submit):
    body = {"items": [{"imo": demo.GREEN_CLEAN}, {"imo": demo.RED_OFAC}], "customer_reference": "q4-review"}
    first = submit(key, body, "same")
    again = submit(key, body, "same")

    assert first.status_code == again.status_code == 202
    assert again.content == first.content and again["X-Service-Idempotent-Replay"] == "true"
    created = first.json()
    assert created["id"].startswith("sbt_") and created["status"] == "queued"
    assert created["customer_reference"] == "q4-review" and created["include_vetting"] is True
    assert created["item_count"] == created["accepted_count"] == 2
    assert created["progress"] == {"finished": 0, "total": 2, "percent": 0}
    assert created["items_url"] == f"{BATCHES}/{created['id']}/items"
    assert first["X-Service-Quota-Remaining"] == "498"
    assert ScreeningBatch.objects.count() == 1 and units_used(account) == 2


def test_an_invalid_hull_is_rejected_with_its_violation_while_the_valid_ones_run(demo_world, key, account, submit):
    body = {
        "items": [
            {"imo": demo.GREEN_CLEAN},
            {"imo": "93001"},
            {"imo": 9300776},
            {"imo": demo.RED_OFAC, "vessel_name": ""},
            "9300116",
            {"vessel_name": "NO IMO"},
        ]
    }
    created = submit(key, body).json()

    assert created["accepted_count"] == 1 and units_used(account) == 1
    assert created["counts"]["rejected"] == 5
    rows = items_of(created["id"])
    violations = {row.position: [v["field"] for v in row.error["field_violations"]] for row in rows[1:]}
    assert violations == {
        1: ["items[1].imo"],
        2: ["items[2].imo"],
        3: ["items[3].vessel_name"],
        4: ["items[4]"],
        5: ["items[5].imo"],
    }
    assert all(row.error["code"] == "validation_failed" for row in rows[1:])
    assert "POST /api/v1/screening-batches" in rows[1].error["field_violations"][0]["message"]
    assert run_all(created["id"]) == [flow.RUN_SUCCEEDED]
    assert ScreeningBatch.objects.get().status == ScreeningBatch.Status.PARTIAL


@pytest.mark.parametrize(
    "body",
    [
        {"items": [{"imo": demo.GREEN_CLEAN}] * 51},
        {"items": []},
        {"customer_reference": "nothing to screen"},
        {"items": {"imo": demo.GREEN_CLEAN}},
    ],
    ids=["51 hulls", "empty", "no items", "not an array"],
)
def test_a_batch_of_51_hulls_or_none_is_422_naming_items_and_reserves_nothing(demo_world, key, account, submit, body):
    response = submit(key, body)

    assert response.status_code == 422 and response.json()["code"] == "validation_failed"
    assert [v["field"] for v in response.json()["field_violations"]] == ["items"]
    assert not ScreeningBatch.objects.exists() and units_used(account) == 0


def test_the_51_hull_refusal_says_the_cap_and_how_to_split(demo_world, key, submit):
    message = submit(key, {"items": [{"imo": demo.GREEN_CLEAN}] * 51}).json()["field_violations"][0]["message"]
    assert "at most 50 hulls" in message and "has 51" in message


def test_a_batch_without_one_valid_hull_is_422_naming_each_and_reserves_nothing(demo_world, key, account, submit):
    response = submit(key, {"items": [{"imo": "12"}, {"imo": demo.GREEN_CLEAN + "99"}, {"name": "x"}]})

    assert response.status_code == 422
    fields = [v["field"] for v in response.json()["field_violations"]]
    assert fields == ["items[0].imo", "items[1].imo", "items[2].name", "items[2].imo"]
    assert not ScreeningBatch.objects.exists() and units_used(account) == 0


def test_a_wrong_batch_level_field_is_422_and_reserves_nothing(demo_world, key, account, submit):
    response = submit(key, {**hulls(demo.GREEN_CLEAN), "include_vetting": "yes", "customer_reference": 7})

    assert response.status_code == 422
    assert [v["field"] for v in response.json()["field_violations"]] == ["include_vetting", "customer_reference"]
    assert units_used(account) == 0


def test_a_batch_the_allowance_cannot_cover_is_402_and_reserves_nothing(demo_world, key, account, submit):
    quota.charge(account, "test", quota.KIND_SCREENING, 499)
    response = submit(key, hulls(demo.GREEN_CLEAN, demo.RED_OFAC))

    assert response.status_code == 402 and response.json()["code"] == "quota_exhausted"
    assert not ScreeningBatch.objects.exists() and units_used(account) == 499


def test_a_missing_idempotency_key_is_400_and_creates_nothing(demo_world, key, client, keyed):
    response = client.post(BATCHES, data=hulls(demo.GREEN_CLEAN), content_type="application/json", **keyed(key))
    assert response.status_code == 400 and response.json()["code"] == "missing_idempotency_key"
    assert not ScreeningBatch.objects.exists()


# --- running ---------------------------------------------------------------------------------


def test_a_hull_that_comes_back_incomplete_is_refunded_and_each_verdict_is_charged_once(
    demo_world, key, account, submit, client, keyed
):
    created = submit(key, hulls(demo.GREEN_CLEAN, demo.INCOMPLETE_IDENTITY, demo.BAD_CHECK_DIGIT, demo.RED_OFAC)).json()
    assert units_used(account) == 4

    assert run_all(created["id"]) == [flow.RUN_SUCCEEDED] * 4

    assert units_used(account) == 2
    records = {s.imo: s for s in Screening.objects.filter(account=account)}
    assert {imo: (s.status, s.unit_charged) for imo, s in records.items()} == {
        demo.GREEN_CLEAN: ("GREEN", True),
        demo.INCOMPLETE_IDENTITY: ("INCOMPLETE", False),
        demo.BAD_CHECK_DIGIT: ("INCOMPLETE", False),
        demo.RED_OFAC: ("RED", True),
    }
    batch = client.get(f"{BATCHES}/{created['id']}", **keyed(key)).json()
    assert batch["status"] == "completed" and batch["completed_at"] is not None
    assert batch["progress"] == {"finished": 4, "total": 4, "percent": 100}
    assert batch["verdicts"] == {"GREEN": 1, "AMBER": 0, "RED": 1, "INCOMPLETE": 2}


def test_batch_screenings_carry_an_empty_notices_array_and_the_batch_settings(demo_world, key, account, submit):
    body = {
        "items": [{"imo": demo.GREEN_CLEAN, "customer_reference": "hull-1"}, {"imo": demo.GREEN_CLEAN}],
        "include_vetting": False,
    }
    created = submit(key, body).json()
    run_all(created["id"])  # the second is a repeat screening within 24 h: no repeat_screening notice either

    records = list(Screening.objects.filter(account=account).order_by("id"))
    documents = [json.loads(bytes(s.document)) for s in records]
    assert [d["notices"] for d in documents] == [[], []]
    assert [s.origin for s in records] == ["batch", "batch"]
    assert [d["vetting"]["status"] for d in documents] == ["not_requested", "not_requested"]
    assert [d.get("customer_reference") for d in documents] == ["hull-1", None]


def test_the_appended_digit_correction_applies_as_on_post_screenings(demo_world, key, account, submit):
    Account.objects.filter(pk=account.pk).update(appended_digit_correction=True)
    created = submit(key, hulls(demo.GREEN_CLEAN + "5")).json()
    run_all(created["id"])

    document = json.loads(bytes(Screening.objects.get(account=account).document))
    assert document["imo"] == demo.GREEN_CLEAN and document["imo_normalized_from"] == demo.GREEN_CLEAN + "5"


def test_a_batch_screening_resolves_an_open_incomplete_of_the_same_hull(demo_world, key, account, submit, screen):
    original = screen(key, demo.INCOMPLETE_IDENTITY).json()
    assert original["sanctions"]["status"] == "INCOMPLETE" and FollowUp.objects.get().status == "pending"

    created = submit(key, {"items": [{"imo": demo.INCOMPLETE_IDENTITY, "vessel_name": "DEMO NEW NAME"}]}).json()
    run_all(created["id"])

    answer = Screening.objects.get(account=account, origin="batch")
    assert answer.status == "GREEN" and answer.supersedes_id == original["id"]
    assert Screening.objects.get(pk=original["id"]).superseded_by_id == answer.id
    assert FollowUp.objects.get().status == "resolved"
    event = Event.objects.get(type="screening.resolved")
    assert event.data["screening_id"] == answer.id and event.data["supersedes_screening_id"] == original["id"]
    assert units_used(account) == 1


def test_screening_batch_completed_is_emitted_once_whoever_settles_the_batch(demo_world, key, account, submit):
    created = submit(key, {**hulls(demo.GREEN_CLEAN, demo.RED_OFAC, "93001"), "customer_reference": "fleet-a"}).json()
    first, second, _rejected = items_of(created["id"])
    batches.run_item(first.pk)
    assert not Event.objects.filter(type="screening_batch.completed").exists()
    batches.run_item(second.pk)
    batches.run_item(second.pk)  # a redelivered message
    batches.sweep(after_lease())
    flow.settle_job(batches.KIND, created["id"])

    event = Event.objects.get(type="screening_batch.completed")
    assert event.account_id == account.pk and event.environment == "test"
    assert (
        event.data["screening_batch_id"] == created["id"] and event.data["status"] == "partial"
    )  # a rejected hull makes it partial
    assert event.data["customer_reference"] == "fleet-a"
    assert event.data["counts"]["succeeded"] == 2 and event.data["counts"]["rejected"] == 1


def test_a_worker_killed_mid_item_does_not_charge_twice(demo_world, key, account, submit):
    created = submit(key, hulls(demo.RED_OFAC)).json()
    only = items_of(created["id"])[0]
    assert batches.claim_item(only.pk, timezone.now()) is not None  # the worker is killed here

    assert batches.sweep(after_lease()).redispatched == 1
    assert batches.run_item(only.pk) == flow.RUN_SUCCEEDED

    only.refresh_from_db()
    assert only.status == ScreeningBatchItem.Status.SUCCEEDED and only.attempts == 2
    assert Screening.objects.filter(account=account).count() == 1 and units_used(account) == 1
    assert ScreeningBatch.objects.get().status == ScreeningBatch.Status.COMPLETED


def test_a_worker_whose_claim_was_taken_over_writes_no_record_and_charges_nothing(demo_world, key, account, submit):
    created = submit(key, hulls(demo.GREEN_CLEAN)).json()
    only = items_of(created["id"])[0]
    stalled = batches.claim_item(only.pk, timezone.now())  # worker A stalls past its lease
    batches.sweep(after_lease())
    assert batches.run_item(only.pk) == flow.RUN_SUCCEEDED  # worker B

    assert flow.run_claimed(stalled) == flow.RUN_SUPERSEDED  # worker A wakes up

    only.refresh_from_db()
    assert list(Screening.objects.filter(account=account).values_list("pk", flat=True)) == [only.screening_id]
    assert units_used(account) == 1


def test_an_item_lost_on_every_attempt_fails_and_its_unit_is_refunded(demo_world, key, account, submit):
    created = submit(key, hulls(demo.GREEN_CLEAN, demo.RED_OFAC)).json()
    lost, done = items_of(created["id"])
    batches.run_item(done.pk)
    now = timezone.now()
    for _ in range(settings.SCREENING_BATCH_ITEM_MAX_ATTEMPTS):
        assert batches.claim_item(lost.pk, now) is not None
        now += timedelta(seconds=settings.SCREENING_BATCH_ITEM_LEASE_SECONDS + 1)
        report = batches.sweep(now)

    assert report.exhausted == 1
    lost.refresh_from_db()
    assert lost.status == ScreeningBatchItem.Status.FAILED and lost.error["code"] == flow.ERROR_ATTEMPTS_EXHAUSTED
    assert "hull" in lost.error["message"] and "batch" in lost.error["message"]
    assert ScreeningBatch.objects.get().status == ScreeningBatch.Status.PARTIAL
    assert units_used(account) == 1


# --- reading ---------------------------------------------------------------------------------


def test_items_come_in_position_order_with_their_screening_records_and_page_by_cursor(
    demo_world, key, submit, client, keyed
):
    created = submit(key, hulls(demo.GREEN_CLEAN, "93001", demo.RED_OFAC)).json()
    run_all(created["id"])
    path = f"{BATCHES}/{created['id']}/items"

    whole = client.get(path, **keyed(key)).json()
    assert [row["position"] for row in whole["items"]] == [0, 1, 2] and whole["next_cursor"] is None
    green, rejected, red = whole["items"]
    assert green["status"] == "succeeded" and green["imo"] == demo.GREEN_CLEAN
    assert green["screening"]["sanctions"]["status"] == "GREEN" and green["screening"]["superseded_by"] is None
    assert rejected["status"] == "rejected" and rejected["imo"] is None and "screening" not in rejected
    assert rejected["error"]["field_violations"][0]["field"] == "items[1].imo"
    assert red["screening"]["sanctions"]["status"] == "RED"

    first = client.get(f"{path}?limit=2", **keyed(key)).json()
    rest = client.get(f"{path}?limit=2&cursor={first['next_cursor']}", **keyed(key)).json()
    assert [r["position"] for r in first["items"]] == [0, 1] and first["next_cursor"]
    assert [r["position"] for r in rest["items"]] == [2] and rest["next_cursor"] is None
    assert client.get(f"{path}?limit=51", **keyed(key)).status_code == 422
    assert client.get(f"{path}?cursor=bm9wZQ", **keyed(key)).status_code == 422  # "nope"


def test_another_accounts_or_environments_batch_is_404_on_detail_and_items(
    demo_world, key, issue_key, submit, client, keyed
):
    created = submit(key, hulls(demo.GREEN_CLEAN)).json()
    other_account = issue_key("test", email="someone-else@example.com")
    same_account_live = issue_key("live", email="batches@example.com")
    for raw in (other_account, same_account_live):
        for path in (f"{BATCHES}/{created['id']}", f"{BATCHES}/{created['id']}/items", f"{BATCHES}/sbt_nope"):
            response = client.get(path, **keyed(raw))
            assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert client.get(f"{BATCHES}/{created['id']}", **keyed(key)).status_code == 200


def test_batches_need_the_vessel_screen_scope(demo_world, issue_key, submit, client, keyed):
    raw = issue_key("test", scopes=["voyage:score"])
    assert submit(raw, hulls(demo.GREEN_CLEAN)).status_code == 403
    assert client.get(f"{BATCHES}/sbt_x", **keyed(raw)).json()["code"] == "insufficient_scope"
