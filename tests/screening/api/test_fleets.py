"""Fleets: create, list, get, update, delete; exposure from the records held; changes since a cursor."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta
from types import SimpleNamespace

import pytest
from django.utils import timezone
from ulid import ULID

from accounts.models import Account
from accounts.services import issue_key as issue_account_key
from core.api.pagination import decode_cursor
from core.api.responses import to_json_bytes
from screening import demo, fleet_selectors
from screening.fleet_services import FLEET_MAX_HULLS
from screening.imo import imo_check_digit_valid
from screening.models import Fleet, FleetMember, Screening

pytestmark = pytest.mark.django_db

FLEETS = "/api/v1/fleets"
_keys = itertools.count()


def valid_imo(n: int) -> str:
    """The n-th 7-digit number (from 9400000) whose check digit holds."""
    base = f"{940000 + n:06d}"
    return next(base + d for d in "0123456789" if imo_check_digit_valid(base + d))


@pytest.fixture
def key(issue_key):
    return issue_key("test", email="fleets@example.com", plan="paid")


@pytest.fixture
def account(key):
    return Account.objects.get(email="fleets@example.com")


@pytest.fixture
def send(client, keyed):
    def call(raw_key: str, method: str, path: str, body=None, idempotency_key: str | None = None):  # type: ignore[no-untyped-def]
        return getattr(client, method)(
            path,
            data=body if body is not None else {},
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=idempotency_key or f"flt-{next(_keys)}",
            **keyed(raw_key),
        )

    return call


@pytest.fixture
def new_fleet(key, send):
    def make(imos: list[str], name: str = "Tankers") -> dict:
        response = send(key, "post", FLEETS, {"name": name, "imos": imos})
        assert response.status_code == 201, response.json()
        return response.json()

    return make


def record(
    account: Account,
    imo: str,
    status: str,
    grade: str | None = None,
    opacity: str | None = None,
    *,
    at: datetime,
    environment: str = "test",
) -> Screening:
    """A stored record saying `status`, `grade`, `opacity`, issued at `at` (its id sorts by `at`)."""
    record_id = f"scr_{str(ULID.from_datetime(at)).lower()}"
    document = {
        "id": record_id,
        "imo": imo,
        "vessel_name": f"HULL {imo}",
        "sanctions": {"status": status, "coverage_complete": True},
        "ownership": {"opacity": opacity},
        "vetting": {"grade": grade},
    }
    return Screening.objects.create(
        id=record_id,
        account=account,
        environment=environment,
        imo=imo,
        status=status,
        unit_charged=status != "INCOMPLETE",
        document=to_json_bytes(document),
        screened_at=at,
        expires_at=at + timedelta(days=30),
    )


def fields(response) -> list[str]:  # type: ignore[no-untyped-def]
    return [v["field"] for v in response.json()["field_violations"]]


# --- create, read, update, delete ------------------------------------------------------------


def test_a_fleet_is_created_with_its_hulls_sorted_and_a_retry_replays_it(key, send):
    body = {"name": "Q4 tankers", "imos": [demo.RED_OFAC, "IMO9300776", "imo 9300221"]}
    first = send(key, "post", FLEETS, body, "same")
    again = send(key, "post", FLEETS, body, "same")

    assert first.status_code == again.status_code == 201 and again.content == first.content
    fleet = first.json()
    assert fleet["id"].startswith("flt_") and fleet["name"] == "Q4 tankers" and fleet["hull_count"] == 3
    assert fleet["imos"] == [demo.RED_OFAC, demo.RED_UN_1718, demo.GREEN_CLEAN]
    assert fleet["exposure_url"] == f"{FLEETS}/{fleet['id']}/exposure"
    assert Fleet.objects.count() == 1 and FleetMember.objects.count() == 3


def test_a_fleet_with_duplicate_or_invalid_imos_is_422_saying_which_by_index(key, send):
    imos = [
        demo.GREEN_CLEAN,
        "93001",
        demo.BAD_CHECK_DIGIT,
        "IMO9300776",
        9300116,
        demo.GREEN_CLEAN + "5",
        demo.RED_OFAC,
    ]
    response = send(key, "post", FLEETS, {"name": "Mixed", "imos": imos})

    assert response.status_code == 422 and response.json()["code"] == "validation_failed"
    violations = {v["field"]: v["message"] for v in response.json()["field_violations"]}
    assert list(violations) == ["imos[1]", "imos[2]", "imos[3]", "imos[4]", "imos[5]"]
    assert f"IMO {demo.BAD_CHECK_DIGIT} fails its check digit" in violations["imos[2]"]
    assert "repeats imos[0]" in violations["imos[3]"]
    assert "JSON string" in violations["imos[4]"]
    assert "8 digits" in violations["imos[5]"]  # no appended-digit correction on fleets
    assert all("POST /api/v1/fleets" in message for message in violations.values())
    assert not Fleet.objects.exists()


def test_a_fleet_over_the_cap_or_without_a_name_is_422(key, send):
    too_many = [valid_imo(n) for n in range(FLEET_MAX_HULLS + 1)]
    over = send(key, "post", FLEETS, {"name": "All", "imos": too_many})
    assert over.status_code == 422 and fields(over) == ["imos"]
    assert f"at most {FLEET_MAX_HULLS}" in over.json()["field_violations"][0]["message"]
    assert fields(send(key, "post", FLEETS, {"imos": [demo.GREEN_CLEAN]})) == ["name"]
    assert fields(send(key, "post", FLEETS, {"name": " ", "imos": []})) == ["name"]
    assert fields(send(key, "post", FLEETS, {"name": "x", "imos": demo.GREEN_CLEAN})) == ["imos"]
    assert not Fleet.objects.exists()


def test_many_refused_imos_list_the_first_hundred_and_count_them_all(key, send):
    response = send(key, "post", FLEETS, {"name": "Bad", "imos": ["1"] * 150})
    assert len(response.json()["field_violations"]) == 100
    assert response.json()["message"].startswith("150 IMOs are refused")


def test_a_fleet_holds_the_cap_exactly(key, send):
    response = send(key, "post", FLEETS, {"name": "Big", "imos": [valid_imo(n) for n in range(FLEET_MAX_HULLS)]})
    assert response.status_code == 201 and response.json()["hull_count"] == FLEET_MAX_HULLS


def test_fleets_are_listed_newest_first_without_their_imos_and_read_one_by_one(key, new_fleet, client, keyed):
    older = new_fleet([demo.GREEN_CLEAN], name="Older")
    newer = new_fleet([demo.RED_OFAC, demo.GREEN_CLEAN], name="Newer")

    listing = client.get(FLEETS, **keyed(key)).json()
    assert [f["id"] for f in listing["fleets"]] == [newer["id"], older["id"]] and listing["next_cursor"] is None
    assert all("imos" not in f for f in listing["fleets"])
    page = client.get(f"{FLEETS}?limit=1", **keyed(key)).json()
    assert [f["id"] for f in page["fleets"]] == [newer["id"]] and page["next_cursor"]
    detail = client.get(f"{FLEETS}/{newer['id']}", **keyed(key)).json()
    assert detail == newer


def test_patch_renames_and_adds_and_removes_hulls_as_set_operations(key, new_fleet, send):
    fleet = new_fleet([demo.GREEN_CLEAN, demo.RED_OFAC])
    path = f"{FLEETS}/{fleet['id']}"

    changed = send(
        key, "patch", path, {"add_imos": [demo.AMBER_MMSI, demo.GREEN_CLEAN], "remove_imos": [demo.RED_OFAC]}
    )
    assert changed.status_code == 200
    assert changed.json()["imos"] == [demo.AMBER_MMSI, demo.GREEN_CLEAN] and changed.json()["hull_count"] == 2
    assert changed.json()["name"] == "Tankers"

    renamed = send(key, "patch", path, {"name": "Bulkers", "remove_imos": [demo.RED_UN_1718]}).json()
    assert renamed["name"] == "Bulkers" and renamed["hull_count"] == 2  # removing a non-member changes nothing
    assert Fleet.objects.get().name == "Bulkers"


def test_patch_with_imos_replaces_the_whole_list(key, new_fleet, send):
    fleet = new_fleet([demo.GREEN_CLEAN, demo.RED_OFAC])
    replaced = send(key, "patch", f"{FLEETS}/{fleet['id']}", {"imos": [demo.RED_UN_1718]}).json()
    assert replaced["imos"] == [demo.RED_UN_1718] and replaced["hull_count"] == 1
    assert list(FleetMember.objects.values_list("imo", flat=True)) == [demo.RED_UN_1718]


def test_a_patch_that_cannot_apply_is_422_and_changes_nothing(key, new_fleet, send):
    fleet = new_fleet([demo.GREEN_CLEAN])
    path = f"{FLEETS}/{fleet['id']}"

    assert fields(send(key, "patch", path, {})) == ["body"]
    assert fields(send(key, "patch", path, {"imos": [demo.RED_OFAC], "add_imos": [demo.RED_UN_1718]})) == ["imos"]
    both = send(key, "patch", path, {"add_imos": [demo.RED_OFAC], "remove_imos": [demo.GREEN_CLEAN, demo.RED_OFAC]})
    assert fields(both) == ["remove_imos[1]"]
    assert fields(send(key, "patch", path, {"add_imos": ["IMO 9300116", "930011"]})) == ["add_imos[1]"]
    over = [valid_imo(n) for n in range(FLEET_MAX_HULLS)]
    assert fields(send(key, "patch", path, {"add_imos": over})) == ["add_imos"]
    assert list(FleetMember.objects.values_list("imo", flat=True)) == [demo.GREEN_CLEAN]


def test_delete_removes_the_fleet_but_not_the_records_of_its_hulls(key, account, new_fleet, send, client, keyed):
    fleet = new_fleet([demo.GREEN_CLEAN])
    record(account, demo.GREEN_CLEAN, "GREEN", "A", "LOW", at=timezone.now())
    path = f"{FLEETS}/{fleet['id']}"

    deleted = send(key, "delete", path)
    assert deleted.status_code == 200 and deleted.json() == {"id": fleet["id"], "deleted": True}
    assert client.get(path, **keyed(key)).status_code == 404
    assert not FleetMember.objects.exists() and Screening.objects.count() == 1


def test_another_accounts_or_environments_fleet_is_404_everywhere_and_absent_from_lists(
    key, issue_key, new_fleet, send, client, keyed
):
    fleet = new_fleet([demo.GREEN_CLEAN])
    path = f"{FLEETS}/{fleet['id']}"
    for raw in (issue_key("test", email="other@example.com"), issue_key("live", email="fleets@example.com")):
        for response in (
            client.get(path, **keyed(raw)),
            client.get(f"{path}/exposure", **keyed(raw)),
            client.get(f"{path}/changes", **keyed(raw)),
            send(raw, "patch", path, {"name": "Mine now"}),
            send(raw, "delete", path),
        ):
            assert response.status_code == 404 and response.json()["code"] == "not_found"
        assert client.get(FLEETS, **keyed(raw)).json()["fleets"] == []
    assert Fleet.objects.get().name == "Tankers"


# --- exposure --------------------------------------------------------------------------------


def test_exposure_reads_each_hulls_latest_record_worst_first_with_distributions_and_coverage(
    key, account, issue_key, new_fleet, client, keyed
):
    imos = [valid_imo(n) for n in range(9)]
    fleet = new_fleet(imos)
    t = timezone.now() - timedelta(days=1)
    record(account, imos[0], "RED", "E", "HIGH", at=t)
    record(account, imos[0], "GREEN", "A", "LOW", at=t + timedelta(hours=1))  # the latest counts
    record(account, imos[1], "RED", "E", "MEDIUM", at=t)
    record(account, imos[2], "AMBER", "D", "HIGH", at=t)
    record(account, imos[3], "INCOMPLETE", at=t)
    record(account, imos[4], "GREEN", "C", "MEDIUM", at=t)
    record(account, imos[5], "GREEN", None, None, at=t - timedelta(days=40))  # expired, not assessed
    record(account, imos[6], "GREEN", "E", "LOW", at=t)
    issue_key("test", email="other@example.com")
    other = Account.objects.get(email="other@example.com")
    record(other, imos[7], "RED", "E", "HIGH", at=t)  # another account's record: not this fleet's exposure
    record(account, imos[8], "RED", "E", "HIGH", at=t, environment="live")  # another environment's
    before = Screening.objects.count()

    exposure = client.get(f"{FLEETS}/{fleet['id']}/exposure", **keyed(key)).json()

    assert Screening.objects.count() == before  # nothing is screened
    order = [(h["imo"], h["sanctions_status"], h["vetting_grade"]) for h in exposure["hulls"]]
    assert order == [
        (imos[1], "RED", "E"),
        (imos[2], "AMBER", "D"),
        (imos[3], "INCOMPLETE", None),
        (imos[6], "GREEN", "E"),
        (imos[4], "GREEN", "C"),
        (imos[0], "GREEN", "A"),
        (imos[5], "GREEN", None),
    ]
    assert exposure["distributions"] == {
        "sanctions_status": {"RED": 1, "AMBER": 1, "INCOMPLETE": 1, "GREEN": 4},
        "vetting_grade": {"A": 1, "B": 0, "C": 1, "D": 1, "E": 2, "not_assessed": 2},
        "ownership_opacity": {"LOW": 2, "MEDIUM": 2, "HIGH": 1, "not_assessed": 2},
    }
    assert exposure["coverage"] == {
        "screened": 7,
        "never_screened": {"count": 2, "imos": sorted([imos[7], imos[8]])},
        "incomplete": {"count": 1, "imos": [imos[3]]},
        "expired": {"count": 1, "imos": [imos[5]]},
    }
    assert exposure["hull_count"] == 9 and exposure["fleet_id"] == fleet["id"]
    top = exposure["hulls"][0]
    assert top["vessel_name"] == f"HULL {imos[1]}" and top["ownership_opacity"] == "MEDIUM"
    assert top["screening_id"].startswith("scr_") and top["expired"] is False

    limited = client.get(f"{FLEETS}/{fleet['id']}/exposure?limit=2", **keyed(key)).json()
    assert [h["imo"] for h in limited["hulls"]] == [imos[1], imos[2]]
    assert limited["distributions"] == exposure["distributions"]
    assert client.get(f"{FLEETS}/{fleet['id']}/exposure?limit=5001", **keyed(key)).status_code == 422


def test_exposure_of_a_fleet_never_screened_counts_every_hull_as_never_screened(key, new_fleet, client, keyed):
    fleet = new_fleet([demo.GREEN_CLEAN, demo.RED_OFAC])
    exposure = client.get(f"{FLEETS}/{fleet['id']}/exposure", **keyed(key)).json()
    assert exposure["hulls"] == [] and exposure["coverage"]["screened"] == 0
    assert exposure["coverage"]["never_screened"] == {"count": 2, "imos": [demo.RED_OFAC, demo.GREEN_CLEAN]}


def test_exposure_reflects_records_the_screening_api_issued(demo_world, key, new_fleet, screen, client, keyed):
    fleet = new_fleet([demo.RED_OFAC, demo.GREEN_CLEAN, demo.AMBER_WATCHLIST, demo.INCOMPLETE_IDENTITY])
    for imo in (demo.GREEN_CLEAN, demo.RED_OFAC, demo.AMBER_WATCHLIST, demo.INCOMPLETE_IDENTITY):
        assert screen(key, imo).status_code == 201

    exposure = client.get(f"{FLEETS}/{fleet['id']}/exposure", **keyed(key)).json()
    assert [h["sanctions_status"] for h in exposure["hulls"]] == ["RED", "AMBER", "INCOMPLETE", "GREEN"]
    assert [h["vetting_grade"] for h in exposure["hulls"]] == ["E", "D", None, "A"]


# --- changes ---------------------------------------------------------------------------------


@pytest.fixture
def history(account, new_fleet):
    """A fleet created a day ago over hulls A and B, with records before and after its creation."""
    a, b, outsider = demo.GREEN_CLEAN, demo.RED_OFAC, demo.AMBER_MMSI
    fleet = new_fleet([a, b])
    created = timezone.now() - timedelta(days=1)
    Fleet.objects.filter(pk=fleet["id"]).update(created_at=created)
    minute = timedelta(minutes=1)
    rows = {
        "a0": record(account, a, "GREEN", "B", "LOW", at=created - timedelta(hours=1)),  # before the fleet
        "a1": record(account, a, "GREEN", "B", "LOW", at=created + minute),  # no move
        "a2": record(account, a, "RED", "E", "LOW", at=created + 2 * minute),  # status and grade move
        "a3": record(account, a, "INCOMPLETE", at=created + 3 * minute),  # moves nothing
        "a4": record(account, a, "GREEN", None, None, at=created + 4 * minute),  # status; grade E stands
        "b1": record(account, b, "GREEN", "A", "LOW", at=created + 5 * minute),  # B's first verdict
        "x1": record(account, outsider, "RED", "E", "HIGH", at=created + 6 * minute),  # not a member
    }
    other, _, _ = issue_account_key(email="elsewhere@example.com", environment="test")
    record(other, a, "RED", "E", "HIGH", at=created + 7 * minute)  # another account's
    record(account, a, "RED", "E", "HIGH", at=created + 8 * minute, environment="live")  # another environment's
    return SimpleNamespace(fleet=fleet, rows=rows, a=a, b=b, created=created)


def test_changes_from_the_fleets_creation_are_the_verdict_moves_of_its_hulls(history, key, client, keyed):
    body = client.get(f"{FLEETS}/{history.fleet['id']}/changes", **keyed(key)).json()
    rows = history.rows

    assert body["has_more"] is False and body["next_cursor"]
    assert body["changes"] == [
        {
            "imo": history.a,
            "changed_at": rows["a2"].screened_at.isoformat(timespec="seconds").replace("+00:00", "Z"),
            "screening_id": rows["a2"].id,
            "previous_screening_id": rows["a1"].id,
            "changed": ["sanctions_status", "vetting_grade"],
            "previous": {"sanctions_status": "GREEN", "vetting_grade": "B", "ownership_opacity": "LOW"},
            "current": {"sanctions_status": "RED", "vetting_grade": "E", "ownership_opacity": "LOW"},
        },
        {
            "imo": history.a,
            "changed_at": rows["a4"].screened_at.isoformat(timespec="seconds").replace("+00:00", "Z"),
            "screening_id": rows["a4"].id,
            "previous_screening_id": rows["a2"].id,
            "changed": ["sanctions_status"],
            "previous": {"sanctions_status": "RED", "vetting_grade": "E", "ownership_opacity": "LOW"},
            "current": {"sanctions_status": "GREEN", "vetting_grade": "E", "ownership_opacity": "LOW"},
        },
        {
            "imo": history.b,
            "changed_at": rows["b1"].screened_at.isoformat(timespec="seconds").replace("+00:00", "Z"),
            "screening_id": rows["b1"].id,
            "previous_screening_id": None,
            "changed": ["sanctions_status", "vetting_grade", "ownership_opacity"],
            "previous": None,
            "current": {"sanctions_status": "GREEN", "vetting_grade": "A", "ownership_opacity": "LOW"},
        },
    ]


def test_the_changes_cursor_is_stable_and_resumable(history, account, key, client, keyed):
    path = f"{FLEETS}/{history.fleet['id']}/changes"
    whole = client.get(path, **keyed(key)).json()["changes"]

    seen, cursors, cursor = [], [], None
    while True:
        page = client.get(path + (f"?limit=1&cursor={cursor}" if cursor else "?limit=1"), **keyed(key)).json()
        seen += page["changes"]
        cursors.append(page["next_cursor"])
        cursor = page["next_cursor"]
        if not page["has_more"]:
            break
    assert seen == whole and len(whole) == 3

    again = client.get(f"{path}?limit=1&cursor={cursors[0]}", **keyed(key)).json()
    assert again["changes"] == [whole[1]] and again["next_cursor"] == cursors[1]  # the same cursor, the same page
    assert client.get(f"{path}?cursor={cursor}", **keyed(key)).json() == {
        "changes": [],
        "next_cursor": cursor,
        "has_more": False,
    }

    later = record(account, history.b, "AMBER", "D", "LOW", at=timezone.now() - timedelta(minutes=1))
    resumed = client.get(f"{path}?cursor={cursor}", **keyed(key)).json()
    assert [(c["screening_id"], c["previous_screening_id"], c["changed"]) for c in resumed["changes"]] == [
        (later.id, history.rows["b1"].id, ["sanctions_status", "vetting_grade"])
    ]


def test_a_record_shows_in_changes_only_once_it_has_settled(history, account, key):
    owner = SimpleNamespace(account_id=account.pk, environment="test")
    end = fleet_selectors.fleet_changes(owner, history.fleet["id"], {"limit": 50})["next_cursor"]
    fresh = record(account, history.b, "RED", "E", "HIGH", at=timezone.now())

    def read(now: datetime) -> list[str]:
        page = fleet_selectors.fleet_changes(
            owner, history.fleet["id"], {"limit": 50, "cursor": decode_cursor(end)}, now
        )
        return [c["screening_id"] for c in page["changes"]]

    assert read(timezone.now()) == []
    assert read(timezone.now() + timedelta(seconds=fleet_selectors.CHANGES_SETTLE_SECONDS + 1)) == [fresh.id]


def test_a_hull_removed_from_the_fleet_drops_out_of_its_changes(history, key, send, client, keyed):
    send(key, "patch", f"{FLEETS}/{history.fleet['id']}", {"remove_imos": [history.a]})
    body = client.get(f"{FLEETS}/{history.fleet['id']}/changes", **keyed(key)).json()
    assert [c["imo"] for c in body["changes"]] == [history.b]


def test_a_cursor_the_api_did_not_issue_is_422(history, key, client, keyed):
    for cursor in ("!!", "bm9wZQ"):  # not base64; "nope"
        response = client.get(f"{FLEETS}/{history.fleet['id']}/changes?cursor={cursor}", **keyed(key))
        assert response.status_code == 422 and fields(response) == ["cursor"]


def test_exposure_reads_the_same_values_whether_the_database_or_python_parses_the_records(
    key, account, new_fleet, monkeypatch
):
    imos = [valid_imo(n) for n in range(4)]
    fleet = new_fleet(imos)
    at = timezone.now() - timedelta(hours=1)
    for imo, verdict in zip(
        imos, [("RED", "E", "HIGH"), ("GREEN", None, None), ("INCOMPLETE", None, None)], strict=False
    ):
        record(account, imo, *verdict, at=at)
    owner = SimpleNamespace(account_id=account.pk, environment="test")
    now = timezone.now()
    extracted = fleet_selectors.fleet_exposure(owner, fleet["id"], {"limit": 100}, now)
    monkeypatch.setattr(fleet_selectors, "_READING_SQL", {})
    assert fleet_selectors.fleet_exposure(owner, fleet["id"], {"limit": 100}, now) == extracted
