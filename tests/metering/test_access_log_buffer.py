"""The access log's backlog: bounded, counted when it drops, and rewritten without duplicates.

The backlog is exercised directly (a fresh one per test, no writer thread); writes go to the
test database for real.
"""

from __future__ import annotations

import logging

import pytest
from django.utils import timezone

from accounts.models import Account
from core.api.ids import new_id
from metering import access_log
from metering.access_log import Backlog
from metering.models import AccessLogEntry

pytestmark = pytest.mark.django_db


@pytest.fixture
def account_id(issue_key) -> str:
    issue_key("test", email="backlog@example.com")
    return Account.objects.get(email="backlog@example.com").id


def _entry(account_id: str, n: int, status: int = 200) -> AccessLogEntry:
    return AccessLogEntry(
        id=new_id("log"),
        account_id=account_id,
        environment="test",
        at=timezone.now(),
        method="GET",
        path="/api/v1/usage",
        status=status,
        code="",
        request_id=f"req-backlog-{n:04d}",
        key_prefix="svc_test_abc",
        client_ip="127.0.0.1",
        duration_ms=1.0,
        units_charged=0,
    )


def _request_ids(entries) -> list[str]:
    return [entry.request_id for entry in entries]


def test_past_the_bound_the_oldest_are_dropped_counted_and_logged_once(account_id, caplog):
    backlog = Backlog(max_pending=5)
    entries = [_entry(account_id, n) for n in range(8)]
    with caplog.at_level(logging.WARNING, logger="service.access_log"):
        for entry in entries:
            backlog.put(entry)
    assert backlog.stats() == {"pending": 5, "dropped": 3, "rejected": 0}
    full = [r for r in caplog.records if "backlog full" in r.getMessage()]
    assert len(full) == 1, "dropping is logged when it starts, not once per entry"

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="service.access_log"):
        assert access_log.flush(backlog) == 5
    assert sorted(AccessLogEntry.objects.values_list("request_id", flat=True)) == _request_ids(entries[3:])
    assert backlog.stats() == {"pending": 0, "dropped": 3, "rejected": 0}
    again = [r.getMessage() for r in caplog.records if "writing again" in r.getMessage()]
    assert again == ["access log writing again: 3 entries were dropped while the backlog was full (3 dropped in all)"]


def test_the_bound_is_the_setting(settings, account_id):
    settings.ACCESS_LOG_MAX_PENDING = 2
    backlog = Backlog()
    for n in range(5):
        backlog.put(_entry(account_id, n))
    assert backlog.stats()["pending"] == 2 and backlog.stats()["dropped"] == 3


def test_a_batch_given_back_keeps_its_place_and_the_bound(account_id):
    backlog = Backlog(max_pending=6)
    entries = [_entry(account_id, n) for n in range(8)]
    for entry in entries[:4]:
        backlog.put(entry)
    batch = backlog.take(3)  # the write of these fails...
    for entry in entries[4:]:
        backlog.put(entry)  # ...while new entries arrive
    backlog.give_back(batch)
    assert backlog.stats() == {"pending": 6, "dropped": 2, "rejected": 0}
    assert _request_ids(backlog.take(10)) == _request_ids(entries[2:]), "oldest dropped first, order kept"


def test_rewriting_a_partly_written_batch_creates_no_duplicates(account_id):
    entries = [_entry(account_id, n) for n in range(6)]
    backlog = Backlog(max_pending=100)
    for entry in entries:
        backlog.put(entry)
    batch = backlog.take(access_log.BATCH)
    # The attempt wrote part of the batch before the connection went; the batch goes back.
    AccessLogEntry.objects.bulk_create(batch[:3])
    backlog.give_back(batch)
    assert access_log.flush(backlog) == 6
    # Once more, as if the answer to a complete write had been lost.
    backlog.give_back(entries)
    assert access_log.flush(backlog) == 6
    ids = list(AccessLogEntry.objects.values_list("id", flat=True))
    assert sorted(ids) == sorted(entry.id for entry in entries)
    assert backlog.stats() == {"pending": 0, "dropped": 0, "rejected": 0}


def test_an_entry_already_written_is_not_counted_as_refused_even_unmarked(account_id):
    entries = [_entry(account_id, n) for n in range(4)]
    AccessLogEntry.objects.bulk_create(entries[:2])
    backlog = Backlog(max_pending=100)
    for entry in entries:
        backlog.put(entry)
    access_log.flush(backlog)
    assert AccessLogEntry.objects.count() == 4
    assert backlog.stats() == {"pending": 0, "dropped": 0, "rejected": 0}


def test_an_entry_the_database_refuses_is_set_aside_and_counted_without_holding_back_the_rest(account_id, caplog):
    entries = [_entry(account_id, 0), _entry(account_id, 1, status=-1), _entry(account_id, 2)]
    backlog = Backlog(max_pending=100)
    for entry in entries:
        backlog.put(entry)
    with caplog.at_level(logging.ERROR, logger="service.access_log"):
        access_log.flush(backlog)
    assert sorted(AccessLogEntry.objects.values_list("request_id", flat=True)) == [
        "req-backlog-0000",
        "req-backlog-0002",
    ]
    assert backlog.stats() == {"pending": 0, "dropped": 0, "rejected": 1}
    assert any("req-backlog-0001" in r.getMessage() and "set aside" in r.getMessage() for r in caplog.records)
