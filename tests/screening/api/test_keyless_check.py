"""GET /api/v1/vessels/{imo}/check: shape 2.1, invalid_imo, limits, cache, slots, feed sampling."""

import threading

import pytest
from django.test import Client

from metering import concurrency
from metering.switches import set_switches
from screening import demo, keyless

pytestmark = pytest.mark.django_db


def check(client, imo, ip="198.51.100.10"):
    return client.get(f"/api/v1/vessels/{imo}/check", REMOTE_ADDR=ip)


def test_the_check_answers_shape_2_1_in_camel_case(demo_world, client):
    response = check(client, demo.GREEN_CLEAN)
    assert response.status_code == 200
    body = response.json()
    assert set(body) >= {
        "imo",
        "vesselName",
        "alsoRecordedAs",
        "identityBasis",
        "checkDigitValid",
        "sanctions",
        "ownership",
        "ownershipFactors",
        "vetting",
        "assessed",
        "currentContext",
        "checkedAt",
        "fullReport",
    }
    assert set(body["sanctions"]) == {"status", "detail", "coverageComplete", "coverageGaps"}
    assert body["sanctions"]["coverageComplete"] is True
    assert sum(f["points"] for f in body["ownershipFactors"]) == body["ownership"]["score"]
    assert body["currentContext"]["coverage"] == "fresh"
    assert body["fullReport"].endswith(f"/vessels/{demo.GREEN_CLEAN}/report")
    assert response["X-RateLimit-Limit"] == "100"


def test_not_assessed_leaves_grade_score_and_opacity_null(demo_world, client):
    body = check(client, demo.NOT_ASSESSED).json()
    assert body["assessed"] is False
    assert body["vetting"]["grade"] is None and body["vetting"]["score"] is None
    assert body["ownership"]["opacity"] is None and body["ownershipFactors"] is None


@pytest.mark.parametrize(
    ("path", "fragment"),
    [
        ("ABCDEFG", "no digits"),
        ("12345", "5 digit"),
        ("123456789", "longer than seven"),
        ("9074729-9187629", "more than one"),
        ("IMO%2090747", "5 digit"),
    ],
)
def test_invalid_imo_is_400_with_a_message_saying_what_is_wrong(demo_world, client, path, fragment):
    response = check(client, path)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_imo"
    assert fragment in body["message"]
    assert {"usage", "example"} <= set(body)
    assert response["X-RateLimit-Remaining"] == "100"


def test_an_eight_digit_value_names_the_valid_imo_it_contains(demo_world, client):
    body = check(client, demo.GREEN_CLEAN + "5").json()
    assert body["code"] == "invalid_imo" and demo.GREEN_CLEAN in body["message"]


def test_invalid_imo_is_not_counted(demo_world, client):
    for _ in range(3):
        check(client, "nothing")
    assert check(client, demo.GREEN_CLEAN)["X-RateLimit-Remaining"] == "99"


def test_a_tight_loop_is_refused_before_the_hundred_are_spent(demo_world, client):
    statuses = [check(client, demo.GREEN_CLEAN).status_code for _ in range(30)]
    assert 429 in statuses
    first_refusal = statuses.index(429)
    assert first_refusal < 100
    refused = check(client, demo.GREEN_CLEAN)
    assert refused.json()["code"] == "rate_limit_exceeded" and int(refused["Retry-After"]) >= 1


def test_a_checked_hull_answers_from_the_shared_cache_for_anyone(demo_world, client):
    first = check(client, demo.GREEN_CLEAN, ip="192.0.2.1").json()
    second = check(client, demo.GREEN_CLEAN, ip="192.0.2.2").json()
    assert second["checkedAt"] == first["checkedAt"]


def test_an_incomplete_answer_is_never_cached(demo_world, client):
    check(client, demo.INCOMPLETE_IDENTITY)
    assert keyless.cached_check(demo.INCOMPLETE_IDENTITY) is None


def test_busy_slots_answer_503_keyless_busy_and_are_not_counted(demo_world, client, settings):
    settings.KEYLESS_SLOT_WAIT_SECONDS = 0.3
    held = [concurrency.try_claim("keyless", keyless.SHARED_SLOTS) for _ in range(keyless.SHARED_SLOTS)]
    response = check(client, demo.GREEN_GRADE_B)
    for slot in held:
        concurrency.release(slot)
    assert response.status_code == 503
    assert response.json()["code"] == "keyless_busy"
    assert int(response["Retry-After"]) > 0
    assert check(client, demo.GREEN_GRADE_B)["X-RateLimit-Remaining"] == "99"


@pytest.mark.django_db(transaction=True)
def test_more_than_two_own_checks_waiting_is_concurrency_limit(client, settings):
    from django.core.management import call_command

    from screening import datastate

    call_command("seed_demo", stdout=open("/dev/null", "w"))
    datastate.invalidate()
    settings.KEYLESS_SLOT_WAIT_SECONDS = 1.5
    held = [concurrency.try_claim("keyless", keyless.SHARED_SLOTS) for _ in range(keyless.SHARED_SLOTS)]
    results = []
    imos = [demo.GREEN_CLEAN, demo.GREEN_GRADE_B, demo.GREEN_GRADE_C, demo.GREEN_GRADE_D]
    threads = [threading.Thread(target=lambda i=i: results.append(check(Client(), i, ip="203.0.113.5"))) for i in imos]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    for slot in held:
        concurrency.release(slot)
    codes = sorted(r.json().get("code", "ok") for r in results)
    assert codes.count("concurrency_limit") >= 1
    assert set(codes) <= {"concurrency_limit", "keyless_busy"}


def test_operator_pause_is_503_keyless_paused(demo_world, client):
    set_switches(keyless_paused=True, keyless_paused_retry_after=90)
    response = check(client, demo.GREEN_CLEAN)
    assert response.status_code == 503
    assert response.json()["code"] == "keyless_paused"
    assert response["Retry-After"] == "90"


def test_an_address_used_as_a_feed_is_held_to_a_monthly_sample(demo_world, client, monkeypatch):
    monkeypatch.setattr(keyless, "FEED_DISTINCT_HULLS_PER_DAY", 3)
    monkeypatch.setattr(keyless, "MONTHLY_SAMPLE", 2)
    imos = [
        demo.GREEN_CLEAN,
        demo.GREEN_GRADE_B,
        demo.GREEN_GRADE_C,
        demo.GREEN_GRADE_D,
        demo.GREEN_GRADE_E,
        demo.RED_OFAC,
    ]
    responses = [check(client, imo, ip="203.0.113.77") for imo in imos]
    refused = responses[-1]
    assert refused.status_code == 429
    assert refused.json()["code"] == "rate_limit_exceeded"
    assert "/signup" in refused.json()["message"]
    from django.utils import timezone

    from metering.quota import next_month_start

    assert int(refused["X-RateLimit-Reset"]) == int(next_month_start(timezone.now()).timestamp())
    assert check(client, demo.GREEN_CLEAN, ip="203.0.113.78").status_code == 200


def test_the_keyed_lane_is_unaffected_by_keyless_limits(demo_world, client, issue_key, keyed):
    raw = issue_key()
    for _ in range(25):
        check(client, demo.GREEN_CLEAN, ip="127.0.0.1")
    assert client.get("/api/v1/usage", REMOTE_ADDR="127.0.0.1", **keyed(raw)).status_code == 200


def test_the_report_page_renders_the_verdict_and_disclaimer(demo_world, client):
    response = client.get(f"/vessels/{demo.RED_OFAC}/report")
    assert response.status_code == 200
    html = response.content.decode()
    assert "RED" in html and "DEMO AURORA BLISS" in html
    assert "not navigation, safety, legal" in html
    assert "/signup" in html
    assert "<script" not in html and "http://" not in html.split("<body>")[0]
