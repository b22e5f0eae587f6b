"""API4 Unrestricted Resource Consumption: every list has a published maximum page size it enforces,
every write refuses a body over the limit, and batches stop at their caps.

Elsewhere: the per-key rate (tests/metering/test_rate_limit.py), in-flight ceilings
(tests/metering/test_concurrency.py), the keyless allowance and feed sample
(tests/metering/test_rate_limit.py, tests/screening/api/test_keyless_check.py), JSON nesting and URL lengths
(tests/platform/test_hostile_input.py), outbound body caps and timeouts (tests/platform/test_outbound.py).
"""

from __future__ import annotations

import pytest

from screening import demo
from tests.security.conftest import GREEN, UNKNOWN_ID, send

pytestmark = pytest.mark.django_db


def _limit_parameter(document: dict, op) -> dict | None:  # type: ignore[no-untyped-def]
    parameters = document["paths"][op.template][op.method].get("parameters", [])
    return next((p["schema"] for p in parameters if p["name"] == "limit" and p["in"] == "query"), None)


def test_every_list_publishes_a_maximum_page_size_and_refuses_one_over_it(
    client, tenants, openapi_document, published_operations
):
    lists = [op for op in published_operations if op.method == "get" and _limit_parameter(openapi_document, op)]
    assert len(lists) >= 14
    wrong = []
    for op in lists:
        maximum = _limit_parameter(openapi_document, op).get("maximum")
        if not maximum:
            wrong.append(f"{op}: no published maximum")
            continue
        # A hull's behaviour is read by its IMO (public reference data), the rest by the owner's resource id.
        identifier = demo.GREEN_CLEAN if op.collection == "vessels" else tenants.ids.get(op.collection, "")
        path = op.path(identifier) + ("&" if "?" in op.template else "?")
        query = "query=Rotterdam&" if op.collection == "ports" else ""
        at_maximum = send(client, "get", tenants.owner if op.keyed else None, f"{path}{query}limit={maximum}")
        over = send(client, "get", tenants.owner if op.keyed else None, f"{path}{query}limit={maximum + 1}")
        if at_maximum.status_code != 200:
            wrong.append(f"{op}: limit={maximum} answered {at_maximum.status_code}")
        fields = [v["field"] for v in over.json().get("field_violations", [])]
        if over.status_code != 422 or fields != ["limit"]:
            wrong.append(f"{op}: limit={maximum + 1} answered {over.status_code} {fields}")
    assert not wrong, "\n".join(wrong)


def test_every_write_refuses_a_body_over_the_limit_before_reading_it(client, issue_key, published_operations, settings):
    settings.MAX_REQUEST_BODY_BYTES = 4096
    raw = issue_key("live")
    writes = [op for op in published_operations if op.keyed and op.method in {"post", "patch"}]
    assert len(writes) >= 15
    oversized = {"imo": GREEN, "padding": "x" * 5000}
    wrong = []
    for op in writes:
        response = send(client, op.method, raw, op.path(UNKNOWN_ID), oversized)
        if response.status_code != 413 or response.json()["code"] != "request_too_large":
            wrong.append(f"{op}: {response.status_code}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/v1/screening-batches", {"items": [{"imo": GREEN}] * 51}, "items"),
        ("/api/v1/voyage-assessment-batches", {"routes": [{"route": {"origin": "NLRTM", "destination": "DEHAM"}}] * 11}, "routes"),
    ],
)  # fmt: skip
def test_batches_over_their_cap_are_refused_whole_and_nothing_is_queued(client, issue_key, path, body, field):
    from jobs.models import Job

    raw = issue_key("live", plan="paid")
    response = send(client, "post", raw, path, body)
    assert response.status_code == 422, response.content
    assert response.json()["field_violations"][0]["field"] == field
    assert not any(model.objects.exists() for model in Job.__subclasses__() if not model._meta.abstract)
