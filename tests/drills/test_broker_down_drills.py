"""Drill: the Celery broker (the drill's Redis) down while jobs and webhook deliveries are created.

Expected, and checked:

- with the broker stopped, creating a screening batch, a voyage batch, an export, a webhook endpoint
  and its test delivery answers the contract's status (202, 202, 202, 201, 202), never a 500: the
  job or delivery is committed and its message is sent best effort (jobs/flow.py `dispatch`,
  webhooks/delivery.py `dispatch`);
- nothing is lost: once Redis is back, the beat's sweeps (jobs.sweep, webhooks.sweep, run once as
  beat runs them, as if the leases had run out) re-send what the broker never took, a fresh worker
  runs it, every job ends `completed`, and every delivery (the test one and the three completion
  events) reaches the receiver exactly once;
- nothing is charged twice: the screening batch's units equal its charged screenings (its hull with a
  failing check digit comes back INCOMPLETE and is refunded), the voyage batch's its assessments.
"""

from __future__ import annotations

import time
from collections import Counter

import pytest
import requests

from screening import demo
from tests.drills.extra import issue_keys, keyed_headers, run_beat_sweeps, wait_until, workers
from tests.support.tls import start_https_receiver

pytestmark = pytest.mark.slow

TERMINAL = {"completed", "partial", "failed"}
# As if this long had passed when the sweeps run: past every item lease (screening and voyage
# batches 120 s, exports 900 s) and the webhook re-send delay (120 s), within every job deadline
# (1,800 s and more).
SWEEP_LATER_BY = 901
ANSWER_WITHIN_SECONDS = 30  # a creating POST with the broker down: no hang (a voyage batch may load the routes first)
COMPLETION_EVENTS = ("screening_batch.completed", "voyage_batch.completed", "export.completed")


class Api:
    def __init__(self, base_url: str, key: str) -> None:
        self.base_url, self.key = base_url, key

    def post(self, path: str, body: dict | None, idem: str) -> requests.Response:
        started = time.monotonic()
        response = requests.post(
            f"{self.base_url}{path}", json=body, headers=keyed_headers(self.key, idem), timeout=120
        )
        took = time.monotonic() - started
        print(f"POST {path}: {response.status_code} in {took:.2f} s")  # noqa: T201 - the drill's own record
        assert took < ANSWER_WITHIN_SECONDS, f"POST {path} took {took:.1f} s with the broker down"
        return response

    def get(self, path: str) -> dict:
        response = requests.get(f"{self.base_url}{path}", headers=keyed_headers(self.key), timeout=60)
        assert response.status_code == 200, response.text
        return response.json()


def units(drill, account: str, kind: str) -> int:
    rows = drill.postgres.sql(
        f"SELECT coalesce(sum(used), 0) FROM accounts_quotacounter WHERE account_id = '{account}' AND kind = '{kind}'"
    )
    return int(rows[0][0])


def test_with_the_broker_down_jobs_and_deliveries_are_accepted_and_all_run_once_it_is_back(drill):
    (key,) = issue_keys(drill, 1, prefix="broker-down")
    (account,) = drill.postgres.sql("SELECT id FROM accounts_account WHERE email = 'broker-down-0@example.com'")[0]
    api = Api(drill.url, key)
    receiver = start_https_receiver(drill.folder)
    try:
        drill.redis.stop()
        created = {
            "endpoint": api.post(
                "/api/v1/webhook-endpoints",
                {"url": f"{receiver.url}/hooks", "event_types": list(COMPLETION_EVENTS)},
                "broker-down-endpoint",
            )
        }
        assert created["endpoint"].status_code == 201, created["endpoint"].text
        endpoint_id = created["endpoint"].json()["id"]
        created["test delivery"] = api.post(f"/api/v1/webhook-endpoints/{endpoint_id}/test", None, "broker-down-test")
        created["screening batch"] = api.post(
            "/api/v1/screening-batches",
            {"items": [{"imo": demo.GREEN_CLEAN}, {"imo": demo.RED_OFAC}, {"imo": demo.BAD_CHECK_DIGIT}]},
            "broker-down-screening-batch",
        )
        created["voyage batch"] = api.post(
            "/api/v1/voyage-assessment-batches",
            {"routes": [{"route": {"origin": "NLRTM", "destination": "SGSIN"}},
                        {"route": {"origin": "NLRTM", "destination": "DEHAM"}}]},
            "broker-down-voyage-batch",
        )  # fmt: skip
        created["export"] = api.post(
            "/api/v1/exports", {"resource": "screenings", "format": "csv"}, "broker-down-export"
        )
        statuses = {what: response.status_code for what, response in created.items()}
        assert statuses == {
            "endpoint": 201, "test delivery": 202, "screening batch": 202, "voyage batch": 202, "export": 202,
        }, {what: response.text[:300] for what, response in created.items()}  # fmt: skip
        screening_units, assessment_units = units(drill, account, "screening"), units(drill, account, "assessment")
        assert (screening_units, assessment_units) == (3, 2), "the accepted items reserve their units at creation"

        drill.redis.start()  # empty: every message sent while it was down is gone (none was taken)
        ids = {
            "screening-batches": created["screening batch"].json()["id"],
            "voyage-assessment-batches": created["voyage batch"].json()["id"],
            "exports": created["export"].json()["id"],
        }
        with workers(drill) as start:
            start(REQUESTS_CA_BUNDLE=str(receiver.certificate))  # it trusts the receiver's certificate
            report = run_beat_sweeps(drill, later_by=SWEEP_LATER_BY)

            tables = {
                "screening-batches": "screening_screeningbatch",
                "voyage-assessment-batches": "voyages_voyagebatch",
                "exports": "exports_export",
            }

            def finished() -> bool:  # read from the database: polling the API would spend the key's rate
                found = [
                    drill.postgres.sql(f"SELECT status FROM {tables[path]} WHERE id = '{job_id}'")[0][0]
                    for path, job_id in ids.items()
                ]
                return set(found) <= TERMINAL

            wait_until(finished, 90, f"jobs ending after the sweep {report}", every=1)
            final = {path: api.get(f"/api/v1/{path}/{job_id}")["status"] for path, job_id in ids.items()}
            receiver.wait_for(1 + len(COMPLETION_EVENTS), timeout=60)
            time.sleep(2)  # a duplicate would arrive now
            received = list(receiver.received)
    finally:
        receiver.close()

    assert final == dict.fromkeys(ids, "completed"), f"{final} after the sweep {report}"
    assert report["jobs"]["screening_batch"]["redispatched"] == 3, report
    assert report["jobs"]["voyage_batch"]["redispatched"] == 2, report
    assert report["jobs"]["export"]["redispatched"] == 1, report
    assert report["webhooks"]["redispatched"] >= 1, report

    types = Counter(delivery.headers["X-Service-Event-Type"] for delivery in received)
    assert types == Counter({"webhook.test": 1, **dict.fromkeys(COMPLETION_EVENTS, 1)}), types
    event_ids = [delivery.headers["X-Service-Event-Id"] for delivery in received]
    assert len(set(event_ids)) == len(event_ids), "an event was delivered twice"
    rows = drill.postgres.sql(
        f"SELECT status, count(*) FROM webhooks_delivery WHERE endpoint_id = '{endpoint_id}' GROUP BY status"
    )
    assert dict(rows) == {"delivered": 4}, rows

    batch_items = api.get(f"/api/v1/screening-batches/{ids['screening-batches']}/items")["items"]
    charged = sum(1 for item in batch_items if item["screening"]["unit_charged"])
    assert [item["screening"]["sanctions"]["status"] for item in batch_items] == ["GREEN", "RED", "INCOMPLETE"]
    assert units(drill, account, "screening") == charged == 2, "one unit per verdict; the INCOMPLETE is refunded"
    assert units(drill, account, "assessment") == 2
    (screenings,) = drill.postgres.sql(f"SELECT count(*) FROM screening_screening WHERE account_id = '{account}'")[0]
    (assessments,) = drill.postgres.sql(
        f"SELECT count(*) FROM voyages_voyageassessment WHERE account_id = '{account}'"
    )[0]
    assert (screenings, assessments) == (3, 2), "each item ran exactly once"
    export = api.get(f"/api/v1/exports/{ids['exports']}")
    assert export["download_url"], export
