"""Vessel monitors (contract 3.5, 5.6, 6, 8; issue 14 items 1-7, 9): create, list, get, delete, the
baseline, the change detector in both directions, degraded runs, the camelCase coverage keys until
2026-12-23, simulation on test keys, caps, resolution of an open INCOMPLETE, deferral while the
allowance is used, and runs lost with their worker.

Live runs are executed in this process through the same worker body a Celery worker runs
(`runs.run`), against the demo world.
"""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, timedelta

import pytest
from django.utils import timezone

from accounts.models import Account
from metering import quota
from metering.models import QuotaCounter
from monitoring import runs
from monitoring.models import RunStatus, VesselMonitor, VesselMonitorRun
from monitoring.vessels import KIND, render_verdict
from screening import demo
from screening.models import Screening
from webhooks.models import Event

pytestmark = pytest.mark.django_db
_keys = itertools.count()
MONITORS = "/api/v1/vessel-monitors"


def _headers(raw: str, idempotent: bool = False) -> dict[str, str]:
    headers = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    if idempotent:
        headers["HTTP_IDEMPOTENCY_KEY"] = f"vmo-{next(_keys)}"
    return headers


def _post(client, raw: str, path: str, body: dict | None = None):  # type: ignore[no-untyped-def]
    return client.post(path, data=body or {}, content_type="application/json", **_headers(raw, idempotent=True))


def _create(client, raw: str, imo: str, **body) -> dict:  # type: ignore[no-untyped-def]
    response = _post(client, raw, MONITORS, {"imo": imo, **body})
    assert response.status_code == 201, response.content
    return response.json()


def _run_open_slot(monitor_id: str) -> str:
    """Run the monitor's queued run (as a worker would); returns what running it did."""
    run = VesselMonitorRun.objects.get(monitor_id=monitor_id, status=RunStatus.QUEUED)
    return runs.run(KIND, run.pk)


def _next_slot(monitor_id: str) -> None:
    """The schedule opens the monitor's next slot (24 hours on)."""
    due = VesselMonitor.objects.get(pk=monitor_id).next_run_at
    assert runs.schedule(KIND, now=due)


def _events(event_type: str) -> list[Event]:
    return list(Event.objects.filter(type=event_type).order_by("created_at"))


def _units(email: str, environment: str = "live") -> int:
    account = Account.objects.get(email=email)
    period = quota.allowance_for(account, environment, quota.KIND_SCREENING).period
    counter = QuotaCounter.objects.filter(account=account, environment=environment, kind="screening", period=period)
    return counter.first().used if counter.exists() else 0


def _green(grade: str = "A", opacity: str = "LOW") -> dict:
    return {
        "screening_id": "scr_earlier",
        "screened_at": "2026-11-01T00:00:00Z",
        "sanctions": {"status": "GREEN", "coverage_complete": True, "coverage_gaps": []},
        "ownership_opacity": opacity,
        "vetting_grade": grade,
    }


# -- create and the first run ------------------------------------------------------------------


def test_the_first_run_screens_the_hull_charges_one_unit_and_establishes_the_baseline_without_a_change(
    demo_world, client, issue_key
):
    raw = issue_key("live", email="watch@example.com")
    created = _create(client, raw, demo.GREEN_CLEAN, customer_reference="fleet-7")
    assert created["status"] == "created" and created["mode"] == "live" and created["baseline_verdict"] is None
    assert created["next_run_at"] is not None
    assert _run_open_slot(created["id"]) == runs.RAN

    monitor = client.get(f"{MONITORS}/{created['id']}", **_headers(raw)).json()
    assert monitor["status"] == "watching" and monitor["run_count"] == 1
    baseline = monitor["baseline_verdict"]
    assert baseline["sanctions"]["status"] == "GREEN" and baseline["vetting_grade"] == "A"
    assert baseline["ownership_opacity"] == "LOW" and baseline["sanctions"]["coverage_complete"] is True
    assert monitor["previous_verdict"] is None
    record = Screening.objects.get(pk=baseline["screening_id"])
    assert record.origin == "monitor" and record.unit_charged
    import json

    assert json.loads(bytes(record.document))["notices"] == []  # monitor screenings carry no notices (2.3)
    assert _units("watch@example.com") == 1
    (ready,) = _events("vessel_monitor.ready")
    assert ready.data["vessel_monitor_id"] == created["id"] and ready.data["baseline_verdict"]["vetting_grade"] == "A"
    assert not _events("vessel_risk.changed")

    _next_slot(created["id"])
    assert _run_open_slot(created["id"]) == runs.RAN  # the next day: nothing moved, nothing emitted
    assert len(_events("vessel_monitor.ready")) == 1 and not _events("vessel_risk.changed")
    assert _units("watch@example.com") == 2
    history = client.get(f"{MONITORS}/{created['id']}/runs", **_headers(raw)).json()["runs"]
    assert [run["outcome"] for run in history] == ["unchanged", "baseline"]


def test_a_verdict_that_moved_and_is_confirmed_emits_vessel_risk_changed_with_severity_and_previous_verdict(
    demo_world, client, issue_key
):
    raw = issue_key("live")
    created = _create(client, raw, demo.RED_OFAC)
    _run_open_slot(created["id"])
    VesselMonitor.objects.filter(pk=created["id"]).update(baseline_verdict=_green())  # it was GREEN yesterday
    _next_slot(created["id"])
    _run_open_slot(created["id"])

    (changed,) = _events("vessel_risk.changed")
    labels = {change["label"]: change for change in changed.data["changes"]}
    assert labels["Sanctions status"] == {
        "label": "Sanctions status", "previous": "GREEN", "current": "RED", "severity": "critical",
    }  # fmt: skip
    assert labels["Vetting grade"]["current"] == "E" and labels["Vetting grade"]["severity"] == "high"
    assert changed.data["severity"] == "critical"
    previous = changed.data["previous_verdict"]
    assert previous["sanctions"] == {"status": "GREEN", "coverage_complete": True, "coverage_gaps": []}
    monitor = client.get(f"{MONITORS}/{created['id']}", **_headers(raw)).json()
    assert monitor["baseline_verdict"]["sanctions"]["status"] == "RED"
    assert monitor["previous_verdict"]["sanctions"]["status"] == "GREEN"
    assert monitor["previous_verdict"]["sanctions"]["coverageComplete"] is True  # until 2026-12-23


def test_an_incomplete_screen_emits_vessel_data_degraded_keeps_the_baseline_and_charges_nothing(
    demo_world, client, issue_key
):
    raw = issue_key("live", email="degraded@example.com")
    created = _create(client, raw, demo.INCOMPLETE_IDENTITY)
    _run_open_slot(created["id"])
    (degraded,) = _events("vessel_data.degraded")
    assert degraded.data["vessel_monitor_id"] == created["id"] and degraded.data["baseline_verdict"] is None
    assert not _events("vessel_monitor.ready")  # no baseline from an INCOMPLETE screen
    assert VesselMonitor.objects.get(pk=created["id"]).status == "created"
    assert _units("degraded@example.com") == 0

    VesselMonitor.objects.filter(pk=created["id"]).update(baseline_verdict=_green(), status="watching")
    _next_slot(created["id"])
    _run_open_slot(created["id"])
    monitor = VesselMonitor.objects.get(pk=created["id"])
    assert monitor.baseline_verdict == _green() and len(_events("vessel_data.degraded")) == 2
    assert not _events("vessel_risk.changed")


def test_a_monitor_screening_that_obtains_a_verdict_resolves_the_open_incomplete(demo_world, client, issue_key):
    raw = issue_key("live")
    asked = client.post(
        "/api/v1/screenings", data={"imo": demo.INCOMPLETE_IDENTITY}, content_type="application/json",
        **_headers(raw, idempotent=True),
    ).json()  # fmt: skip
    assert asked["sanctions"]["status"] == "INCOMPLETE" and asked["resolution"]["status"] == "pending"
    created = _create(client, raw, demo.INCOMPLETE_IDENTITY, vessel_name="DEMO NEW NAME")
    _run_open_slot(created["id"])
    answer_id = VesselMonitor.objects.get(pk=created["id"]).baseline_verdict["screening_id"]
    original = client.get(f"/api/v1/screenings/{asked['id']}", **_headers(raw)).json()
    assert original["superseded_by"] == answer_id and original["resolution"]["status"] == "resolved"
    (resolved,) = _events("screening.resolved")
    assert resolved.data["screening_id"] == answer_id and resolved.data["supersedes_screening_id"] == asked["id"]


# -- the camelCase coverage keys ---------------------------------------------------------------


def test_the_camel_case_coverage_keys_disappear_by_themselves_on_2026_12_23(demo_world, client, issue_key, monkeypatch):
    verdict = _green()
    assert render_verdict(verdict, today=date(2026, 12, 22))["sanctions"]["coverageGaps"] == []
    assert "coverageComplete" not in render_verdict(verdict, today=date(2026, 12, 23))["sanctions"]

    raw = issue_key("live")
    created = _create(client, raw, demo.GREEN_CLEAN)
    _run_open_slot(created["id"])
    frozen = datetime(2026, 12, 23, 0, 0, 1, tzinfo=UTC)
    monkeypatch.setattr(timezone, "now", lambda: frozen)
    row = client.get(f"{MONITORS}/{created['id']}", **_headers(raw)).json()
    assert set(row["baseline_verdict"]["sanctions"]) == {"status", "coverage_complete", "coverage_gaps"}


def test_the_openapi_document_marks_the_camel_case_coverage_keys_deprecated(client):
    schemas = client.get("/api/v1/openapi.json").json()["components"]["schemas"]
    verdicts = [schema for name, schema in schemas.items() if name.startswith("Verdict")]
    found = []

    def walk(node):  # type: ignore[no-untyped-def]
        if isinstance(node, dict):
            for name in ("coverageComplete", "coverageGaps"):
                if name in node.get("properties", {}):
                    found.append(node["properties"][name].get("deprecated"))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(verdicts)
    assert found == [True, True]


# -- test keys and simulation ------------------------------------------------------------------


def test_a_test_key_cannot_run_live_monitors_but_creates_simulation_ones_the_schedule_never_runs(
    demo_world, client, issue_key
):
    raw = issue_key("test")
    for body in ({"imo": demo.GREEN_CLEAN}, {"imo": demo.GREEN_CLEAN, "mode": "live"}):
        refused = _post(client, raw, MONITORS, body)
        assert refused.status_code == 403 and refused.json()["code"] == "environment_not_allowed"
        assert "simulation" in refused.json()["message"]
    created = _create(client, raw, demo.GREEN_CLEAN, mode="simulation")
    assert created["next_run_at"] is None
    assert runs.schedule(KIND, now=timezone.now() + timedelta(days=3)) == []
    assert not VesselMonitorRun.objects.exists()


def test_simulate_feeds_the_same_detector_and_emits_the_same_events_in_both_directions(client, issue_key):
    raw = issue_key("test")
    created = _create(client, raw, demo.GREEN_CLEAN, mode="simulation")
    simulate = f"{MONITORS}/{created['id']}/simulate"
    green = {"sanctions_status": "GREEN", "ownership_opacity": "LOW", "vetting_grade": "A"}

    first = _post(client, raw, simulate, green)
    assert first.status_code == 201, first.content
    assert first.json()["outcome"] == "baseline" and first.json()["simulated"] is True
    assert len(_events("vessel_monitor.ready")) == 1

    single = _post(client, raw, simulate, {**green, "sanctions_status": "RED", "confirmed": False}).json()
    assert single["outcome"] == "unconfirmed" and single["event_ids"] == []  # a single reading emits nothing

    up = _post(client, raw, simulate, {**green, "sanctions_status": "AMBER", "vetting_grade": "C"}).json()
    assert up["outcome"] == "changed"
    assert {(c["label"], c["previous"], c["current"], c["severity"]) for c in up["changes"]} == {
        ("Sanctions status", "GREEN", "AMBER", "high"),
        ("Vetting grade", "A", "C", "high"),
    }
    down = _post(client, raw, simulate, green).json()
    assert {(c["label"], c["current"]) for c in down["changes"]} == {
        ("Sanctions status", "GREEN"),
        ("Vetting grade", "A"),
    }
    changed = _events("vessel_risk.changed")
    assert [event.id for event in changed] == [*up["event_ids"], *down["event_ids"]]
    assert changed[1].data["previous_verdict"]["sanctions"]["status"] == "AMBER"
    assert changed[1].environment == "test"

    degraded = _post(client, raw, simulate, {"sanctions_status": "INCOMPLETE", "coverage_gaps": ["ofac_sdn"]}).json()
    assert degraded["outcome"] == "degraded" and len(_events("vessel_data.degraded")) == 1
    monitor = client.get(f"{MONITORS}/{created['id']}", **_headers(raw)).json()
    assert monitor["baseline_verdict"]["sanctions"]["status"] == "GREEN"  # kept through the degraded run
    history = client.get(f"{MONITORS}/{created['id']}/runs", **_headers(raw)).json()["runs"]
    assert [run["outcome"] for run in history] == ["degraded", "changed", "changed", "unconfirmed", "baseline"]


def test_a_grade_that_appears_or_disappears_is_a_low_severity_change_not_an_error(client, issue_key):
    raw = issue_key("test")
    created = _create(client, raw, demo.GREEN_CLEAN, mode="simulation")
    simulate = f"{MONITORS}/{created['id']}/simulate"
    ungraded = {"sanctions_status": "GREEN", "ownership_opacity": "LOW", "vetting_grade": None}
    assert _post(client, raw, simulate, ungraded).status_code == 201
    graded = _post(client, raw, simulate, {**ungraded, "vetting_grade": "D"})
    assert graded.status_code == 201, graded.content  # was a 500: no grade has no distance to D
    assert [(c["previous"], c["current"], c["severity"]) for c in graded.json()["changes"]] == [(None, "D", "low")]
    gone = _post(client, raw, simulate, ungraded)
    assert gone.status_code == 201 and gone.json()["changes"][0]["severity"] == "low"


def test_simulate_is_refused_on_a_live_monitor_and_bad_payloads_store_nothing(demo_world, client, issue_key):
    raw = issue_key("live")
    live = _create(client, raw, demo.GREEN_CLEAN)
    refused = _post(client, raw, f"{MONITORS}/{live['id']}/simulate", {"sanctions_status": "RED"})
    assert refused.status_code == 409 and refused.json()["code"] == "monitor_not_simulated"
    sim = _create(client, raw, demo.GREEN_CLEAN, mode="simulation")
    for body in ({}, {"sanctions_status": "PURPLE"}, {"sanctions_status": "RED", "vetting_grade": "F"}):
        bad = _post(client, raw, f"{MONITORS}/{sim['id']}/simulate", body)
        assert bad.status_code == 422, body
    assert not VesselMonitorRun.objects.filter(monitor_id=sim["id"]).exists()
    assert _post(client, raw, f"{MONITORS}/vmo_missing/simulate", {"sanctions_status": "RED"}).status_code == 404


# -- limits and bad input ----------------------------------------------------------------------


def test_the_cap_is_422_with_the_number_and_a_hull_is_watched_once_per_mode(demo_world, client, issue_key, settings):
    settings.VESSEL_MONITORS_PER_ACCOUNT = 2
    raw = issue_key("live")
    first = _create(client, raw, demo.GREEN_CLEAN)
    again = _post(client, raw, MONITORS, {"imo": demo.GREEN_CLEAN})
    assert again.status_code == 409 and again.json()["vessel_monitor_id"] == first["id"]
    _create(client, raw, demo.GREEN_GRADE_B)
    over = _post(client, raw, MONITORS, {"imo": demo.GREEN_GRADE_C})
    assert over.status_code == 422 and over.json()["code"] == "monitor_limit_reached"
    assert "2" in over.json()["message"] and over.json()["limit"] == 2
    assert VesselMonitor.objects.count() == 2


@pytest.mark.parametrize("imo", [demo.BAD_CHECK_DIGIT, "12345", "no number", ""])
def test_a_hull_whose_imo_fails_is_422_on_imo_and_nothing_is_stored(client, issue_key, imo):
    response = _post(client, issue_key("live"), MONITORS, {"imo": imo})
    assert response.status_code == 422
    assert response.json()["field_violations"][0]["field"] == "imo"
    assert not VesselMonitor.objects.exists()


def test_another_account_or_environment_never_sees_a_monitor(client, issue_key):
    raw = issue_key("live", email="owner@example.com")
    created = _create(client, raw, demo.GREEN_CLEAN, mode="simulation")
    for other in (issue_key("test", email="owner@example.com"), issue_key("live", email="other@example.com")):
        assert client.get(MONITORS, **_headers(other)).json()["vessel_monitors"] == []
        assert client.get(f"{MONITORS}/{created['id']}", **_headers(other)).status_code == 404
        assert client.get(f"{MONITORS}/{created['id']}/runs", **_headers(other)).status_code == 404
        assert client.delete(f"{MONITORS}/{created['id']}", **_headers(other, idempotent=True)).status_code == 404
    assert client.get(MONITORS, **_headers(raw)).json()["vessel_monitors"][0]["id"] == created["id"]
    deleted = client.delete(f"{MONITORS}/{created['id']}", **_headers(raw, idempotent=True))
    assert deleted.status_code == 200 and deleted.json() == {"id": created["id"], "deleted": True}
    assert client.get(f"{MONITORS}/{created['id']}", **_headers(raw)).status_code == 404


def test_monitors_need_the_vessel_monitor_scope(client, issue_key):
    response = client.get(MONITORS, **_headers(issue_key("live", scopes=["vessel:screen"])))
    assert response.status_code == 403 and "vessel:monitor" in response.json()["message"]


# -- scheduling and money ----------------------------------------------------------------------


def test_a_run_while_the_allowance_is_used_waits_uncounted_and_runs_after_room_comes_back(
    demo_world, client, issue_key
):
    raw = issue_key("live", email="spent@example.com")
    created = _create(client, raw, demo.GREEN_CLEAN)
    account = Account.objects.get(email="spent@example.com")
    allowance = quota.allowance_for(account, "live", quota.KIND_SCREENING)
    QuotaCounter.objects.update_or_create(
        account=account,
        environment="live",
        kind="screening",
        period=allowance.period,
        defaults={"used": allowance.limit},
    )
    assert _run_open_slot(created["id"]) == runs.RAN_DEFERRED
    run = VesselMonitorRun.objects.get(monitor_id=created["id"])
    assert run.status == "deferred" and run.attempts == 0 and run.lease_expires_at > timezone.now()
    assert not Screening.objects.exists() and _units("spent@example.com") == allowance.limit

    QuotaCounter.objects.filter(account=account).update(used=allowance.limit - 1)  # room again
    assert runs.sweep(KIND, now=run.lease_expires_at + timedelta(seconds=1)).requeued == 1
    assert runs.run(KIND, run.pk) == runs.RAN
    run.refresh_from_db()
    assert run.status == "completed" and run.attempts == 1 and run.outcome == "baseline"
    assert _units("spent@example.com") == allowance.limit


def test_a_run_lost_with_its_worker_runs_again_and_charges_once(demo_world, client, issue_key):
    raw = issue_key("live", email="lost@example.com")
    created = _create(client, raw, demo.GREEN_CLEAN)
    run = VesselMonitorRun.objects.get(monitor_id=created["id"])
    lost = runs.claim(KIND, run.pk)  # a worker takes it and dies
    assert lost is not None and runs.run(KIND, run.pk) == runs.RAN_SKIPPED  # a duplicate message meanwhile
    later = timezone.now() + timedelta(seconds=600)
    assert runs.sweep(KIND, now=later).requeued == 1
    assert runs.run(KIND, run.pk) == runs.RAN
    assert runs.run_claimed(lost) == runs.RAN_SUPERSEDED  # the lost worker wakes up: nothing written
    assert Screening.objects.count() == 1 and _units("lost@example.com") == 1
    assert len(_events("vessel_monitor.ready")) == 1


def test_a_slot_is_opened_once_however_often_the_schedule_runs(demo_world, client, issue_key):
    raw = issue_key("live")
    created = _create(client, raw, demo.GREEN_CLEAN)
    due = VesselMonitor.objects.get(pk=created["id"]).next_run_at
    assert len(runs.schedule(KIND, now=due)) == 1
    assert runs.schedule(KIND, now=due) == []
    monitor = VesselMonitor.objects.get(pk=created["id"])
    assert monitor.next_run_at == due + timedelta(hours=24)
    assert VesselMonitorRun.objects.filter(monitor=monitor).count() == 2  # the first run and this slot


def test_a_monitor_run_that_crosses_80_percent_of_the_live_allowance_warns_once(demo_world, client, issue_key):
    raw = issue_key("live", email="warn@example.com")
    first = _create(client, raw, demo.GREEN_CLEAN)
    second = _create(client, raw, demo.GREEN_GRADE_B)
    account = Account.objects.get(email="warn@example.com")
    allowance = quota.allowance_for(account, "live", quota.KIND_SCREENING)
    threshold = allowance.limit * 8 // 10
    QuotaCounter.objects.update_or_create(
        account=account, environment="live", kind="screening", period=allowance.period,
        defaults={"used": threshold - 1},
    )  # fmt: skip
    _run_open_slot(first["id"])
    _run_open_slot(second["id"])
    (warning,) = _events("usage.quota_warning")
    assert warning.data == {"used": threshold, "limit": allowance.limit} and warning.environment == "live"
