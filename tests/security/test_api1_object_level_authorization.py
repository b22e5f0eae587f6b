"""API1 Broken Object Level Authorization: another account's and another environment's objects.

The operations come from the published OpenAPI document: every keyed operation with an id in its
path (GET, PATCH, DELETE and the action POSTs) is tried by an outsider against the owner's real
resource, and must answer exactly what it answers for an id that does not exist (404 not_found, or
403 environment_not_allowed on a live-only operation called with a test key), change nothing, and
every list must leave the owner's ids out. A newly published resource fails
`test_every_id_bearing_operation_has_a_resource_to_try` until conftest.create_owned_resources makes one.
tests/accounts/test_tenancy.py proves the same for screenings, assessments and batches one by one.
"""

from __future__ import annotations

import json

import pytest

from tests.security.conftest import send

pytestmark = pytest.mark.django_db

# A body the owner's own call would accept, so an outsider's answer is about the id, not the body.
VALID_BODIES = {
    ("patch", "/api/v1/fleets/{fleet_id}"): {"name": "Renamed by an outsider"},
    ("patch", "/api/v1/webhook-endpoints/{endpoint_id}"): {"enabled": False, "url": "https://attacker.invalid/x"},
    ("post", "/api/v1/webhook-endpoints/{endpoint_id}/rotate-secret"): {"overlap_hours": 0},
    ("post", "/api/v1/vessel-monitors/{monitor_id}/simulate"): {"sanctions_status": "RED"},
    ("post", "/api/v1/match-decisions/{decision_id}/revoke"): {"reviewer": "outsider"},
}
LIVE_ONLY_COLLECTIONS = {"corridor-monitors"}  # 403 environment_not_allowed on a test key, whatever the id
# Paths whose parameter names public reference data, not an object an account owns: a hull's IMO number
# (GET /vessels/{imo}/behaviour reads the AIS every account shares). Nothing there belongs to a tenant.
SHARED_REFERENCE_COLLECTIONS = {"vessels"}
UNKNOWN_ULID = "01JZZZZZZZZZZZZZZZZZZZZZZZ"


def _unknown_like(identifier: str) -> str:
    """An id of the same type that no one holds."""
    return identifier.split("_", 1)[0] + "_" + UNKNOWN_ULID


def _id_operations(published_operations):  # type: ignore[no-untyped-def]
    return [
        op
        for op in published_operations
        if op.keyed and op.path_parameters and op.collection not in SHARED_REFERENCE_COLLECTIONS
    ]


# Differ on every read, whatever was changed (an evidence pack says when it was generated, and its hash covers that).
READ_TIME_FIELDS = {"request_id", "as_of", "generated_at", "sha256"}


def _snapshot(response) -> tuple[int, object]:  # type: ignore[no-untyped-def]
    """What a read shows of the resource: the status and the body without its per-read fields."""
    if not response.get("Content-Type", "").startswith("application/json"):
        return response.status_code, response.content
    body = response.json()
    if isinstance(body, dict):
        body = {name: value for name, value in body.items() if name not in READ_TIME_FIELDS}
    return response.status_code, body


def test_every_id_bearing_operation_has_a_resource_to_try(published_operations, tenants):
    operations = _id_operations(published_operations)
    assert len(operations) >= 25  # the document was read (every resource of the service is in it)
    uncovered = sorted(str(op) for op in operations if op.collection not in tenants.ids)
    assert not uncovered, f"no resource of these is created in conftest.create_owned_resources: {uncovered}"
    for op in operations:
        assert len(op.path_parameters) == 1, f"{op}: one id per path is what this test substitutes"


@pytest.mark.parametrize("outsider", ["other_environment", "other_account"])
def test_another_tenants_objects_answer_as_if_they_did_not_exist_and_stay_unchanged(
    client, published_operations, tenants, outsider
):
    outsider_key = getattr(tenants, outsider)
    operations = _id_operations(published_operations)
    reads = [op for op in operations if op.method == "get"]
    before = {op: _snapshot(send(client, "get", tenants.owner, op.path(tenants.ids[op.collection]))) for op in reads}
    for op, (status, body) in before.items():
        assert status != 404, f"the owner cannot read its own {op}: {body}"

    wrong = []
    for op in operations:
        real_id = tenants.ids[op.collection]
        body = VALID_BODIES.get((op.method, op.template))
        on_real = send(client, op.method, outsider_key, op.path(real_id), body)
        on_unknown = send(client, op.method, outsider_key, op.path(_unknown_like(real_id)), body)
        expected = (
            (403, "environment_not_allowed")
            if outsider == "other_environment" and op.collection in LIVE_ONLY_COLLECTIONS
            else (404, "not_found")
        )
        got = (on_real.status_code, on_real.json().get("code"))
        if got != expected or got != (on_unknown.status_code, on_unknown.json().get("code")):
            wrong.append(f"{op}: {got} on the owner's id, {on_unknown.status_code} on an unknown id")
        if real_id in on_real.content.decode():
            wrong.append(f"{op}: the answer names the owner's id")
    assert not wrong, "\n".join(wrong)

    after = {op: _snapshot(send(client, "get", tenants.owner, op.path(tenants.ids[op.collection]))) for op in reads}
    changed = [f"{op}: {before[op]} -> {after[op]}" for op in reads if before[op] != after[op]]
    assert not changed, f"an outsider's call changed the owner's resources: {changed}"


@pytest.mark.parametrize("outsider", ["other_environment", "other_account"])
def test_lists_never_show_another_tenants_objects(client, published_operations, tenants, outsider):
    lists = [op for op in published_operations if op.keyed and op.method == "get" and not op.path_parameters]
    assert {op.collection for op in lists} >= {"screenings", "fleets", "exports", "webhook-endpoints", "access-log"}
    owner_ids = set(tenants.ids.values())
    shown_to_owner: set[str] = set()
    leaked = []
    for op in lists:
        own = send(client, "get", tenants.owner, op.template).content.decode()
        shown_to_owner |= {identifier for identifier in owner_ids if identifier in own}
        theirs = send(client, "get", getattr(tenants, outsider), op.template)
        assert theirs.status_code in (200, 403), (str(op), theirs.status_code, theirs.content[:300])
        text = json.dumps(theirs.json())
        leaked += [f"{op}: {identifier}" for identifier in owner_ids if identifier in text]
    assert not leaked, f"lists show another tenant's objects: {leaked}"
    # The lists do show them to their owner, so the check above looked at lists that hold them.
    listed_collections = {op.collection for op in lists}
    assert {tenants.ids[name] for name in listed_collections if name in tenants.ids} <= shown_to_owner
