"""Real responses of every published operation validate against /api/v1/openapi.json.

Each response is validated (JSON Schema 2020-12, which OpenAPI 3.1 schemas are) against the
schema the document publishes for that operation and status code, so the document and the
responses cannot drift apart: a strictly generated client accepts whatever the service sends.
The last assertion makes a newly published operation fail here until this test exercises it.
"""

from __future__ import annotations

import itertools
from datetime import date
from types import SimpleNamespace

import pytest

from accounts.models import Account
from metering.models import QuotaCounter
from screening import demo, engine
from tests.support.published_schema import Published
from voyages import batches
from voyages.models import VoyageBatchItem

pytestmark = pytest.mark.django_db

_keys = itertools.count()


@pytest.fixture
def published(client) -> Published:
    return Published.served_by(client)


def _post(client, keyed, raw: str, path: str, body: dict, **extra):  # type: ignore[no-untyped-def]
    return client.post(
        path,
        data=body,
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY=f"schema-{next(_keys)}",
        **keyed(raw),
        **extra,
    )


def _screenings(client, keyed, published: Published, raw: str) -> list[dict]:
    """Every demo verdict path, and the variants that add optional fields and notices."""
    records = []

    def screen(imo: str, **body) -> dict:
        response = _post(client, keyed, raw, "/api/v1/screenings", {"imo": imo, **body})
        record = published.check("/api/v1/screenings", "post", response)
        records.append(record)
        return record

    for hull in demo.HULLS:
        screen(hull.imo)
    screen(demo.GREEN_CLEAN, include_vetting=False, customer_reference="PO-1")  # not_requested vetting
    screen(demo.RED_OFAC, include_vetting=False)
    screen(demo.AMBER_AGGREGATED, vessel_name="DEMO GREY PETREL")
    screen(demo.INCOMPLETE_IDENTITY, vessel_name="DEMO BLUE HORIZON")  # identity user; resolves the open one
    screen(demo.GREEN_CLEAN + "5")  # imo_normalized (the account has the appended-digit correction)
    return records


def _slow_clock(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Screenings take seven (fake) seconds, so enrichment_latency fires."""
    ticks = itertools.count(step=7)
    monkeypatch.setattr(engine, "time", SimpleNamespace(perf_counter=lambda: float(next(ticks))))


def test_every_operation_answers_what_the_published_schema_describes(
    demo_world, client, keyed, issue_key, published, monkeypatch
):
    raw = issue_key("test", email="schema@example.com", plan="paid")  # a walk through demo IMOs pauses free ones
    live = issue_key("live", email="schema-live@example.com", opened_on=date(2026, 11, 1))
    Account.objects.filter(email="schema@example.com").update(appended_digit_correction=True)

    # Screenings: create (every demo path), list (with filters), detail.
    records = _screenings(client, keyed, published, raw)
    assert not published.failures, "\n".join(published.failures)
    assert [r for r in records if "sanctions" not in r] == []
    assert {r["sanctions"]["status"] for r in records} == {"GREEN", "AMBER", "RED", "INCOMPLETE"}
    account = Account.objects.get(email="schema-live@example.com")
    QuotaCounter.objects.create(account=account, environment="live", kind="screening", period="once", used=1599)
    with monkeypatch.context() as patched:
        _slow_clock(patched)
        warned = _post(client, keyed, live, "/api/v1/screenings", {"imo": demo.GREEN_CLEAN})
    warned_body = published.check("/api/v1/screenings", "post", warned)
    assert {"quota_warning", "enrichment_latency"} <= {n["code"] for n in warned_body["notices"]}
    codes = {n["code"] for r in records + [warned_body] for n in r.get("notices", [])}
    assert codes >= {
        "imo_normalized",
        "repeat_screening",
        "identity_unresolved",
        "auto_resolution",
        "identity_contested",
        "quota_warning",
        "enrichment_latency",
    }
    for query in ("", "?limit=3", "?status=INCOMPLETE", "?superseded=true"):
        published.check("/api/v1/screenings", "get", client.get(f"/api/v1/screenings{query}", **keyed(raw)))
    for record in records:
        detail = client.get(f"/api/v1/screenings/{record['id']}", **keyed(raw))
        published.check("/api/v1/screenings/{screening_id}", "get", detail)
    published.check(
        "/api/v1/screenings/{screening_id}", "get", client.get("/api/v1/screenings/scr_unknown", **keyed(raw))
    )
    published.check(
        "/api/v1/screenings", "post", _post(client, keyed, raw, "/api/v1/screenings", {"imo": "not an imo"})
    )
    published.check("/api/v1/screenings", "get", client.get("/api/v1/screenings"))  # 401

    # Keyless check and ports.
    for imo in (
        demo.GREEN_CLEAN,
        demo.RED_OFAC,
        demo.AMBER_MMSI,
        demo.NOT_ASSESSED,
        demo.INCOMPLETE_IDENTITY,
        "IMO%209300776%20built%202005",
        "nothing",
    ):
        check = client.get(f"/api/v1/vessels/{imo}/check", REMOTE_ADDR="198.51.100.44")
        published.check("/api/v1/vessels/{imo}/check", "get", check)
    # Vessel behaviour (no AIS loaded here: observed false; tests/behaviour checks a loaded world).
    behaviour = "/api/v1/vessels/{imo}/behaviour"
    for imo in (demo.GREEN_CLEAN, "1234567"):
        published.check(behaviour, "get", client.get(f"/api/v1/vessels/{imo}/behaviour", **keyed(raw)))
    for query in ("?query=Rotterdam&limit=3", "?query=NLRTM", "?query=Port%20Said", "?query=zzzzqqq"):
        published.check("/api/v1/ports", "get", client.get(f"/api/v1/ports{query}"))

    # Voyage assessments and batches.
    route = {"route": {"origin": "NLRTM", "destination": "SGSIN", "vessel_type": "container", "dwt_tonnes": 120000}}
    assessment = published.check(
        "/api/v1/voyage-assessments", "post", _post(client, keyed, raw, "/api/v1/voyage-assessments", route)
    )
    published.check(
        "/api/v1/voyage-assessments/{assessment_id}",
        "get",
        client.get(f"/api/v1/voyage-assessments/{assessment['id']}", **keyed(raw)),
    )
    batch_body = {
        "routes": [
            {"route": {"origin": "NLRTM", "destination": "DEHAM"}},
            {"route": {"origin": "ZZZZZ", "destination": "SGSIN"}},
        ],
        "customer_reference": "lane-check",
    }
    batch = published.check(
        "/api/v1/voyage-assessment-batches",
        "post",
        _post(client, keyed, raw, "/api/v1/voyage-assessment-batches", batch_body),
    )
    for item in VoyageBatchItem.objects.filter(batch_id=batch["id"]):
        batches.run_item(item.pk)
    published.check(
        "/api/v1/voyage-assessment-batches/{batch_id}",
        "get",
        client.get(f"/api/v1/voyage-assessment-batches/{batch['id']}", **keyed(raw)),
    )
    published.check(
        "/api/v1/voyage-assessment-batches/{batch_id}/items",
        "get",
        client.get(f"/api/v1/voyage-assessment-batches/{batch['id']}/items", **keyed(raw)),
    )

    # Usage and the access log.
    published.check("/api/v1/usage", "get", client.get("/api/v1/usage", **keyed(raw)))
    published.check("/api/v1/access-log", "get", client.get("/api/v1/access-log?limit=20", **keyed(raw)))

    # Webhook endpoints (live).
    hooks = "/api/v1/webhook-endpoints"
    created = published.check(
        hooks,
        "post",
        _post(
            client, keyed, live, hooks, {"url": "https://receiver.invalid/hooks", "event_types": ["screening.resolved"]}
        ),
    )
    one = f"{hooks}/{created['id']}"
    published.check(hooks, "get", client.get(hooks, **keyed(live)))
    published.check(f"{hooks}/{{endpoint_id}}", "get", client.get(one, **keyed(live)))
    published.check(
        f"{hooks}/{{endpoint_id}}",
        "patch",
        client.patch(one, data={"enabled": False}, content_type="application/json", **keyed(live)),
    )
    rotated = _post(client, keyed, live, f"{one}/rotate-secret", {"overlap_hours": 1})
    published.check(f"{hooks}/{{endpoint_id}}/rotate-secret", "post", rotated)
    sent = published.check(f"{hooks}/{{endpoint_id}}/test", "post", _post(client, keyed, live, f"{one}/test", {}))
    deliveries = "/api/v1/webhook-deliveries"
    published.check(deliveries, "get", client.get(f"{deliveries}?event_type=webhook.test", **keyed(live)))
    delivery = f"{deliveries}/{sent['id']}"
    published.check(f"{deliveries}/{{delivery_id}}", "get", client.get(delivery, **keyed(live)))
    redelivered = _post(client, keyed, live, f"{delivery}/redeliver", {})
    published.check(f"{deliveries}/{{delivery_id}}/redeliver", "post", redelivered)
    published.check(f"{hooks}/{{endpoint_id}}", "delete", client.delete(one, **keyed(live)))  # no key: 400
    published.check(
        f"{hooks}/{{endpoint_id}}", "delete", client.delete(one, HTTP_IDEMPOTENCY_KEY="schema-del", **keyed(live))
    )

    # Vessel monitors (a live one run once, a simulation one fed verdicts).
    from monitoring import runs
    from monitoring.models import VesselMonitorRun
    from monitoring.vessels import KIND

    monitors = "/api/v1/vessel-monitors"
    watched = published.check(monitors, "post", _post(client, keyed, live, monitors, {"imo": demo.GREEN_CLEAN}))
    runs.run(KIND, VesselMonitorRun.objects.get(monitor_id=watched["id"]).pk)
    simulated = published.check(
        monitors, "post", _post(client, keyed, live, monitors, {"imo": demo.GREEN_CLEAN, "mode": "simulation"})
    )
    simulate = f"{monitors}/{simulated['id']}/simulate"
    for status in ("GREEN", "RED"):
        published.check(
            f"{monitors}/{{monitor_id}}/simulate",
            "post",
            _post(client, keyed, live, simulate, {"sanctions_status": status}),
        )
    published.check(monitors, "get", client.get(monitors, **keyed(live)))
    published.check(f"{monitors}/{{monitor_id}}", "get", client.get(f"{monitors}/{watched['id']}", **keyed(live)))
    for monitor_id in (watched["id"], simulated["id"]):
        published.check(
            f"{monitors}/{{monitor_id}}/runs", "get", client.get(f"{monitors}/{monitor_id}/runs", **keyed(live))
        )
    published.check(
        f"{monitors}/{{monitor_id}}",
        "delete",
        client.delete(f"{monitors}/{watched['id']}", HTTP_IDEMPOTENCY_KEY="schema-del-vmo", **keyed(live)),
    )

    # Corridor monitors (live), one run through the same worker body a worker runs.
    from monitoring.corridors import KIND as CORRIDOR_KIND
    from monitoring.models import CorridorMonitorRun

    corridors = "/api/v1/corridor-monitors"
    corridor = published.check(
        corridors, "post", _post(client, keyed, live, corridors, {"route": {"origin": "NLRTM", "destination": "DEHAM"}})
    )
    runs.schedule(CORRIDOR_KIND)  # its first slot is due at once
    runs.run(CORRIDOR_KIND, CorridorMonitorRun.objects.get(monitor_id=corridor["id"]).pk)
    published.check(corridors, "get", client.get(corridors, **keyed(live)))
    published.check(f"{corridors}/{{monitor_id}}", "get", client.get(f"{corridors}/{corridor['id']}", **keyed(live)))
    published.check(
        f"{corridors}/{{monitor_id}}/runs", "get", client.get(f"{corridors}/{corridor['id']}/runs", **keyed(live))
    )
    published.check(
        f"{corridors}/{{monitor_id}}",
        "delete",
        client.delete(f"{corridors}/{corridor['id']}", HTTP_IDEMPOTENCY_KEY="schema-del-cmo", **keyed(live)),
    )

    # Exports (written by the export job's worker body here; the download is a file, not JSON).
    from exports.models import ExportItem
    from exports.production import KIND as EXPORT_KIND
    from jobs import flow

    exports = "/api/v1/exports"
    export = published.check(
        exports, "post", _post(client, keyed, raw, exports, {"resource": "screenings", "format": "csv"})
    )
    flow.run_item(EXPORT_KIND, ExportItem.objects.get(export_id=export["id"]).pk)
    published.check(exports, "get", client.get(exports, **keyed(raw)))
    published.check(f"{exports}/{{export_id}}", "get", client.get(f"{exports}/{export['id']}", **keyed(raw)))
    download = client.get(f"{exports}/{export['id']}/download", **keyed(raw))
    assert download.status_code == 200 and download["Content-Type"].startswith("text/csv")
    published.exercised.add((f"{exports}/{{export_id}}/download", "get"))
    published.check(
        f"{exports}/{{export_id}}",
        "delete",
        client.delete(f"{exports}/{export['id']}", HTTP_IDEMPOTENCY_KEY="schema-del-exp", **keyed(raw)),
    )

    # Cargo screenings: every verdict path, the list with its filters, each record, and the errors.
    _cargo_screenings(client, keyed, published, raw)

    # Fleets and screening batches (the fleet first, so the batch's records are its changes: first verdicts).
    from screening import batches as screening_batches
    from screening import fleet_selectors
    from screening.models import Screening, ScreeningBatchItem

    fresh = issue_key("test", email="schema-fleets@example.com", plan="paid")  # no earlier records of its own
    fleets = "/api/v1/fleets"
    hulls = [demo.RED_OFAC, demo.GREEN_CLEAN, demo.INCOMPLETE_IDENTITY, demo.AMBER_WATCHLIST, demo.GREEN_GRADE_C]
    fleet = published.check(fleets, "post", _post(client, keyed, fresh, fleets, {"name": "Schema", "imos": hulls}))
    published.check(fleets, "post", _post(client, keyed, fresh, fleets, {"name": "Bad", "imos": ["93001"]}))  # 422
    sbt = "/api/v1/screening-batches"
    batch_body = {"items": [{"imo": imo} for imo in hulls[:4]] + [{"imo": "93001"}], "include_vetting": True}
    screening_batch = published.check(sbt, "post", _post(client, keyed, fresh, sbt, batch_body))
    published.check(sbt, "post", _post(client, keyed, fresh, sbt, {"items": [{"imo": "1"}]}))  # 422
    for item in ScreeningBatchItem.objects.filter(batch_id=screening_batch["id"]):
        screening_batches.run_item(item.pk)
    published.check(f"{sbt}/{{batch_id}}", "get", client.get(f"{sbt}/{screening_batch['id']}", **keyed(fresh)))
    for query in ("", "?limit=2"):
        items_page = client.get(f"{sbt}/{screening_batch['id']}/items{query}", **keyed(fresh))
        published.check(f"{sbt}/{{batch_id}}/items", "get", items_page)
    one_fleet = f"{fleets}/{fleet['id']}"
    published.check(fleets, "get", client.get(fleets, **keyed(fresh)))
    published.check(f"{fleets}/{{fleet_id}}", "get", client.get(one_fleet, **keyed(fresh)))
    patch = {"name": "Schema 2", "add_imos": [demo.GREEN_GRADE_B]}
    published.check(
        f"{fleets}/{{fleet_id}}",
        "patch",
        client.patch(
            one_fleet, data=patch, content_type="application/json", HTTP_IDEMPOTENCY_KEY="schema-flt", **keyed(fresh)
        ),
    )
    published.check(f"{fleets}/{{fleet_id}}/exposure", "get", client.get(f"{one_fleet}/exposure", **keyed(fresh)))
    with monkeypatch.context() as patched:
        patched.setattr(fleet_selectors, "CHANGES_SETTLE_SECONDS", -1)  # the records just issued count
        changes = published.check(
            f"{fleets}/{{fleet_id}}/changes", "get", client.get(f"{one_fleet}/changes", **keyed(fresh))
        )
    assert len(changes["changes"]) == 3  # RED, GREEN and AMBER; the INCOMPLETE moves nothing
    published.check(
        f"{fleets}/{{fleet_id}}",
        "delete",
        client.delete(one_fleet, HTTP_IDEMPOTENCY_KEY="schema-del-flt", **keyed(fresh)),
    )
    evidence_path = "/api/v1/screenings/{screening_id}/evidence"
    record_id = Screening.objects.filter(account__email="schema-fleets@example.com").values_list("id", flat=True)[0]
    published.check(evidence_path, "get", client.get(f"/api/v1/screenings/{record_id}/evidence", **keyed(fresh)))
    mdc = "/api/v1/match-decisions"
    decision_body = {
        "imo": demo.AMBER_NAME_ONLY, "source": "ofac_sdn", "source_record_id": "990002", "outcome": "cleared",
        "reason": "Different hull", "reviewer": "schema",
    }  # fmt: skip
    decision = published.check(mdc, "post", _post(client, keyed, fresh, mdc, decision_body))
    published.check(mdc, "post", _post(client, keyed, fresh, mdc, {**decision_body, "imo": demo.GREEN_CLEAN}))  # 422
    published.check(mdc, "get", client.get(f"{mdc}?active=true", **keyed(fresh)))
    published.check(f"{mdc}/{{decision_id}}", "get", client.get(f"{mdc}/{decision['id']}", **keyed(fresh)))
    revoke = f"{mdc}/{decision['id']}/revoke"
    published.check(f"{mdc}/{{decision_id}}/revoke", "post", _post(client, keyed, fresh, revoke, {"reviewer": "lead"}))
    published.check(f"{mdc}/{{decision_id}}/revoke", "post", _post(client, keyed, fresh, revoke, {"reviewer": "lead"}))

    assert not published.failures, "responses the published schema rejects:\n" + "\n".join(published.failures)
    operations = {
        (path, method)
        for path, ops in published.document["paths"].items()
        for method in ops
        if method in {"get", "post", "put", "patch", "delete"}
    }
    assert operations <= published.exercised, f"published operations not exercised: {operations - published.exercised}"


def test_the_vetting_factor_names_are_exactly_those_responses_carry(demo_world, client, keyed, issue_key, published):
    raw = issue_key("test")
    body = _post(client, keyed, raw, "/api/v1/screenings", {"imo": demo.GREEN_CLEAN}).json()
    sent = [factor["name"] for factor in body["vetting"]["factors"]]
    schema = published.document["components"]["schemas"]["VettingFactorSchema"]["properties"]["name"]
    ref = schema.get("$ref") or schema["allOf"][0]["$ref"]
    enum = published.document["components"]["schemas"][ref.rsplit("/", 1)[-1]]["enum"]
    assert sorted(enum) == sorted(sent)


def _cargo_screenings(client, keyed, published: Published, raw: str) -> None:  # type: ignore[no-untyped-def]
    """POST (each verdict and every optional block), GET list (filters, paging), GET by id, and errors."""
    cargo = "/api/v1/cargo-screenings"
    clean = {
        "commodity": {"hs_code": "8471", "description": "Laptop computers"},
        "origin_country": "NL",
        "destination_country": "SG",
        "parties": [{"name": "Demo Fjord Exporters AS", "role": "shipper"}],
    }
    bodies = [
        {**clean, "load_port": "NLRTM", "discharge_port": "SGSIN", "vessel": {"imo": demo.GREEN_CLEAN}},
        {**clean, "customer_reference": "PO-7", "parties": [{"name": "DEMO ORION TRADERS LLC", "role": "consignee"}]},
        {
            **clean,
            "parties": [{"name": "DEMO ORION TRADER", "role": "notify_party"}],
            "vessel": {"imo": demo.AMBER_MMSI},
        },
        {**clean, "vessel": {"imo": demo.RED_OFAC}},
        {**clean, "commodity": {"hs_code": "93", "description": "Arms"}, "destination_country": "LY"},
        {**clean, "destination_country": "UA", "discharge_port": "UASVP", "load_port": None},
        {**clean, "vessel": {"imo": demo.INCOMPLETE_IDENTITY}},
    ]
    created = [published.check(cargo, "post", _post(client, keyed, raw, cargo, body)) for body in bodies]
    assert {record.get("status") for record in created} == {"GREEN", "AMBER", "RED", "INCOMPLETE"}
    for query in ("", "?limit=2", "?status=RED", "?hs_chapter=93&created_after=2000-01-01T00:00:00Z"):
        published.check(cargo, "get", client.get(f"{cargo}{query}", **keyed(raw)))
    for record in created:
        published.check(f"{cargo}/{{cargo_screening_id}}", "get", client.get(f"{cargo}/{record['id']}", **keyed(raw)))
    published.check(f"{cargo}/{{cargo_screening_id}}", "get", client.get(f"{cargo}/cgs_unknown", **keyed(raw)))
    published.check(cargo, "post", _post(client, keyed, raw, cargo, {**clean, "origin_country": "XX"}))  # 422
    published.check(cargo, "get", client.get(f"{cargo}?status=BLUE", **keyed(raw)))  # 422
    published.check(cargo, "get", client.get(cargo))  # 401
