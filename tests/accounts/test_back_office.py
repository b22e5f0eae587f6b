"""Issue 17 items 6-7: the operator back office (Django admin). Every action audited; list pages without full counts."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model

from accounts.models import Account, ApiKey
from backoffice.models import OperatorAction
from metering.models import ServiceSwitches
from metering.switches import forget_cached

pytestmark = pytest.mark.django_db

CONSOLE = "/admin/backoffice/operatoraction/console/"


@pytest.fixture
def operator(client):
    user = get_user_model().objects.create_superuser("oncall", "oncall@operator.example", "Oncall-pass-123")
    client.force_login(user)
    return user


def last_action() -> OperatorAction:
    return OperatorAction.objects.order_by("-id").first()


def test_pausing_the_api_with_retry_after_is_audited_and_answers_503(client, operator, issue_key, keyed):
    raw = issue_key("test")
    response = client.post(CONSOLE, {"lane": "api", "paused": "1", "retry_after": "120", "note": "db failover"})
    assert response.status_code == 302
    forget_cached()
    paused = client.get("/api/v1/usage", **keyed(raw))
    assert paused.status_code == 503 and paused.json()["code"] == "api_paused" and paused["Retry-After"] == "120"
    action = last_action()
    assert (action.operator, action.operator_name, action.action, action.note) == (
        operator,
        "oncall",
        "pause_api",
        "db failover",
    )
    assert action.before["api_paused"] is False and action.after == {
        "api_paused": True,
        "api_paused_retry_after": 120,
        "keyless_paused": False,
        "keyless_paused_retry_after": 300,
    }
    client.post(CONSOLE, {"lane": "api", "paused": "0"})
    forget_cached()
    assert client.get("/api/v1/usage", **keyed(raw)).status_code == 200
    assert last_action().action == "resume_api" and last_action().after["api_paused"] is False


def test_pausing_the_keyless_lane_is_audited(client, operator):
    client.post(CONSOLE, {"lane": "keyless", "paused": "1", "retry_after": "45"})
    switches = ServiceSwitches.objects.get()
    assert switches.keyless_paused and switches.keyless_paused_retry_after == 45
    assert last_action().action == "pause_keyless"
    page = client.get(CONSOLE).content.decode()
    assert "Resume the keyless lane" in page


def test_an_invalid_retry_after_changes_nothing(client, operator):
    response = client.post(CONSOLE, {"lane": "api", "paused": "1", "retry_after": "0"})
    assert response.status_code == 200
    assert not ServiceSwitches.objects.filter(api_paused=True).exists() and not OperatorAction.objects.exists()


def test_the_switches_are_not_editable_outside_the_console(client, operator):
    ServiceSwitches.objects.create()
    switches = ServiceSwitches.objects.get()
    response = client.post(f"/admin/metering/serviceswitches/{switches.pk}/change/", {"api_paused": "on"})
    assert response.status_code == 403
    assert "operator console" in client.get("/admin/metering/serviceswitches/").content.decode()


def test_revoking_keys_is_audited_and_takes_effect_on_the_next_request(client, operator, issue_key, keyed):
    raw = issue_key("live")
    key = ApiKey.objects.get()
    response = client.post("/admin/accounts/apikey/", {"action": "revoke", "_selected_action": [key.pk]})
    assert response.status_code == 302
    assert client.get("/api/v1/usage", **keyed(raw)).status_code == 401
    action = last_action()
    assert action.action == "revoke_key" and action.target_id == key.id
    assert action.before == {"revoked_at": None} and action.after["revoked_at"]


def test_pausing_an_account_asks_for_the_reason_and_the_pause_answers_402(client, operator, issue_key, keyed):
    raw = issue_key("test")
    account = Account.objects.get()
    ask = client.post("/admin/accounts/account/", {"action": "pause_accounts", "_selected_action": [account.pk]})
    assert ask.status_code == 200 and "reason" in ask.content.decode()
    client.post(
        "/admin/accounts/account/",
        {"action": "pause_accounts", "_selected_action": [account.pk], "apply": "1", "reason": "card fraud review"},
    )
    account.refresh_from_db()
    assert account.paused_reason == "card fraud review" and account.paused_at is not None
    action = last_action()
    assert action.action == "pause_account" and action.before["paused_reason"] == ""
    assert action.after["paused_reason"] == "card fraud review"
    usage = client.get("/api/v1/usage", **keyed(raw)).json()
    assert usage["paused"] is True and usage["paused_reason"] == "card fraud review"
    client.post("/admin/accounts/account/", {"action": "lift_pause", "_selected_action": [account.pk]})
    account.refresh_from_db()
    assert account.paused_reason == "" and last_action().action == "unpause_account"
    assert last_action().before["paused_reason"] == "card fraud review"


def test_the_appended_digit_correction_flag_is_set_by_an_audited_action(client, operator, issue_key):
    issue_key("test")
    account = Account.objects.get()
    client.post("/admin/accounts/account/", {"action": "enable_correction", "_selected_action": [account.pk]})
    account.refresh_from_db()
    assert account.appended_digit_correction is True
    assert last_action().before == {"appended_digit_correction": False}
    assert last_action().after == {"appended_digit_correction": True}


def test_a_pilot_allowance_replaces_the_live_screening_allowance(client, operator, issue_key, keyed):
    raw = issue_key("live")
    account = Account.objects.get()
    client.post(
        "/admin/accounts/account/",
        {"action": "grant_pilot", "_selected_action": [account.pk], "apply": "1", "total": "25000", "note": "Q1 pilot"},
    )
    account.refresh_from_db()
    assert account.pilot_screening_total == 25000
    quota = client.get("/api/v1/usage", **keyed(raw)).json()["quota"]["screenings"]
    assert (quota["limit"], quota["one_time"]) == (25000, True)
    action = last_action()
    assert (action.action, action.before, action.after, action.note) == (
        "grant_pilot_allowance",
        {"pilot_screening_total": None},
        {"pilot_screening_total": 25000},
        "Q1 pilot",
    )


def test_edits_on_the_change_form_are_audited_with_before_and_after(client, operator, issue_key):
    issue_key("test", label="old label")
    key = ApiKey.objects.get()
    response = client.post(
        f"/admin/accounts/apikey/{key.pk}/change/", {"label": "new label", "allowed_ips": "[]", "expires_at_0": ""}
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    action = last_action()
    assert action.action == "edit" and action.before["label"] == "old label" and action.after["label"] == "new label"


def test_the_audit_is_read_only(client, operator, issue_key):
    issue_key("test")
    client.post("/admin/accounts/account/", {"action": "lift_pause", "_selected_action": [Account.objects.get().pk]})
    action = last_action()
    assert client.get("/admin/backoffice/operatoraction/").status_code == 200
    page = client.get(f"/admin/backoffice/operatoraction/{action.pk}/change/")
    assert page.status_code == 200 and "unpause_account" in page.content.decode()
    assert client.post(f"/admin/backoffice/operatoraction/{action.pk}/change/", {"note": "x"}).status_code == 403
    assert client.post(f"/admin/backoffice/operatoraction/{action.pk}/delete/", {"post": "yes"}).status_code == 403
    assert client.get("/admin/backoffice/operatoraction/add/").status_code == 403
    assert OperatorAction.objects.filter(pk=action.pk, note="").exists()


def test_lookup_by_id_opens_a_screening_with_its_stored_document(client, operator):
    from datetime import timedelta

    from django.utils import timezone

    from screening.models import Screening

    account = Account.objects.create(email="owner@shipping.example")
    document = {"id": "scr_01TESTLOOKUP", "imo": "9300116", "sanctions": {"status": "RED"}}
    Screening.objects.create(
        id="scr_01TESTLOOKUP",
        account=account,
        environment="live",
        imo="9300116",
        status="RED",
        document=json.dumps(document).encode(),
        screened_at=timezone.now(),
        expires_at=timezone.now() + timedelta(days=30),
    )
    found = client.get(CONSOLE, {"record_id": "scr_01TESTLOOKUP"})
    assert found.status_code == 302 and found["Location"] == "/admin/screening/screening/scr_01TESTLOOKUP/change/"
    page = client.get(found["Location"]).content.decode()
    assert "&quot;sanctions&quot;" in page and "RED" in page
    assert client.post(found["Location"], {"status": "GREEN"}).status_code == 403
    missing = client.get(CONSOLE, {"record_id": "scr_nope"}, follow=True)
    assert "No record has the id scr_nope" in missing.content.decode()


def test_source_freshness_shows_and_a_refresh_is_queued_and_audited(client, operator, monkeypatch):
    from screening.models import SourceSnapshot

    SourceSnapshot.objects.create(source="ofac_sdn", status="active", row_count=846, origin="https://example.test")
    queued = []
    from backoffice import tasks

    monkeypatch.setattr(tasks.refresh_source, "delay", lambda *args: queued.append(args))
    page = client.get(CONSOLE).content.decode()
    assert "ofac_sdn" in page and "846" in page
    with_commit = client.post(CONSOLE, {"refresh_source": "ofac_sdn"})
    assert with_commit.status_code == 302
    assert last_action().action == "refresh_source" and last_action().target_id == "ofac_sdn"


def test_list_pages_render_without_a_full_count(client, operator, issue_key, keyed, django_assert_max_num_queries):
    raw = issue_key("test")
    for _ in range(3):
        client.get("/api/v1/usage", **keyed(raw))
    for url in (
        "/admin/accounts/account/",
        "/admin/accounts/apikey/",
        "/admin/metering/accesslogentry/",
        "/admin/backoffice/operatoraction/",
        "/admin/screening/screening/",
        "/admin/voyages/voyageassessment/",
        "/admin/screening/screeningbatch/",
        "/admin/voyages/voyagebatch/",
        "/admin/screening/sourcesnapshot/",
        CONSOLE,
    ):
        with django_assert_max_num_queries(12):
            response = client.get(url)
        assert response.status_code == 200, url
    from backoffice.adminkit import COUNT_CAP, CappedCountPaginator

    assert CappedCountPaginator(list(range(COUNT_CAP * 2)), 50).count == COUNT_CAP * 2  # plain lists: exact
    assert CappedCountPaginator(ApiKey.objects.all(), 50).count == 1


def _second_half_records(account: Account) -> list:
    """One record of each resource the second half added, as the services would leave them."""
    from django.utils import timezone

    from cargo.models import CargoScreening
    from exports.models import Export
    from monitoring.models import CorridorMonitor, VesselMonitor
    from screening.models import Fleet

    owned = {"account": account, "environment": "live"}
    cargo_document = {"id": "cgs_01TESTCARGO", "status": "GREEN", "hs_code": "270900"}
    return [
        VesselMonitor.objects.create(imo="9300776", **owned),
        CorridorMonitor.objects.create(request={"route": {"origin": "NLRTM", "destination": "SGSIN"}}, **owned),
        Fleet.objects.create(name="Tankers north", **owned),
        Export.objects.create(resource="screenings", format="csv", scope="screenings:read", **owned),
        CargoScreening.objects.create(
            id="cgs_01TESTCARGO", status="GREEN", hs_code="270900", origin_country="NO", destination_country="NL",
            document=json.dumps(cargo_document).encode(), screened_at=timezone.now(), **owned,
        ),
    ]  # fmt: skip


def test_lookup_by_id_opens_monitors_fleets_exports_and_cargo_screenings_read_only(client, operator):
    account = Account.objects.create(email="owner2@shipping.example")
    for record in _second_half_records(account):
        found = client.get(CONSOLE, {"record_id": record.pk})
        assert found.status_code == 302, record.pk
        page = client.get(found["Location"])
        assert page.status_code == 200, record.pk
        assert f"&quot;id&quot;: &quot;{record.pk}&quot;" in page.content.decode(), record.pk
        assert client.post(found["Location"], {}).status_code == 403
        listing = client.get(found["Location"].rsplit("/", 3)[0] + "/")
        assert listing.status_code == 200 and record.pk in listing.content.decode()
