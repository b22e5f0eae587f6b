"""From a new list edition to the customer's webhook, end to end: a real Celery worker process and a
real local HTTPS receiver (issue 27 "Done means").

The edition is loaded as a poll or an operator's file loads it (`refresh.load_files`); everything after
that runs in the worker: the edition's task finds the affected monitored hulls, their out-of-cycle runs
screen them, and the deliveries reach the receiver signed.
"""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import pytest

from accounts.models import Account
from metering.models import MeteringEvent
from monitoring.models import RunStatus, VesselMonitorRun
from screening import demo, refresh
from tests.monitoring.test_list_updates import BY_IMO, BY_NAME_ONLY, _edition
from tests.support.tls import start_https_receiver
from tests.support.worker import private_broker, start_worker, stop_worker, wait_until, worker_log
from webhooks.services import create_endpoint

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
_keys = itertools.count()
MONITORS = "/api/v1/vessel-monitors"


@pytest.fixture
def receiver(tmp_path, settings):
    found = start_https_receiver(tmp_path)
    settings.OUTBOUND_ALLOW_LOOPBACK = True
    yield found
    found.close()


@pytest.fixture
def worker(tmp_path, receiver):
    with private_broker(tmp_path / "broker") as broker_env:
        env = {**broker_env, "OUTBOUND_ALLOW_LOOPBACK": "1", "REQUESTS_CA_BUNDLE": str(receiver.certificate)}
        process = start_worker(env, log_path=tmp_path / "worker.log")
        yield process
        stop_worker(process)


def _completed(monitor_ids: list[str], trigger: str, timeout: float, worker) -> None:  # type: ignore[no-untyped-def]
    def done() -> bool:
        runs = VesselMonitorRun.objects.filter(monitor_id__in=monitor_ids, trigger=trigger)
        return runs.filter(status=RunStatus.COMPLETED).count() == len(monitor_ids)

    try:
        wait_until(done, timeout, f"{trigger} runs of {monitor_ids}")
    except AssertionError:
        print(worker_log(worker)[-6000:])
        raise


def test_a_designation_reaches_the_customers_webhook_through_a_real_worker_and_charges_nothing(
    demo_world, client, issue_key, receiver, worker
):
    assert refresh.load_files("ofac_sdn", _edition(), origin="test").status == "loaded"
    raw = issue_key("live", email="worker-desk@example.com")
    account = Account.objects.get(email="worker-desk@example.com")
    monitors = {}
    for name, imo in (("by_imo", demo.GREEN_CLEAN), ("by_name", demo.GREEN_GRADE_B), ("untouched", demo.GREEN_GRADE_C)):
        response = client.post(
            MONITORS, data={"imo": imo}, content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {raw}", HTTP_IDEMPOTENCY_KEY=f"luw-{next(_keys)}",
        )  # fmt: skip
        assert response.status_code == 201, response.content
        monitors[name] = response.json()["id"]
    _completed(list(monitors.values()), "schedule", 60, worker)  # the baselines, run by the worker
    create_endpoint(SimpleNamespace(account_id=account.pk, environment="live"), {"url": f"{receiver.url}/hook"})
    units_before = sum(MeteringEvent.objects.filter(account=account).values_list("units", flat=True))

    assert refresh.load_files("ofac_sdn", _edition(BY_IMO, BY_NAME_ONLY), origin="test").status == "loaded"

    try:
        received = receiver.wait_for(3, timeout=90)
    except AssertionError:
        runs = VesselMonitorRun.objects.filter(trigger="list_update").values("monitor_id", "status", "outcome", "error")
        print(list(runs), [r.json()["type"] for r in receiver.received], worker_log(worker)[-5000:])
        raise
    by_type: dict[str, list[dict]] = {}
    for request in received:
        body = request.json()
        by_type.setdefault(body["type"], []).append(body["data"])
    assert len(by_type.get("sanctions_list.updated", [])) == 1, worker_log(worker)[-4000:]
    (told,) = by_type["sanctions_list.updated"]
    assert told["added"] == 2 and told["monitored_hulls_rescreened"] == 2
    changed = {data["imo"]: data for data in by_type.get("vessel_risk.changed", [])}
    assert set(changed) == {demo.GREEN_CLEAN, demo.GREEN_GRADE_B}
    assert {c["current"] for c in changed[demo.GREEN_CLEAN]["changes"] if c["label"] == "Sanctions status"} == {"RED"}
    assert changed[demo.GREEN_CLEAN]["trigger"]["type"] == "sanctions_list.updated"
    _completed([monitors["by_imo"], monitors["by_name"]], "list_update", 30, worker)
    assert not VesselMonitorRun.objects.filter(monitor_id=monitors["untouched"], trigger="list_update").exists()
    assert sum(MeteringEvent.objects.filter(account=account).values_list("units", flat=True)) == units_before
