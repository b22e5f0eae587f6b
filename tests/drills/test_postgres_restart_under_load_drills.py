"""Drill: the drill's PostgreSQL restarted (an immediate stop, like a crash) under load.

Sixteen keep-alive clients, each on an account of its own, send screenings (an Idempotency-Key
each) and keyed reads while PostgreSQL goes down for a few seconds and comes back. Expected, and
checked:

- every answer is a 2xx or a 503 in the JSON envelope with Retry-After: never a 500, an HTML page
  or a transport error (the gunicorn process is the same one throughout: nobody restarts it);
- once PostgreSQL is back, requests succeed again within RECOVERY_SECONDS, without a restart;
- a client resending every request that was not answered 2xx under its same Idempotency-Key ends
  with exactly one screening per key, and the units charged equal the screenings charged and the
  metering events: no record without its unit, no unit without its record, no key left running.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import pytest
import requests

from screening import demo
from tests.drills.extra import account_ids, is_retryable_503, issue_keys, keyed_headers

pytestmark = pytest.mark.slow

CLIENTS = 16
# Each client waits this long between its requests: at most 100 a minute on its key (the limit is
# 120).
PACE_SECONDS = 0.6
LOAD_BEFORE_SECONDS = 3
# Longer than the pool's 10 s wait for a connection: a shorter outage is ridden out (requests wait
# for the pool to reconnect and answer 2xx), which is good behaviour but lands no fault.
OUTAGE_SECONDS = 12
LOAD_AFTER_SECONDS = 12
RECOVERY_SECONDS = 10  # PostgreSQL back -> the first screening answered 201 again
HULLS = (demo.RED_OFAC, demo.AMBER_WATCHLIST, demo.GREEN_CLEAN, demo.GREEN_GRADE_C, demo.ENTITY_COLLISION)


@dataclass
class Answer:
    kind: str  # "screening" or "read"
    sent_at: float
    status: int | None  # None: a transport error
    retryable_503: bool = False
    detail: str = ""
    idempotency_key: str = ""
    body: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


class Client:
    """One keep-alive connection sending a screening, then a keyed read, until told to stop."""

    def __init__(self, base_url: str, key: str, index: int, stop: threading.Event) -> None:
        self.base_url, self.key, self.index, self.stop = base_url, key, index, stop
        self.session = requests.Session()
        self.answers: list[Answer] = []
        self.thread = threading.Thread(target=self.run, daemon=True)

    def _call(self, kind: str, method: str, path: str, body: dict | None = None, idem: str = "") -> Answer:
        sent_at = time.monotonic()
        try:
            response = self.session.request(
                method, f"{self.base_url}{path}", json=body, headers=keyed_headers(self.key, idem or None), timeout=60
            )
        except requests.RequestException as exc:
            return Answer(kind, sent_at, None, detail=repr(exc), idempotency_key=idem, body=body or {})
        parsed = {}
        if response.headers.get("Content-Type", "").startswith("application/json"):
            parsed = response.json()
        detail = (
            ""
            if response.ok
            else f"{response.status_code} {response.headers.get('Content-Type')} {response.text[:200]}"
        )
        answer = Answer(kind, sent_at, response.status_code, is_retryable_503(response), detail, idem, body or {})
        if response.status_code == 201:
            answer.body = {**(body or {}), "id": parsed["id"]}
        return answer

    def run(self) -> None:
        last_id = None
        sent = 0
        while not self.stop.is_set():
            sent += 1
            idem = f"pg-load-{self.index}-{sent}"
            body = {"imo": HULLS[(self.index + sent) % len(HULLS)], "customer_reference": idem}
            answer = self._call("screening", "POST", "/api/v1/screenings", body, idem)
            self.answers.append(answer)
            if answer.status == 201:
                last_id = answer.body["id"]
            time.sleep(PACE_SECONDS)
            read_path = f"/api/v1/screenings/{last_id}" if last_id else "/api/v1/usage"
            self.answers.append(self._call("read", "GET", read_path))
            time.sleep(PACE_SECONDS)


def resend_until_answered(base_url: str, key: str, answer: Answer, within: float = 60) -> requests.Response:
    """Resend a screening under its same Idempotency-Key as contract 7 rule 4 asks (honouring Retry-After)."""
    deadline = time.monotonic() + within
    while True:
        response = requests.post(
            f"{base_url}/api/v1/screenings",
            json={"imo": answer.body["imo"], "customer_reference": answer.body["customer_reference"]},
            headers=keyed_headers(key, answer.idempotency_key),
            timeout=60,
        )
        if response.status_code not in (409, 503) or time.monotonic() > deadline:
            return response
        time.sleep(int(response.headers.get("Retry-After", "1")))


def test_postgres_restarted_under_load_answers_only_2xx_or_retryable_503_and_loses_or_doubles_nothing(drill):
    keys = issue_keys(drill, CLIENTS, prefix="pg-load")
    accounts = "','".join(account_ids(drill, "pg-load"))
    server_pid = drill.server.pid
    stop = threading.Event()
    clients = [Client(drill.url, key, index, stop) for index, key in enumerate(keys)]
    for client in clients:
        client.thread.start()
    try:
        time.sleep(LOAD_BEFORE_SECONDS)
        drill.postgres.stop()  # immediate: every connection of the app's pool dies at once
        time.sleep(OUTAGE_SECONDS)
        drill.postgres.start()
        back_at = time.monotonic()
        time.sleep(LOAD_AFTER_SECONDS)
    finally:
        stop.set()
        for client in clients:
            client.thread.join(90)
    assert not any(client.thread.is_alive() for client in clients), "a client never got its answer"

    answers = [answer for client in clients for answer in client.answers]
    wrong = [a for a in answers if not (a.ok or a.retryable_503)]
    unavailable = [a for a in answers if a.retryable_503]
    summary = f"{len(answers)} answers, {len(unavailable)} retryable 503, wrong: {[a.detail for a in wrong][:5]}"
    assert not wrong, f"answers that are neither 2xx nor a retryable 503: {summary}"
    assert unavailable, f"the outage landed on no request, so the drill proved nothing: {summary}"
    assert drill.server.poll() is None and drill.server.pid == server_pid, "gunicorn was restarted"

    recovered = [
        a.sent_at - back_at for a in answers if a.kind == "screening" and a.status == 201 and a.sent_at > back_at
    ]
    assert recovered and min(recovered) < RECOVERY_SECONDS, (
        f"no 201 within {RECOVERY_SECONDS} s of the restart: {summary}"
    )
    late = [a for a in answers if a.sent_at > back_at + RECOVERY_SECONDS]
    assert late and all(a.ok for a in late), f"requests still failing {RECOVERY_SECONDS} s after the restart: {summary}"

    by_key = dict(zip((client.index for client in clients), keys, strict=True))
    screenings = [(client.index, a) for client in clients for a in client.answers if a.kind == "screening"]
    for index, answer in screenings:
        if answer.status != 201:
            retried = resend_until_answered(drill.url, by_key[index], answer)
            assert retried.status_code == 201, f"{answer.idempotency_key}: {retried.status_code} {retried.text[:300]}"
            answer.body["id"] = retried.json()["id"]

    rows = drill.postgres.sql(
        "SELECT customer_reference, count(*), array_agg(id), bool_and(unit_charged) FROM screening_screening "
        f"WHERE account_id IN ('{accounts}') GROUP BY customer_reference"
    )
    records = {reference: (count, ids, charged) for reference, count, ids, charged in rows}
    sent_keys = {answer.idempotency_key: answer.body["id"] for _, answer in screenings}
    assert set(records) == set(sent_keys), "a screening without its request, or a request without its screening"
    doubles = {reference: count for reference, (count, _, _) in records.items() if count != 1}
    assert not doubles, f"keys with more than one screening: {doubles}"
    assert all(ids == [sent_keys[reference]] for reference, (_, ids, _) in records.items()), (
        "an answer names a screening other than the one stored under its key"
    )

    charged = sum(1 for _, _, flag in records.values() if flag)
    (units,) = drill.postgres.sql(
        "SELECT coalesce(sum(used), 0) FROM accounts_quotacounter "
        f"WHERE account_id IN ('{accounts}') AND kind = 'screening'"
    )[0]
    (events,) = drill.postgres.sql(
        "SELECT coalesce(sum(units), 0) FROM accounts_meteringevent "
        f"WHERE account_id IN ('{accounts}') AND kind = 'screening'"
    )[0]
    (stuck,) = drill.postgres.sql(
        f"SELECT count(*) FROM accounts_idempotencyrecord WHERE account_id IN ('{accounts}') AND state <> 'completed'"
    )[0]
    assert charged == len(records), "every hull of this drill gives a verdict, so every screening is charged"
    assert units == events == charged, f"units {units}, metering events {events}, charged screenings {charged}"
    assert stuck == 0, f"{stuck} idempotency keys left running"
