"""Issue 19, items 1 to 3, drilled on the production shape: a committed answer is never charged
twice under one Idempotency-Key, a failed request never leaves its key stuck, and outages of
PostgreSQL or Redis answer a retryable 503 (or keep working) instead of a 500."""

from __future__ import annotations

import itertools
import threading
import time

import pytest

from screening.demo import imo_from_stem

pytestmark = pytest.mark.slow

_stems = itertools.count(971_000 + (int(time.time()) % 500) * 20)


def fresh_imo() -> str:
    """A valid IMO no store names, so the screening waits on the gated live register."""
    return imo_from_stem(next(_stems))


class InFlight:
    """A POST /api/v1/screenings running in a thread while the test lands a fault."""

    def __init__(self, drill, imo: str, key: str) -> None:
        self.response = None
        self.error: BaseException | None = None

        def run() -> None:
            try:
                self.response = drill.post("/api/v1/screenings", {"imo": imo}, key)
            except BaseException as exc:  # noqa: BLE001 - reported by result()
                self.error = exc

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def result(self, timeout: float = 90):  # type: ignore[no-untyped-def]
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the screening request never answered"
        if self.error is not None:
            raise self.error
        return self.response


def retry_like_a_client(drill, imo: str, key: str, within: float = 30.0):  # type: ignore[no-untyped-def]
    """Resend under the same key as contract 7 rule 4 asks: honour Retry-After on 503 and 409
    idempotency_in_progress. A key left stuck would keep answering 409 for minutes."""
    deadline = time.monotonic() + within
    while True:
        response = drill.post("/api/v1/screenings", {"imo": imo}, key)
        if response.status_code not in (409, 503) or time.monotonic() > deadline:
            return response
        assert response.json()["code"] in {"service_unavailable", "idempotency_in_progress"}, response.text
        time.sleep(int(response.headers.get("Retry-After", "1")))


def screenings_of(drill, imo: str) -> int:
    return drill.postgres.sql(f"SELECT count(*) FROM screening_screening WHERE imo = '{imo}'")[0][0]


def wait_for_lock_wait(drill, timeout: float = 30) -> None:
    """Until some backend of the app waits on a row lock (the one the test holds)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = drill.postgres.sql("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
        if rows[0][0]:
            return
        time.sleep(0.05)
    raise AssertionError("the request never reached the locked idempotency row")


def test_redis_dying_after_the_commit_still_answers_and_the_retry_replays_without_a_second_charge(drill):
    imo, key = fresh_imo(), "drill-redis-after-commit"
    before = drill.units_used()
    drill.gate.close()
    flight = InFlight(drill, imo, key)
    drill.gate.wait_arrival()
    drill.redis.stop()  # the in-flight slots live in Redis; their release comes after the commit
    drill.gate.open()
    first = flight.result()
    assert first.status_code == 201, first.text
    drill.redis.start()
    retry = drill.post("/api/v1/screenings", {"imo": imo}, key)
    assert retry.status_code == 201
    assert retry.headers.get("X-Service-Idempotent-Replay") == "true"
    assert retry.json()["id"] == first.json()["id"]
    assert drill.units_used() - before == 1
    assert screenings_of(drill, imo) == 1


def test_postgres_restarting_while_the_answer_is_stored_charges_once_and_the_retry_runs_at_once(drill):
    import psycopg

    imo, key = fresh_imo(), "drill-pg-while-completing"
    before = drill.units_used()
    drill.gate.close()
    flight = InFlight(drill, imo, key)
    drill.gate.wait_arrival()
    # Hold the key's row so the write of the stored answer blocks, then restart PostgreSQL under it.
    holder = psycopg.connect(drill.postgres.url)
    holder.execute(f"SELECT 1 FROM accounts_idempotencyrecord WHERE key = '{key}' FOR UPDATE")
    drill.gate.open()
    wait_for_lock_wait(drill)
    drill.postgres.stop()
    first = flight.result()
    drill.postgres.start()
    try:
        holder.close()
    except Exception:  # noqa: BLE001 - its server is gone
        pass
    assert first.status_code == 503, first.text
    assert first.json()["code"] == "service_unavailable"
    assert int(first.headers["Retry-After"]) > 0
    retry = retry_like_a_client(drill, imo, key)
    assert retry.status_code == 201, retry.text
    again = drill.post("/api/v1/screenings", {"imo": imo}, key)
    assert again.headers.get("X-Service-Idempotent-Replay") == "true"
    assert again.json()["id"] == retry.json()["id"]
    assert drill.units_used() - before == 1
    assert screenings_of(drill, imo) == 1


def test_a_request_failed_by_a_database_restart_releases_its_key_so_the_retry_runs_at_once(drill):
    imo, key = fresh_imo(), "drill-pg-before-commit"
    before = drill.units_used()
    drill.gate.close()
    flight = InFlight(drill, imo, key)
    drill.gate.wait_arrival()
    drill.postgres.stop()  # the request's connection dies under it
    drill.postgres.start()
    drill.gate.open()
    first = flight.result()
    assert first.status_code == 503, first.text
    assert "Retry-After" in first.headers
    assert "X-RateLimit-Limit" in first.headers  # the rate limiter answered before the fault
    retry = retry_like_a_client(drill, imo, key)  # a stuck key would answer 409 until it goes stale
    assert retry.status_code == 201, retry.text
    assert retry.headers.get("X-Service-Idempotent-Replay") is None
    assert drill.units_used() - before == 1
    stuck = drill.postgres.sql("SELECT count(*) FROM accounts_idempotencyrecord WHERE state = 'running'")
    assert stuck[0][0] == 0


def test_with_redis_down_the_keyed_api_keeps_answering_from_the_database(drill):
    drill.redis.stop()
    usage = drill.get("/api/v1/usage")
    assert usage.status_code == 200, usage.text
    assert usage.headers["X-RateLimit-Limit"] == "120"
    screened = drill.post("/api/v1/screenings", {"imo": imo_from_stem(930011)}, "drill-redis-down-screening")
    assert screened.status_code == 201, screened.text
    replay = drill.post("/api/v1/screenings", {"imo": imo_from_stem(930011)}, "drill-redis-down-screening")
    assert replay.headers.get("X-Service-Idempotent-Replay") == "true"
    check = drill.get("/api/v1/vessels/9300116/check")
    assert check.status_code in {200, 429}, check.text


def test_with_postgres_down_keyed_reads_answer_503_with_retry_after_and_rate_headers(drill):
    assert drill.get("/api/v1/usage").status_code == 200  # the key is now in the Redis key cache
    drill.postgres.stop()
    try:
        down = drill.get("/api/v1/usage")
        assert down.status_code == 503, down.text
        body = down.json()
        assert body["code"] == "service_unavailable" and body["request_id"]
        assert int(down.headers["Retry-After"]) > 0
        assert down.headers["X-RateLimit-Limit"] == "120"
        health = drill.get("/healthz")
        assert health.status_code == 200
    finally:
        drill.postgres.start()
    assert drill.get("/api/v1/usage").status_code == 200
