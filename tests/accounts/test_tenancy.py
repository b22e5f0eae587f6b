"""Tenancy: another account's and another environment's resources are invisible — 404 on
detail, absent from lists — on every list and detail endpoint."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from accounts.services import issue_key
from screening import datastate

pytestmark = pytest.mark.django_db

GREEN = "9300776"


@pytest.fixture
def keys():
    """The owner's live key, the same account's test key, and another account's live key."""
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    datastate.invalidate()
    _, _, owner_live = issue_key(email="owner@example.com", environment="live")
    _, _, owner_test = issue_key(email="owner@example.com", environment="test")
    _, _, stranger_live = issue_key(email="stranger@example.com", environment="live")
    yield {"owner": owner_live, "other_environment": owner_test, "other_account": stranger_live}
    datastate.invalidate()


def _post(client, raw: str, path: str, body: dict, key: str):  # type: ignore[no-untyped-def]
    return client.post(
        path, data=body, content_type="application/json", HTTP_IDEMPOTENCY_KEY=key, HTTP_AUTHORIZATION=f"Bearer {raw}"
    )


def _get(client, raw: str, path: str):  # type: ignore[no-untyped-def]
    return client.get(path, HTTP_AUTHORIZATION=f"Bearer {raw}")


@pytest.mark.parametrize("outsider", ["other_environment", "other_account"])
def test_a_screening_is_invisible_outside_its_account_and_environment(client, keys, outsider):
    created = _post(client, keys["owner"], "/api/v1/screenings", {"imo": GREEN}, "t1").json()
    assert _get(client, keys["owner"], f"/api/v1/screenings/{created['id']}").status_code == 200
    assert _get(client, keys[outsider], f"/api/v1/screenings/{created['id']}").status_code == 404
    assert _get(client, keys[outsider], "/api/v1/screenings").json()["screenings"] == []
    owner_list = _get(client, keys["owner"], "/api/v1/screenings").json()["screenings"]
    assert [row["id"] for row in owner_list] == [created["id"]]


@pytest.mark.parametrize("outsider", ["other_environment", "other_account"])
def test_a_voyage_assessment_is_invisible_outside_its_account_and_environment(client, keys, outsider):
    body = {"route": {"origin": "NLRTM", "destination": "DEHAM"}}
    created = _post(client, keys["owner"], "/api/v1/voyage-assessments", body, "t2").json()
    assert _get(client, keys["owner"], f"/api/v1/voyage-assessments/{created['id']}").status_code == 200
    assert _get(client, keys[outsider], f"/api/v1/voyage-assessments/{created['id']}").status_code == 404


@pytest.mark.parametrize("outsider", ["other_environment", "other_account"])
def test_a_voyage_batch_and_its_items_are_invisible_outside_its_account_and_environment(client, keys, outsider):
    body = {"routes": [{"route": {"origin": "NLRTM", "destination": "DEHAM"}}]}
    created = _post(client, keys["owner"], "/api/v1/voyage-assessment-batches", body, "t3").json()
    for path in (
        f"/api/v1/voyage-assessment-batches/{created['id']}",
        f"/api/v1/voyage-assessment-batches/{created['id']}/items",
    ):
        assert _get(client, keys["owner"], path).status_code == 200
        assert _get(client, keys[outsider], path).status_code == 404


@pytest.mark.parametrize("outsider", ["other_environment", "other_account"])
def test_access_log_entries_are_invisible_outside_their_account_and_environment(client, keys, outsider):
    _get(client, keys["owner"], "/api/v1/usage")
    own = _get(client, keys["owner"], "/api/v1/access-log").json()["entries"]
    assert any(entry["path"] == "/api/v1/usage" for entry in own)
    theirs = _get(client, keys[outsider], "/api/v1/access-log").json()["entries"]
    assert all(entry["path"] == "/api/v1/access-log" for entry in theirs)
