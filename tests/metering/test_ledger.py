"""The metering entries are the ledger of every allowance (issue 25 item 4).

Every charge, batch reservation, settlement and refund is an entry (MeteringEvent) with signed units,
a reason and the allowance period it draws on, so for every (account, environment, kind, period)
the entries sum to QuotaCounter.used: after REST screenings, INCOMPLETEs and the service's own
re-screens, screening batches with verdicts, INCOMPLETE (refunded), failed, attempts-exhausted and
deadline items, cargo screenings (hull unit, top-up, refund, no hull), voyage assessments and voyage
batches. /usage reads the same counters, and the pace rules count one entry per screening record the
customer caused.
"""

from __future__ import annotations

import dataclasses
import importlib
import itertools
from datetime import UTC, date, datetime, timedelta
from types import SimpleNamespace
from unittest import mock

import pytest
from django.apps import apps as global_apps
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.db.models import Sum
from django.utils import timezone

from accounts.models import Account
from cargo import services as cargo_services
from cargo.models import CargoScreening
from core.api.errors import ApiError
from jobs import flow
from metering import quota
from metering.models import MeteringEvent, QuotaCounter
from monitoring import runs, vessels
from monitoring.models import RunStatus, VesselMonitorRun
from screening import batches, datastate, demo, services
from screening.ingest import load_snapshot
from screening.models import FollowUp, Screening, ScreeningBatchItem
from screening.records import ParsedSnapshot, RegisterRecord
from screening.verdict import Verdict
from tests.cargo.conftest import cargo_body
from voyages import batches as voyage_batches
from voyages.models import VoyageAssessment, VoyageBatchItem

pytestmark = pytest.mark.django_db

EMAIL = "ledger@example.com"
_keys = itertools.count()


# --- reading the ledger ----------------------------------------------------------------------


def entry_units(*group: str) -> dict[tuple, int]:
    rows = MeteringEvent.objects.values(*group).annotate(units=Sum("units")).order_by()
    return {tuple(row[name] for name in group): row["units"] for row in rows}


def counter_units(*group: str) -> dict[tuple, int]:
    rows = QuotaCounter.objects.values(*group).annotate(units=Sum("used")).order_by()
    return {tuple(row[name] for name in group): row["units"] for row in rows}


def gaps(*group: str) -> dict[tuple, tuple[int, int]]:
    """(counter used, entry units) wherever they differ."""
    entries, counters = entry_units(*group), counter_units(*group)
    return {
        key: (counters.get(key, 0), entries.get(key, 0))
        for key in set(entries) | set(counters)
        if counters.get(key, 0) != entries.get(key, 0)
    }


def assert_balanced() -> None:
    """Invariant (a): per (account, environment, kind) and then per allowance period."""
    by_kind = gaps("account_id", "environment", "kind")
    total_entries, total_used = sum(entry_units("kind").values()), sum(counter_units("kind").values())
    assert not by_kind, f"entry units {total_entries} vs counted units {total_used}: (used, entries) {by_kind}"
    by_period = gaps("account_id", "environment", "kind", "period")
    assert not by_period, f"(used, entries) per period: {by_period}"


def counted_screenings() -> int:
    return MeteringEvent.objects.filter(kind=quota.KIND_SCREENING, reason=quota.Reason.CHARGE).count()


def customer_screening_records() -> int:
    """Every screening record the customer caused: hulls (any door but the service's own re-screen) and
    cargo screenings without a hull (a cargo screening with one is counted through its hull)."""
    hulls = Screening.objects.exclude(origin=services.ORIGIN_RESOLUTION).count()
    return hulls + CargoScreening.objects.filter(vessel_screening__isnull=True).count()


# --- doors -----------------------------------------------------------------------------------


@pytest.fixture
def world():
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    datastate.invalidate()
    yield
    datastate.invalidate()


@pytest.fixture
def keys(issue_key):
    return {env: issue_key(env, email=EMAIL, plan="paid") for env in ("test", "live")}


@pytest.fixture
def account(keys):
    return Account.objects.get(email=EMAIL)


@pytest.fixture
def post(client, keyed):
    def send(raw_key: str, path: str, body: dict):  # type: ignore[no-untyped-def]
        return client.post(
            path, data=body, content_type="application/json", HTTP_IDEMPOTENCY_KEY=f"ledger-{next(_keys)}",
            **keyed(raw_key),
        )  # fmt: skip

    return send


def _items(batch_id: str) -> dict[str, ScreeningBatchItem]:
    return {item.imo or f"#{item.position}": item for item in ScreeningBatchItem.objects.filter(batch_id=batch_id)}


def _name_the_hull() -> None:
    """A register names the INCOMPLETE_IDENTITY hull: its next re-screen reaches a verdict."""
    load_snapshot(
        ParsedSnapshot(
            "ais_registry", records=[RegisterRecord("ais_registry", demo.INCOMPLETE_IDENTITY, "DEMO LATE ARRIVAL")]
        ),
        data_checksum="ledger-late",
    )
    datastate.invalidate()


def _failing_engine(failing_imo: str):  # type: ignore[no-untyped-def]
    real = batches.engine.screen_hull

    def screen_hull(imo, **kwargs):  # type: ignore[no-untyped-def]
        if imo == failing_imo:
            raise ApiError(503, "service_unavailable", "the register did not answer")
        return real(imo, **kwargs)

    return screen_hull


def test_every_door_keeps_the_entries_summing_to_the_counter(world, keys, account, post, client, keyed):
    test, live = keys["test"], keys["live"]

    # REST: a verdict, an INCOMPLETE (enrolled for re-screening), a bad check digit; one live verdict.
    for imo in (demo.GREEN_CLEAN, demo.INCOMPLETE_IDENTITY, demo.BAD_CHECK_DIGIT):
        assert post(test, "/api/v1/screenings", {"imo": imo}).status_code == 201
    assert post(live, "/api/v1/screenings", {"imo": demo.RED_OFAC}).status_code == 201

    # A screening batch: verdicts, INCOMPLETEs (refunded), a rejected hull, an item that fails, one
    # lost on every attempt (attempts_exhausted); a second batch ends past its deadline.
    hull_list = [demo.GREEN_CLEAN, demo.RED_OFAC, demo.INCOMPLETE_IDENTITY, demo.CONTESTED, demo.BAD_CHECK_DIGIT,
                 demo.AMBER_NAME_ONLY, demo.AMBER_WATCHLIST]  # fmt: skip
    created = post(test, "/api/v1/screening-batches", {"items": [{"imo": imo} for imo in hull_list] + [{"imo": "93"}]})
    assert created.status_code == 202
    items = _items(created.json()["id"])
    for imo in hull_list[:5]:
        assert batches.run_item(items[imo].pk) == flow.RUN_SUCCEEDED
    with mock.patch.object(batches.engine, "screen_hull", _failing_engine(demo.AMBER_NAME_ONLY)):
        assert batches.run_item(items[demo.AMBER_NAME_ONLY].pk) == flow.RUN_FAILED
    now = timezone.now()
    for _ in range(settings.SCREENING_BATCH_ITEM_MAX_ATTEMPTS):
        assert batches.claim_item(items[demo.AMBER_WATCHLIST].pk, now) is not None
        now += timedelta(seconds=settings.SCREENING_BATCH_ITEM_LEASE_SECONDS + 1)
        batches.sweep(now)
    late = post(
        test, "/api/v1/screening-batches", {"items": [{"imo": demo.GREEN_GRADE_B}, {"imo": demo.GREEN_GRADE_C}]}
    )
    late_items = _items(late.json()["id"])
    batches.run_item(late_items[demo.GREEN_GRADE_B].pk)
    batches.sweep(timezone.now() + timedelta(seconds=settings.SCREENING_BATCH_DEADLINE_SECONDS + 1))
    statuses = {
        imo: (item.status, (item.error or {}).get("code")) for imo, item in _items(created.json()["id"]).items()
    }
    assert statuses[demo.AMBER_NAME_ONLY] == ("failed", "service_unavailable")
    assert statuses[demo.AMBER_WATCHLIST] == ("failed", flow.ERROR_ATTEMPTS_EXHAUSTED)
    assert _items(late.json()["id"])[demo.GREEN_GRADE_C].error["code"] == flow.ERROR_DEADLINE_EXCEEDED
    live_batch = post(
        live, "/api/v1/screening-batches", {"items": [{"imo": demo.GREEN_CLEAN}, {"imo": demo.CONTESTED}]}
    )
    for item in _items(live_batch.json()["id"]).values():
        batches.run_item(item.pk)

    # A vessel monitor's run (live): a screening the customer caused through the monitor.
    monitor = post(live, "/api/v1/vessel-monitors", {"imo": demo.GREEN_GRADE_E})
    assert monitor.status_code == 201, monitor.content
    run = VesselMonitorRun.objects.get(monitor_id=monitor.json()["id"], status=RunStatus.QUEUED)
    assert runs.run(vessels.KIND, run.pk) == runs.RAN

    # Cargo: the hull's unit; an INCOMPLETE hull topped up by a RED party; no hull; the hull's unit
    # given back when the cargo itself ends INCOMPLETE.
    red_party = [{"name": "DEMO KORYO SHIPPING COMPANY", "role": "charterer"}]
    cargo = [
        cargo_body(vessel={"imo": demo.GREEN_CLEAN}),
        cargo_body(parties=red_party, vessel={"imo": demo.INCOMPLETE_IDENTITY}),
        cargo_body(),
    ]
    charged = [post(test, "/api/v1/cargo-screenings", body).json()["unit_charged"] for body in cargo]
    assert charged == [True, True, True]
    real_assess = cargo_services.cargo_engine.assess

    def incomplete_cargo(request, **kwargs):  # type: ignore[no-untyped-def]
        return dataclasses.replace(real_assess(request, **kwargs), status=Verdict.INCOMPLETE)

    with mock.patch.object(cargo_services.cargo_engine, "assess", incomplete_cargo):
        refunded = post(test, "/api/v1/cargo-screenings", cargo_body(vessel={"imo": demo.GREEN_GRADE_D})).json()
    assert refunded["unit_charged"] is False and refunded["vessel"]["status"] == "GREEN"

    # The service's own re-screens: one still INCOMPLETE (free), then one that resolves (charged).
    follow_up = FollowUp.objects.get(
        account=account, environment="test", imo=demo.INCOMPLETE_IDENTITY, status="pending"
    )
    assert services.attempt_follow_up(follow_up) == "pending"
    _name_the_hull()
    assert services.attempt_follow_up(FollowUp.objects.get(pk=follow_up.pk)) == "resolved"

    # Voyage assessments, and a voyage batch with a rejected route and one ended by the deadline.
    route = {"route": {"origin": "NLRTM", "destination": "SGSIN"}}
    assert post(test, "/api/v1/voyage-assessments", route).status_code == 201
    routes = [route, {"route": {"origin": "NLRTM", "destination": "DEHAM"}},
              {"route": {"origin": "ZZZZZ", "destination": "SGSIN"}}]  # fmt: skip
    voyage = post(test, "/api/v1/voyage-assessment-batches", {"routes": routes})
    assert voyage.status_code == 202
    first, _second = VoyageBatchItem.objects.filter(batch_id=voyage.json()["id"], status="queued").order_by("position")
    assert voyage_batches.run_item(first.pk) == flow.RUN_SUCCEEDED
    voyage_batches.sweep(timezone.now() + timedelta(seconds=settings.VOYAGE_BATCH_DEADLINE_SECONDS + 1))

    # (a) the ledger balances, and the counters are the records charged.
    assert_balanced()
    screening_units = (
        Screening.objects.filter(unit_charged=True).exclude(origin="cargo").count()
        + CargoScreening.objects.filter(unit_charged=True).count()
    )
    assert counter_units("kind")[(quota.KIND_SCREENING,)] == screening_units
    assert counter_units("kind")[(quota.KIND_ASSESSMENT,)] == VoyageAssessment.objects.count()
    # /usage reads the counters the entries sum to.
    for environment, raw in keys.items():
        usage = client.get("/api/v1/usage", **keyed(raw)).json()["quota"]
        for kind, name in ((quota.KIND_SCREENING, "screenings"), (quota.KIND_ASSESSMENT, "voyage_assessments")):
            period = quota.allowance_for(account, environment, kind).period
            entries = entry_units("environment", "kind", "period").get((environment, kind, period), 0)
            assert usage[name]["used"] == entries == quota.current_state(account, environment, kind).used
    # (b) one counted entry per screening record the customer caused.
    assert counted_screenings() == customer_screening_records()
    reasons = set(MeteringEvent.objects.values_list("reason", flat=True))
    assert reasons == set(quota.Reason.values) - {quota.Reason.ADJUSTMENT}


def test_a_batch_settled_in_the_month_after_its_reservation_balances_both_months(world, keys, account, post):
    """The reserved units go back to the month they were drawn on; each verdict is charged when it runs."""
    this_month = timezone.now().astimezone(UTC).replace(day=1, hour=12, minute=0, second=0, microsecond=0)
    last_month = this_month - timedelta(days=3)
    with mock.patch("django.utils.timezone.now", return_value=last_month):
        created = post(keys["test"], "/api/v1/screening-batches",
                       {"items": [{"imo": demo.GREEN_CLEAN}, {"imo": demo.CONTESTED}, {"imo": demo.RED_OFAC}]})  # fmt: skip
    assert created.status_code == 202
    items = _items(created.json()["id"])
    batches.run_item(items[demo.GREEN_CLEAN].pk)
    batches.run_item(items[demo.CONTESTED].pk)
    batches.sweep(timezone.now() + timedelta(seconds=settings.SCREENING_BATCH_DEADLINE_SECONDS + 1))

    assert_balanced()
    used = counter_units("environment", "kind", "period")
    assert used[("test", quota.KIND_SCREENING, last_month.strftime("%Y-%m"))] == 0
    assert used[("test", quota.KIND_SCREENING, this_month.strftime("%Y-%m"))] == 1


def test_an_operator_correction_of_a_counter_is_an_entry(world, keys, account, post, admin_client):
    post(keys["test"], "/api/v1/screenings", {"imo": demo.GREEN_CLEAN})
    counter = QuotaCounter.objects.get(account=account, environment="test", kind=quota.KIND_SCREENING)
    url = f"/admin/metering/quotacounter/{counter.pk}/change/"
    page = admin_client.get(url)
    assert page.status_code == 200
    response = admin_client.post(url, {"used": 0})
    assert response.status_code == 302, response.content[:2000]
    assert QuotaCounter.objects.get(pk=counter.pk).used == 0
    assert MeteringEvent.objects.filter(reason=quota.Reason.ADJUSTMENT).values_list("units", flat=True).get() == -1
    assert_balanced()


# --- the migration's backfill ----------------------------------------------------------------


def test_the_backfill_names_reservations_dates_periods_and_opens_each_balance(db):
    ledger_migration = importlib.import_module("metering.migrations.0002_ledger_entries")
    monthly = Account.objects.create(email="old@example.com", opened_on=date(2026, 9, 1))
    once = Account.objects.create(email="new@example.com", opened_on=date(2026, 11, 1))
    at = datetime(2026, 10, 20, 8, 0, tzinfo=UTC)
    legacy = [  # what the old code wrote: no reason (the default), no period, no refund
        (monthly, "live", "screening", "9300116", 1),
        (monthly, "live", "screening", "", 50),  # a batch reservation
        (monthly, "live", "screening", "9301342", 0),  # an INCOMPLETE
        (monthly, "test", "assessment", "", 3),  # a voyage batch reservation
        (monthly, "test", "assessment", "", 0),  # its routes
        (monthly, "test", "assessment", "", 1),  # an assessment
        (once, "live", "screening", "9300776", 1),
        (once, "test", "screening", "9300776", 1),
    ]
    MeteringEvent.objects.bulk_create(
        MeteringEvent(account=a, environment=e, kind=k, imo=i, units=u, at=at, period="") for a, e, k, i, u in legacy
    )
    QuotaCounter.objects.bulk_create([
        QuotaCounter(account=monthly, environment="live", kind="screening", period="2026-10", used=31),  # 20 refunded
        QuotaCounter(account=monthly, environment="test", kind="assessment", period="2026-10", used=4),
        QuotaCounter(account=once, environment="live", kind="screening", period="once", used=1),
        QuotaCounter(account=once, environment="test", kind="screening", period="2026-10", used=1),
    ])  # fmt: skip

    ledger_migration.backfill(global_apps, SimpleNamespace(connection=connection))  # what RunPython hands it

    rows = {
        (e.account_id, e.environment, e.kind, e.imo, e.units): (e.reason, e.period) for e in MeteringEvent.objects.all()
    }
    assert rows[(monthly.pk, "live", "screening", "", 50)] == ("reservation", "2026-10")
    assert rows[(monthly.pk, "live", "screening", "9301342", 0)] == ("charge", "2026-10")
    assert rows[(monthly.pk, "test", "assessment", "", 3)] == ("reservation", "2026-10")
    assert rows[(monthly.pk, "test", "assessment", "", 0)] == ("settlement", "2026-10")
    assert rows[(once.pk, "live", "screening", "9300776", 1)] == ("charge", "once")
    assert rows[(once.pk, "test", "screening", "9300776", 1)] == ("charge", "2026-10")
    assert rows[(monthly.pk, "live", "screening", "", -20)] == ("adjustment", "2026-10")
    assert MeteringEvent.objects.filter(reason="adjustment").count() == 1
    assert_balanced()
