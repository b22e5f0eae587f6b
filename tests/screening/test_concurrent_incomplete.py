"""Concurrent screenings of one unresolved hull (issue 25 item 2): each answers 201 with a correct
INCOMPLETE, and the account keeps exactly one open follow-up, pointing at its newest record.

Before the fix, requests that all found no open follow-up raced to insert one and every loser
answered 500 on the one-open-follow-up constraint (33 of 60 on PostgreSQL). Served as production
serves the API (gunicorn, several processes with threads) over real HTTP.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request

import pytest

from screening import demo
from screening.models import FollowUp, Screening
from tests.support.server import running_service

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

ROUNDS = 10
AT_ONCE = 6


def _screen_at_once(url: str, raw_key: str, round_number: int) -> list[tuple[int, dict]]:
    start = threading.Barrier(AT_ONCE)
    answers: list[tuple[int, dict]] = []
    lock = threading.Lock()

    def send(index: int) -> None:
        request = urllib.request.Request(
            f"{url}/api/v1/screenings",
            data=json.dumps({"imo": demo.INCOMPLETE_IDENTITY}).encode(),
            headers={
                "Authorization": f"Bearer {raw_key}",
                "Content-Type": "application/json",
                "Idempotency-Key": f"round-{round_number}-{index}",
            },
            method="POST",
        )
        start.wait()
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                answer = (response.status, json.loads(response.read()))
        except urllib.error.HTTPError as refused:
            answer = (refused.code, json.loads(refused.read() or b"{}"))
        with lock:
            answers.append(answer)

    threads = [threading.Thread(target=send, args=(index,)) for index in range(AT_ONCE)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_concurrent_screenings_of_one_unresolved_hull_each_answer_incomplete_with_one_open_follow_up(
    demo_world, issue_key
):
    keys = [issue_key("test", email=f"race{n}@example.com") for n in range(ROUNDS)]
    failures = []
    with running_service({"GUNICORN_THREADS": "4"}, timeout=90, server="gunicorn", workers=2) as url:
        for round_number, raw_key in enumerate(keys):
            for status, body in _screen_at_once(url, raw_key, round_number):
                if status != 201:
                    failures.append((status, body))
                else:
                    assert body["sanctions"]["status"] == "INCOMPLETE"
                    assert body["unit_charged"] is False
                    assert body["resolution"]["status"] == "pending"
    assert failures == [], f"{len(failures)} of {ROUNDS * AT_ONCE} failed: {failures[:3]}"
    for account_id in Screening.objects.values_list("account_id", flat=True).distinct():
        records = Screening.objects.filter(account_id=account_id).order_by("-screened_at", "-id")
        assert records.count() == AT_ONCE
        open_follow_ups = list(FollowUp.objects.filter(account_id=account_id, status=FollowUp.Status.PENDING))
        assert len(open_follow_ups) == 1
        # Every record of the account is on that one follow-up.
        assert set(records.values_list("follow_up_id", flat=True)) == {open_follow_ups[0].pk}
