"""Polling the publishers (screening/polling.py) against a real HTTP server on 127.0.0.1 that
serves the OFAC CSV set (SDN.CSV, ALT.CSV, ADD.CSV) with ETag and Last-Modified and answers 304
to a request that names the copy it serves."""

from __future__ import annotations

import hashlib
import threading
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.db.models import Q
from django.utils import timezone

from screening import feeds, polling, refresh
from screening.models import ListedEntry, SourceFeed, SourceSnapshot
from screening.sources import catalog

FIXTURES = Path(__file__).parent / "sources" / "fixtures"
OFAC = refresh.source_for("ofac_sdn", None)
PARTS = ("sdn", "alt", "add")

SDN_V1 = (
    b'4243,"EBANO","vessel","CUBA",-0- ,-0- ,"General Cargo","2595","1865","Panama",-0- ,'
    b"\"Vessel Registration Identification IMO 7406784; f.k.a. 'ANA I'.\"\n"
    b'4249,"TIFON","vessel","CUBA",-0- ,"CL2059","Tug",-0- ,"189","Cuba",-0- ,'
    b'"Vessel Registration Identification IMO 7206512."\n'
    b'306,"BANCO NACIONAL DE CUBA","-0- ","CUBA",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"a.k.a. \'BNC\'."\n'
)
SDN_V2 = SDN_V1 + (
    b'9001,"POLLED NEW HULL","vessel","IRAN",-0- ,-0- ,"Crude Oil Tanker",-0- ,-0- ,"Panama",-0- ,'
    b'"Vessel Registration Identification IMO 9074729."\n'
)
ALT = b'306,219,"aka","NATIONAL BANK OF CUBA",-0- \n'
ADD = b'306,200,"Calle 1","La Habana",-0- ,"Cuba",-0- \n'
PUBLISHED = datetime(2026, 11, 24, 17, 30, tzinfo=UTC)

pytestmark = pytest.mark.django_db


class Publisher:
    """Files by path with their ETag and Last-Modified; every request is kept (path, headers).

    mode "ok" serves; "error" answers 503; "hang" answers nothing for `hang_seconds`. With `gate`
    set, each GET waits until it opens.
    """

    def __init__(self) -> None:
        self.files: dict[str, tuple[bytes, str, str]] = {}
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.mode = "ok"
        self.hang_seconds = 2.0
        self.gate: threading.Event | None = None
        self.arrived = threading.Event()
        publisher = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_GET(self):  # noqa: N802 - http.server's naming
                publisher.requests.append((self.path, dict(self.headers.items())))
                publisher.arrived.set()
                if publisher.gate is not None:
                    publisher.gate.wait(10)
                if publisher.mode == "error":
                    return self._answer(503, b"down for maintenance")
                if publisher.mode == "hang":
                    time.sleep(publisher.hang_seconds)
                body, etag, modified = publisher.files[self.path]
                none_match = self.headers.get("If-None-Match")
                since = self.headers.get("If-Modified-Since")
                if (none_match and none_match == etag) or (
                    not none_match and since and parsedate_to_datetime(modified) <= parsedate_to_datetime(since)
                ):
                    return self._answer(304, b"", etag=etag, modified=modified)
                return self._answer(200, body, etag=etag, modified=modified)

            def _answer(self, status, body, etag=None, modified=None):
                self.send_response(status)
                if etag:
                    self.send_header("ETag", etag)
                if modified:
                    self.send_header("Last-Modified", modified)
                if status != 304:
                    self.send_header("Content-Type", "text/csv")
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def publish(self, path: str, body: bytes, modified: datetime = PUBLISHED) -> None:
        etag = f'"{hashlib.sha256(body).hexdigest()[:16]}"'
        self.files[path] = (body, etag, format_datetime(modified, usegmt=True))

    def asked(self, path: str) -> list[dict[str, str]]:
        return [headers for asked, headers in self.requests if asked == path]


@pytest.fixture
def publisher(settings, monkeypatch):
    settings.OUTBOUND_ALLOW_LOOPBACK = True  # the publisher here is served on 127.0.0.1
    monkeypatch.setattr(polling, "POLL_ATTEMPTS", 1)  # no retry within a poll: the next poll is the retry
    server = Publisher()
    for part, body in zip(PARTS, (SDN_V1, ALT, ADD), strict=True):
        server.publish(f"/{part.upper()}.CSV", body)
        monkeypatch.setenv(f"SOURCE_URL_OFAC_SDN_{part.upper()}", f"{server.url}/{part.upper()}.CSV")
    yield server
    server.server.shutdown()
    server.server.server_close()


def listings() -> list[dict]:
    return [entry.record for entry in ListedEntry.objects.filter(snapshot=active())]


def feed() -> SourceFeed:
    return SourceFeed.objects.get(source="ofac_sdn", edition="")


def active() -> SourceSnapshot:
    return SourceSnapshot.objects.get(source="ofac_sdn", status=SourceSnapshot.Status.ACTIVE)


def test_the_first_poll_loads_the_set_and_keeps_each_files_validators(publisher):
    outcome = polling.poll_source(OFAC)
    assert outcome.status == "loaded", outcome
    assert active().row_count == 3
    assert "7406784" in {record.get("imo") for record in listings()}
    held = feed()
    assert set(held.validators) == set(PARTS)
    for part in PARTS:
        _body, etag, modified = publisher.files[f"/{part.upper()}.CSV"]
        assert held.validators[part] == {"etag": etag, "last_modified": modified}
    assert held.status == SourceFeed.Status.IDLE and held.lease_expires_at is None and held.claims == 1
    assert held.checked_at is not None and held.last_error == ""
    # The first poll held nothing: it asked for every file unconditionally.
    assert all("If-None-Match" not in headers for _path, headers in publisher.requests)


def test_an_unchanged_set_costs_a_304_per_file_and_no_parsing(publisher, monkeypatch):
    polling.poll_source(OFAC)
    first_check = feed().checked_at
    snapshots = SourceSnapshot.objects.count()
    publisher.requests.clear()

    def must_not_parse(files):
        raise AssertionError("a 304 must not be parsed")

    monkeypatch.setitem(catalog.PARSERS, "ofac", must_not_parse)
    later = timezone.now() + timedelta(minutes=10)
    outcome = polling.poll_source(OFAC, now=later)

    assert outcome.status == "not_modified", outcome
    assert len(publisher.requests) == 3  # one conditional GET per file, nothing fetched again
    for part in PARTS:
        (headers,) = publisher.asked(f"/{part.upper()}.CSV")
        _body, etag, modified = publisher.files[f"/{part.upper()}.CSV"]
        assert headers["If-None-Match"] == etag and headers["If-Modified-Since"] == modified
    assert SourceSnapshot.objects.count() == snapshots
    assert feed().checked_at == later > first_check


def test_a_changed_file_is_loaded_and_the_unchanged_parts_are_fetched_again_in_full(publisher):
    polling.poll_source(OFAC)
    first = active()
    publisher.requests.clear()
    publisher.publish("/SDN.CSV", SDN_V2, PUBLISHED + timedelta(days=1))

    outcome = polling.poll_source(OFAC)

    assert outcome.status == "loaded", outcome
    assert "+1 / -0" in outcome.detail
    latest = active()
    assert latest.pk != first.pk and latest.row_count == 4
    by_name = {record["name"]: record for record in listings()}
    assert by_name["POLLED NEW HULL"]["imo"] == "9074729"
    # ALT.CSV answered 304 at first; it was fetched again in full and read.
    assert by_name["BANCO NACIONAL DE CUBA"]["aliases"][0] == "NATIONAL BANK OF CUBA"
    conditional, full = publisher.asked("/ALT.CSV")
    assert "If-None-Match" in conditional and "If-None-Match" not in full
    assert len(publisher.asked("/SDN.CSV")) == 1
    assert feed().validators["sdn"]["etag"] == publisher.files["/SDN.CSV"][1]
    assert latest.published_at == PUBLISHED + timedelta(days=1)  # the newest Last-Modified of the set


@pytest.mark.parametrize("mode", ["error", "hang", "refused"])
def test_a_failed_poll_leaves_the_source_as_it_was_and_the_next_poll_tries_again(publisher, monkeypatch, mode):
    monkeypatch.setattr(polling, "POLL_TIMEOUT_SECONDS", 0.3)
    polling.poll_source(OFAC)
    before, held = active(), feed()
    snapshots = SourceSnapshot.objects.count()
    publisher.publish("/SDN.CSV", SDN_V2, PUBLISHED + timedelta(days=1))
    if mode == "refused":  # nobody listening on the port any more
        publisher.server.shutdown()
        publisher.server.server_close()
    else:
        publisher.mode = mode

    outcome = polling.poll_source(OFAC, now=timezone.now() + timedelta(minutes=10))

    assert outcome.status == "failed", outcome
    after = feed()
    assert active() == before and SourceSnapshot.objects.count() == snapshots  # no failed snapshot per poll
    assert after.checked_at == held.checked_at and after.validators == held.validators
    assert after.last_error.startswith("poll of sdn failed") and after.attempted_at > held.checked_at
    assert after.status == SourceFeed.Status.IDLE and after.lease_expires_at is None

    if mode == "refused":
        return
    publisher.mode = "ok"
    retried = polling.poll_source(OFAC)
    assert retried.status == "loaded", retried
    assert active().row_count == 4 and feed().last_error == ""


def test_a_refused_file_is_recorded_and_its_validators_are_not_kept(publisher):
    polling.poll_source(OFAC)
    held = feed().validators
    truncated = SDN_V1.splitlines(keepends=True)[2]  # one row of three: the shrink guard refuses it
    publisher.publish("/SDN.CSV", truncated, PUBLISHED + timedelta(days=1))

    outcome = polling.poll_source(OFAC)

    assert outcome.status == "failed" and "refused" in outcome.detail
    assert active().row_count == 3
    assert SourceSnapshot.objects.filter(source="ofac_sdn", status=SourceSnapshot.Status.FAILED).count() == 1
    assert feed().validators == held and "refused" in feed().last_error
    publisher.requests.clear()
    again = polling.poll_source(OFAC)  # still the refused file: fetched again, not taken for the copy held
    assert [h.get("If-None-Match") for h in publisher.asked("/SDN.CSV")] == [held["sdn"]["etag"]]
    assert publisher.asked("/SDN.CSV") and len(publisher.requests) == 5  # 3 conditional + ALT and ADD in full
    # ... but the same bytes are not loaded and recorded again each poll (every process would re-read the lists)
    assert again.status == "failed" and "refused before" in again.detail
    assert SourceSnapshot.objects.filter(source="ofac_sdn", status=SourceSnapshot.Status.FAILED).count() == 1
    publisher.publish("/SDN.CSV", SDN_V1, PUBLISHED + timedelta(days=2))  # the publisher fixes its file
    fixed = polling.poll_source(OFAC)
    assert fixed.status == "not_modified" and feed().refused_checksum == ""  # the copy held is served again


@pytest.mark.django_db(transaction=True)
def test_two_polls_at_once_one_does_the_work(publisher):
    publisher.gate = threading.Event()
    outcomes = {}

    def first_poll():
        try:
            outcomes["first"] = polling.poll_source(OFAC)
        finally:
            from django.db import connection

            connection.close()

    worker = threading.Thread(target=first_poll)
    worker.start()
    try:
        assert publisher.arrived.wait(10)  # the first poll holds the source and is downloading
        assert feed().status == SourceFeed.Status.POLLING
        outcomes["second"] = polling.poll_source(OFAC)
    finally:
        publisher.gate.set()
        worker.join(30)
    assert outcomes["second"].status == "busy"
    assert outcomes["first"].status == "loaded"
    assert len(publisher.requests) == 3  # the second poll asked for nothing
    assert SourceSnapshot.objects.filter(source="ofac_sdn").count() == 1
    assert feed().status == SourceFeed.Status.IDLE and feed().claims == 1


def test_a_lapsed_lease_is_taken_over(publisher):
    now = timezone.now()
    held = feeds.feed_for("ofac_sdn")
    assert polling.LEASE.claim(Q(pk=held.pk), now)  # a poll whose worker died
    assert polling.poll_source(OFAC, now=now + timedelta(seconds=60)).status == "busy"
    assert not publisher.requests

    lapsed = now + timedelta(seconds=polling.POLL_LEASE_SECONDS + 1)
    assert polling.poll_source(OFAC, now=lapsed).status == "loaded"
    assert feed().claims == held.claims + 2 and feed().status == SourceFeed.Status.IDLE


def test_the_last_modified_date_is_the_edition_date_of_a_file_that_stamps_none(publisher):
    polling.poll_source(OFAC)
    assert active().published_at == PUBLISHED  # SDN.CSV carries no date of its own


def test_a_date_the_file_stamps_wins_over_last_modified(publisher, monkeypatch):
    publisher.publish("/eu_fsf.xml", (FIXTURES / "eu_fsf.xml").read_bytes(), PUBLISHED)
    monkeypatch.setenv("SOURCE_URL_EU_SANCTIONS_EU_FSF", f"{publisher.url}/eu_fsf.xml")
    source = refresh.source_for("eu_sanctions", "eu_fsf")
    assert source in polling.polled_sources()  # a URL set by the operator makes the EU file polled
    assert polling.poll_source(source).status == "loaded"
    snapshot = SourceSnapshot.objects.get(source="eu_sanctions", edition="eu_fsf", status="active")
    assert snapshot.published_at == datetime(2026, 11, 20, 7, 0, tzinfo=UTC)  # generationDate, not Last-Modified


def test_a_source_without_a_url_is_not_polled(db, monkeypatch):
    monkeypatch.delenv("SOURCE_URL_EU_SANCTIONS_EU_FSF", raising=False)
    names = {(s.name, s.edition) for s in polling.polled_sources()}
    assert ("ofac_sdn", "") in names and ("uk_sanctions", "") in names
    assert ("eu_sanctions", "eu_fsf") not in names and ("ua_war_sanctions", "") not in names
    outcome = polling.poll_source(refresh.source_for("ua_war_sanctions", None))
    assert outcome.status == "not_configured"
    assert not SourceFeed.objects.exists()


def test_beat_polls_every_source_poll_seconds_and_the_full_refresh_stays(settings):
    import screening.tasks  # noqa: F401  (registers the tasks)
    from config.celery import app

    entry = settings.CELERY_BEAT_SCHEDULE["poll-sources"]
    assert entry == {"task": "screening.poll_sources", "schedule": float(settings.SOURCE_POLL_SECONDS)}
    assert settings.SOURCE_POLL_SECONDS == 600
    assert "refresh-sources-daily" not in settings.CELERY_BEAT_SCHEDULE
    assert {"screening.poll_sources", "screening.poll_source", "screening.refresh_sources"} <= set(app.tasks)


def test_the_beat_task_sends_one_poll_per_polled_source(db, monkeypatch):
    sent = []

    class Task:
        def delay(self, *arguments):
            sent.append(arguments)

    monkeypatch.setattr(polling, "task_named", lambda name: Task() if name == polling.POLL_TASK else None)
    from screening.tasks import poll_sources

    assert poll_sources() == len(sent) == len(polling.polled_sources())
    assert ("ofac_sdn", "") in sent


def test_a_manual_refresh_keeps_the_validators_so_the_next_poll_is_a_304(publisher):
    outcome = refresh.refresh_source(OFAC)
    assert outcome.status == "loaded"
    publisher.requests.clear()
    assert polling.poll_source(OFAC).status == "not_modified"
    assert all(headers.get("If-None-Match") for _path, headers in publisher.requests)
