"""Corridor monitors (contract 1.6, 5.6, 6, 8; issue 14 items 8-9): create, list, get, delete, the cap,
test keys refused, tenancy, bad input, and runs: one live voyage unit each, the baseline, material
changes, degraded and recovered sources, deferral while the allowance is used, a worker lost mid-run.

Runs are executed in this process through the worker body a Celery worker runs (`runs.schedule`, then
`runs.run`); the messages `schedule` sends go to a broker folder of this test's own. Changes are real:
the monitor's route changes, or the weather forecast service stops answering.
"""

from __future__ import annotations

import itertools
import json
import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.conf import settings
from django.utils import timezone

from accounts.services import issue_key
from metering import quota
from metering.models import QuotaCounter
from monitoring import corridors, runs
from monitoring.api.corridor_events import CORRIDOR_EVENT_DATA
from monitoring.corridors import KIND
from monitoring.models import CorridorMonitor, CorridorMonitorRun, RunStatus
from tests.support.worker import private_broker
from voyages.models import VoyageAssessment
from webhooks.models import Event

pytestmark = pytest.mark.django_db
MONITORS = "/api/v1/corridor-monitors"
_keys = itertools.count()
_emails = itertools.count()

NORTH_SEA = {"origin": "NLRTM", "destination": "DEHAM"}
AROUND_THE_CAPE = {"origin": "NLRTM", "destination": "SGSIN", "closed_passages": ["suez", "babalmandab", "northwest"]}
THROUGH_THE_RED_SEA = {"origin": "NLRTM", "destination": "SGSIN"}


@pytest.fixture(autouse=True)
def _own_broker(tmp_path):
    """Run messages sent by the schedule go to a folder no worker reads."""
    with private_broker(tmp_path / "broker"):
        yield


class Caller:
    def __init__(self, client, environment: str = "live", **options) -> None:  # type: ignore[no-untyped-def]
        self.client = client
        self.account, _, self.raw = issue_key(
            email=f"corridor{next(_emails)}@example.com", environment=environment, **options
        )

    def headers(self, idempotent: bool = False) -> dict[str, str]:
        headers = {"HTTP_AUTHORIZATION": f"Bearer {self.raw}"}
        if idempotent:
            headers["HTTP_IDEMPOTENCY_KEY"] = f"cmo-{next(_keys)}"
        return headers

    def create(self, route: dict | None = None, **body):  # type: ignore[no-untyped-def]
        return self.client.post(
            MONITORS,
            data={"route": route or NORTH_SEA, **body},
            content_type="application/json",
            **self.headers(idempotent=True),
        )

    def get(self, path: str, **params):  # type: ignore[no-untyped-def]
        return self.client.get(path, params, **self.headers())

    def delete(self, monitor_id: str):  # type: ignore[no-untyped-def]
        return self.client.delete(f"{MONITORS}/{monitor_id}", **self.headers(idempotent=True))

    def voyage_units(self) -> int:
        return quota.current_state(self.account, "live", quota.KIND_ASSESSMENT).used


@pytest.fixture
def live(client):
    return Caller(client)


def _monitor(caller: Caller, route: dict | None = None, **body) -> CorridorMonitor:
    response = caller.create(route, **body)
    assert response.status_code == 201, response.content
    return CorridorMonitor.objects.get(pk=response.json()["id"])


def _open_next_slot(monitor: CorridorMonitor) -> CorridorMonitorRun:
    """The schedule opens the monitor's due slot (as beat does); returns its queued run."""
    monitor.refresh_from_db()
    due = monitor.next_run_at
    assert runs.schedule(KIND, now=due)
    return CorridorMonitorRun.objects.get(monitor=monitor, slot=due)


def _run_next_slot(monitor: CorridorMonitor) -> CorridorMonitorRun:
    run = _open_next_slot(monitor)
    assert runs.run(KIND, run.pk) == runs.RAN
    run.refresh_from_db()
    return run


def _events(caller: Caller, event_type: str) -> list[Event]:
    """The caller's events of a type; each one's data is exactly what the published payload lists."""
    events = list(Event.objects.filter(account=caller.account, type=event_type).order_by("created_at"))
    for event in events:
        data_class = CORRIDOR_EVENT_DATA[event.type][0]
        published = data_class(data=event.data)
        assert published.is_valid(), published.errors
        assert set(event.data) == set(published.fields), event.type
    return events


# -- the resource ----------------------------------------------------------------------------------


def test_a_live_key_creates_lists_gets_and_deletes_a_monitor(live):
    response = live.create(
        {"origin": {"locode": "NLRTM"}, "destination": "DEHAM", "vessel_type": "container"}, customer_reference="lane-9"
    )
    assert response.status_code == 201
    created = response.json()
    assert created["id"].startswith("cmo_") and created["customer_reference"] == "lane-9"
    assert created["route"] == {"origin": "NLRTM", "destination": "DEHAM", "vessel_type": "container"}
    assert created["status"] == "active" and created["cadence_hours"] == 6 and created["baseline"] is None
    assert created["next_run_at"] is not None and created["run_count"] == 0
    assert live.voyage_units() == 0  # creating charges nothing; runs do

    listed = live.get(MONITORS).json()
    assert [m["id"] for m in listed["corridor_monitors"]] == [created["id"]] and listed["next_cursor"] is None
    detail = live.get(f"{MONITORS}/{created['id']}")
    assert detail.status_code == 200 and detail.json()["route"] == created["route"]
    assert live.get(f"{MONITORS}/{created['id']}/runs").json() == {"runs": [], "next_cursor": None}

    deleted = live.delete(created["id"])
    assert deleted.status_code == 200 and deleted.json() == {"id": created["id"], "deleted": True}
    assert live.get(f"{MONITORS}/{created['id']}").status_code == 404
    assert live.get(MONITORS).json()["corridor_monitors"] == []


def test_the_list_pages_newest_first_and_filters_by_reference(live):
    ids = [live.create(customer_reference=f"r{n}").json()["id"] for n in range(3)]
    first = live.get(MONITORS, limit=2).json()
    assert [m["id"] for m in first["corridor_monitors"]] == ids[::-1][:2]
    second = live.get(MONITORS, limit=2, cursor=first["next_cursor"]).json()
    assert [m["id"] for m in second["corridor_monitors"]] == [ids[0]] and second["next_cursor"] is None
    assert [m["id"] for m in live.get(MONITORS, customer_reference="r1").json()["corridor_monitors"]] == [ids[1]]


def test_a_test_key_is_refused_with_environment_not_allowed(client):
    test = Caller(client, "test")
    for response in (test.create(), test.get(MONITORS), test.get(f"{MONITORS}/cmo_x/runs")):
        assert response.status_code == 403 and response.json()["code"] == "environment_not_allowed"
    assert not CorridorMonitor.objects.exists()


def test_a_key_without_voyage_monitor_is_refused_naming_the_scope(client):
    narrow = Caller(client, "live", scopes=["voyage:score"])
    response = narrow.create()
    assert response.status_code == 403 and response.json()["code"] == "insufficient_scope"
    assert "voyage:monitor" in response.json()["message"]


def test_the_eleventh_monitor_is_422_naming_the_cap(live):
    for _ in range(settings.CORRIDOR_MONITORS_PER_KEY):
        assert live.create().status_code == 201
    response = live.create()
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "monitor_limit_reached" and "(10)" in body["message"]
    assert CorridorMonitor.objects.filter(account=live.account).count() == 10
    live.delete(CorridorMonitor.objects.filter(account=live.account).first().pk)
    assert live.create().status_code == 201  # deleting one makes room


def test_another_account_neither_sees_nor_touches_a_monitor(live, client):
    monitor = _monitor(live)
    other = Caller(client)
    assert other.get(f"{MONITORS}/{monitor.pk}").status_code == 404
    assert other.get(f"{MONITORS}/{monitor.pk}/runs").status_code == 404
    assert other.delete(monitor.pk).status_code == 404
    assert other.get(MONITORS).json()["corridor_monitors"] == []
    assert live.get(f"{MONITORS}/{monitor.pk}").status_code == 200


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"route": {"origin": "Rotterdam", "destination": "DEHAM"}}, "route.origin"),
        ({"route": {"origin": "NLRTM", "destination": "ZZZZZ"}}, "route.destination"),
        ({"route": {"origin": "NLRTM", "destination": "NLRTM"}}, "route.destination"),
        ({"route": {"origin": "NLRTM", "destination": "DEHAM", "vessel_type": "spaceship"}}, "route.vessel_type"),
        ({"route": {"origin": "NLRTM", "destination": "DEHAM", "via": [[0, 0]] * 21}}, "route.via"),
        ({"route": {"origin": "NLRTM", "destination": "DEHAM", "via": [[10.0, 51.0]]}}, "route.via[0]"),  # on land
        ({"route": {"origin": "NLRTM", "destination": "DEHAM", "speed_knots": "fast"}}, "route.speed_knots"),
        ({"customer_reference": 7, "route": {"origin": "NLRTM", "destination": "DEHAM"}}, "customer_reference"),
        ({"origin": "NLRTM", "destination": "DEHAM"}, "route"),
    ],
)
def test_bad_input_is_422_naming_the_field_and_stores_nothing(live, body, field):
    response = live.client.post(MONITORS, data=body, content_type="application/json", **live.headers(idempotent=True))
    assert response.status_code == 422, response.content
    assert response.json()["code"] == "validation_failed"
    assert field in [v["field"] for v in response.json()["field_violations"]]
    assert not CorridorMonitor.objects.exists()


def test_a_create_without_an_idempotency_key_is_400_and_a_retry_replays(live):
    response = live.client.post(MONITORS, data={"route": NORTH_SEA}, content_type="application/json", **live.headers())
    assert response.status_code == 400 and response.json()["code"] == "missing_idempotency_key"
    headers = {**live.headers(), "HTTP_IDEMPOTENCY_KEY": "same"}
    first = live.client.post(MONITORS, data={"route": NORTH_SEA}, content_type="application/json", **headers)
    again = live.client.post(MONITORS, data={"route": NORTH_SEA}, content_type="application/json", **headers)
    assert first.status_code == again.status_code == 201 and first.content == again.content
    assert CorridorMonitor.objects.count() == 1


def test_unknown_ids_are_404(live):
    for response in (live.get(f"{MONITORS}/cmo_nothing"), live.get(f"{MONITORS}/cmo_nothing/runs"), live.delete("x")):
        assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_every_operation_is_in_the_openapi_document(live):
    document = live.client.get("/api/v1/openapi.json").json()
    paths = document["paths"]
    assert {"post", "get"} <= set(paths[MONITORS])
    assert {"get", "delete"} <= set(paths[f"{MONITORS}/{{monitor_id}}"])
    assert "get" in paths[f"{MONITORS}/{{monitor_id}}/runs"]
    headers = {p["name"] for p in paths[MONITORS]["post"]["parameters"] if p["in"] == "header"}
    assert "Idempotency-Key" in headers
    for event_type in ("corridor_risk.changed", "corridor_data.degraded", "corridor_data.recovered"):
        assert event_type in json.dumps(document)


# -- runs ------------------------------------------------------------------------------------------


def test_a_run_charges_one_live_voyage_unit_and_sets_the_baseline_without_an_event(live):
    monitor = _monitor(live, customer_reference="north-sea")
    run = _run_next_slot(monitor)
    assert run.status == RunStatus.COMPLETED and run.attempts == 1
    assert live.voyage_units() == 1
    assessment = VoyageAssessment.objects.get(pk=run.assessment_id)
    assert assessment.account_id == live.account.pk and assessment.environment == "live"
    assert run.summary["outcome"] == "baseline" and run.summary["assessment_id"] == assessment.pk
    assert run.summary["risk_level"] in {"low", "moderate"} and run.summary["listed_areas"] == []
    assert run.changes == [] and run.event_ids == []
    assert not Event.objects.filter(account=live.account).exists()
    monitor.refresh_from_db()
    assert monitor.baseline["score"] == run.summary["score"] and monitor.run_count == 1
    assert monitor.next_run_at == run.slot + timedelta(hours=6)

    history = live.get(f"{MONITORS}/{monitor.pk}/runs").json()["runs"]
    assert len(history) == 1 and history[0]["assessment_id"] == assessment.pk and history[0]["status"] == "completed"
    detail = live.get(f"{MONITORS}/{monitor.pk}").json()
    assert detail["baseline"]["assessment_id"] == assessment.pk and detail["latest_run"]["slot"] == history[0]["slot"]
    stored = json.loads(bytes(assessment.document))
    assert stored["customer_reference"] == "north-sea"


def test_a_second_run_without_a_material_change_emits_nothing(live):
    monitor = _monitor(live)
    _run_next_slot(monitor)
    second = _run_next_slot(monitor)
    assert second.summary["outcome"] == "unchanged" and second.changes == [] and second.event_ids == []
    assert live.voyage_units() == 2
    assert not Event.objects.filter(account=live.account).exists()
    assert [r["summary"]["outcome"] for r in live.get(f"{MONITORS}/{monitor.pk}/runs").json()["runs"]] == [
        "unchanged",
        "baseline",
    ]


def test_a_lane_that_enters_a_listed_area_emits_corridor_risk_changed(live):
    monitor = _monitor(live, AROUND_THE_CAPE, customer_reference="asia-loop")
    first = _run_next_slot(monitor)
    assert first.summary["outcome"] == "baseline" and not Event.objects.exists()
    # The lane reopens through Suez and the Red Sea (what a customer re-creating it would send).
    CorridorMonitor.objects.filter(pk=monitor.pk).update(request={"route": THROUGH_THE_RED_SEA})
    second = _run_next_slot(monitor)
    assert second.summary["outcome"] == "changed"
    kinds = {(c["kind"], c["direction"]) for c in second.changes}
    assert ("listed_area", "entered") in kinds and ("score_floor", "applied") in kinds
    assert ("risk_level", "up") in kinds
    [event] = _events(live, "corridor_risk.changed")
    assert second.event_ids == [event.pk]
    data = event.data
    assert data["monitor_id"] == monitor.pk and data["customer_reference"] == "asia-loop"
    assert data["assessment_id"] == second.assessment_id and data["direction"] == "up"
    assert data["previous"]["assessment_id"] == first.assessment_id
    assert data["current"]["score_floor"]["basis"] == "listed_area_active_hostility"
    assert any(a["id"] == "jwla-southern-red-sea-yemen" for a in data["current"]["listed_areas"])
    monitor.refresh_from_db()
    assert monitor.baseline["assessment_id"] == second.assessment_id  # the change is the new baseline
    third = _run_next_slot(monitor)
    assert third.summary["outcome"] == "unchanged" and len(_events(live, "corridor_risk.changed")) == 1


def test_the_detector_reports_each_kind_of_material_change_in_both_directions():
    base = {
        "score": 30,
        "risk_level": "moderate",
        "score_floor": None,
        "listed_areas": [{"id": "a", "name": "A", "risk_level": "high"}],
    }
    assert corridors.material_changes(base, {**base, "score": 39}) == []  # under the threshold, same band
    moved = corridors.material_changes(base, {**base, "score": 40, "risk_level": "elevated"})
    assert {(c["kind"], c["direction"]) for c in moved} == {("risk_level", "up"), ("score", "up")}
    down = corridors.material_changes(base, {**base, "score": 20})
    assert [(c["kind"], c["direction"], c["delta"]) for c in down] == [("score", "down", -10)]
    floored = {**base, "score_floor": {"basis": "listed_area_transit", "value": 60}}
    assert [c["direction"] for c in corridors.material_changes(base, floored)] == ["applied"]
    assert [c["direction"] for c in corridors.material_changes(floored, base)] == ["lifted"]
    left = corridors.material_changes(
        base, {**base, "listed_areas": [{"id": "b", "name": "B", "risk_level": "severe"}]}
    )
    assert [(c["kind"], c["direction"]) for c in left] == [("listed_area", "entered"), ("listed_area", "left")]


class _Forecast(BaseHTTPRequestHandler):
    answering = True

    def log_message(self, *args):  # noqa: ANN002
        pass

    def do_GET(self):  # noqa: N802
        if not type(self).answering:
            self.send_response(503)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = json.dumps({"issued_at": "2026-11-23T00:00:00Z", "max_wave_height_m": 2.0, "max_wind_kn": 20}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def forecast_service(settings):
    """A live weather forecast on 127.0.0.1 that can stop answering."""
    settings.OUTBOUND_ALLOW_LOOPBACK = True
    _Forecast.answering = True
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Forecast)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    settings.WEATHER_FORECAST_URL = f"http://127.0.0.1:{server.server_address[1]}/forecast"
    yield _Forecast
    server.shutdown()
    server.server_close()


def test_a_source_that_stops_answering_degrades_once_and_its_return_recovers(live, forecast_service):
    monitor = _monitor(live)
    baseline = _run_next_slot(monitor)
    assert baseline.summary["missing_sources"] == []
    forecast_service.answering = False
    degraded = _run_next_slot(monitor)
    assert degraded.summary["outcome"] == "degraded" and degraded.summary["degraded_sources"] == ["weather_forecast"]
    [event] = _events(live, "corridor_data.degraded")
    assert event.data["degraded_sources"] == ["weather_forecast"] and degraded.event_ids == [event.pk]
    still = _run_next_slot(monitor)
    assert still.summary["outcome"] == "degraded" and still.event_ids == []  # told once
    monitor.refresh_from_db()
    assert monitor.degraded and monitor.baseline["assessment_id"] == baseline.assessment_id  # baseline kept
    assert live.voyage_units() == 3  # a degraded run is still an assessment
    forecast_service.answering = True
    back = _run_next_slot(monitor)
    assert back.summary["recovered"] is True and back.summary["outcome"] == "unchanged"
    [recovered] = _events(live, "corridor_data.recovered")
    assert recovered.data["recovered_sources"] == ["weather_forecast"] and back.event_ids == [recovered.pk]
    monitor.refresh_from_db()
    assert not monitor.degraded
    assert not _events(live, "corridor_risk.changed")


def test_a_run_while_the_allowance_is_used_waits_for_it_uncharged_and_runs_after(live):
    monitor = _monitor(live)
    limit = quota.current_state(live.account, "live", quota.KIND_ASSESSMENT).allowance.limit
    quota.charge(live.account, "live", quota.KIND_ASSESSMENT, units=limit)  # the month's allowance is used
    run = _open_next_slot(monitor)
    assert runs.run(KIND, run.pk) == runs.RAN_DEFERRED
    run.refresh_from_db()
    resets_at = quota.current_state(live.account, "live", quota.KIND_ASSESSMENT).allowance.resets_at
    assert run.status == RunStatus.DEFERRED and run.attempts == 0 and run.lease_expires_at == resets_at
    assert live.voyage_units() == limit and not VoyageAssessment.objects.filter(account=live.account).exists()
    [deferred] = _events(live, "corridor_monitor.deferred")
    assert deferred.data["used"] == limit and deferred.data["monitor_id"] == monitor.pk
    assert live.get(f"{MONITORS}/{monitor.pk}/runs").json()["runs"][0]["deferred_until"] is not None

    assert runs.sweep(KIND).requeued == 0  # not before the reset
    quota.refund(live.account, "live", quota.KIND_ASSESSMENT, units=limit)  # the reset gives the allowance back
    assert runs.sweep(KIND, now=resets_at + timedelta(seconds=1)).requeued == 1
    assert runs.run(KIND, run.pk) == runs.RAN
    run.refresh_from_db()
    assert run.status == RunStatus.COMPLETED and run.attempts == 1 and run.error is None
    assert run.summary["outcome"] == "baseline" and run.event_ids == [deferred.pk]
    assert live.voyage_units() == 1


def test_an_older_slot_is_superseded_by_a_later_open_one_without_a_charge(live):
    monitor = _monitor(live)
    older = _open_next_slot(monitor)
    newer = _open_next_slot(monitor)
    assert runs.run(KIND, older.pk) == runs.RAN
    older.refresh_from_db()
    assert older.status == RunStatus.COMPLETED and older.error["code"] == "superseded" and older.assessment_id is None
    assert live.voyage_units() == 0
    assert runs.run(KIND, newer.pk) == runs.RAN
    assert live.voyage_units() == 1


def test_a_worker_lost_mid_run_is_re_run_and_charged_once(live):
    monitor = _monitor(live)
    run = _open_next_slot(monitor)
    lost = runs.claim(KIND, run.pk)  # a worker takes the run and dies before finishing
    assert lost is not None
    assert runs.sweep(KIND).requeued == 0  # its lease still holds
    after_lease = timezone.now() + timedelta(seconds=settings.MONITOR_RUN_LEASE_SECONDS + 1)
    assert runs.sweep(KIND, now=after_lease).requeued == 1
    assert runs.run(KIND, run.pk) == runs.RAN
    # The first worker was only slow: it finishes late and writes nothing.
    assert runs.run_claimed(lost) == runs.RAN_SUPERSEDED
    run.refresh_from_db()
    assert run.status == RunStatus.COMPLETED and run.attempts == 2
    assert live.voyage_units() == 1
    assert VoyageAssessment.objects.filter(account=live.account).count() == 1
    assert QuotaCounter.objects.get(account=live.account, environment="live", kind=quota.KIND_ASSESSMENT).used == 1
    monitor.refresh_from_db()
    assert monitor.run_count == 1


def test_a_monitor_deleted_mid_run_writes_nothing_and_charges_nothing(live):
    monitor = _monitor(live)
    run = _open_next_slot(monitor)
    claimed = runs.claim(KIND, run.pk)
    live.delete(monitor.pk)
    assert runs.run_claimed(claimed) == runs.RAN_SUPERSEDED
    assert live.voyage_units() == 0 and not VoyageAssessment.objects.exists()


def test_test_key_monitors_are_never_scheduled(live):
    monitor = _monitor(live)
    CorridorMonitor.objects.filter(pk=monitor.pk).update(environment="test")
    assert runs.schedule(KIND, now=timezone.now() + timedelta(days=1)) == []
