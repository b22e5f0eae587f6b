"""The evidence pack of a screening (issue 28 part 2): JSON with a verifiable hash, the editions in force
at the screening, the decisions shown; the same as a PDF; tenancy."""

from __future__ import annotations

import hashlib
import io
import json

import pytest
from pypdf import PdfReader

from screening import demo, refresh
from screening.evidence import canonical_json
from screening.models import Screening, SourceSnapshot
from tests.screening.api.test_match_decisions import _decide, _edition

pytestmark = pytest.mark.django_db


def _pack(client, keyed, raw: str, screening_id: str, **headers):  # type: ignore[no-untyped-def]
    return client.get(f"/api/v1/screenings/{screening_id}/evidence", **keyed(raw), **headers)


def test_the_pack_holds_the_record_as_issued_the_editions_in_force_and_the_decisions_under_one_hash(
    key,
    send,
    screen,
    client,
    keyed,
):
    assert refresh.load_files("ofac_sdn", _edition("SDGT"), origin="test").status == "loaded"
    first_edition = SourceSnapshot.objects.get(source="ofac_sdn", status=SourceSnapshot.Status.ACTIVE)
    decision = _decide(send, key).json()
    screened = screen(key, demo.AMBER_NAME_ONLY).json()
    assert refresh.load_files("ofac_sdn", _edition("SDGT] [IRAN"), origin="test").status == "loaded"  # later

    response = _pack(client, keyed, key, screened["id"])
    assert response.status_code == 200 and response["Content-Type"].startswith("application/json")
    pack = response.json()
    stored = bytes(Screening.objects.get(pk=screened["id"]).document)
    assert pack["record"] == json.loads(stored) == screened
    assert pack["record_sha256"] == hashlib.sha256(stored).hexdigest()
    unsigned = {name: value for name, value in pack.items() if name != "sha256"}
    assert pack["sha256"] == hashlib.sha256(canonical_json(unsigned)).hexdigest()
    (ofac,) = [edition for edition in pack["list_editions"] if edition["source"] == "ofac_sdn"]
    assert ofac["snapshot_id"] == first_edition.pk  # the edition in force then, not the later one
    assert ofac["file_sha256"] == first_edition.checksum and ofac["record_count"] == first_edition.row_count
    assert {"service_vessel_register", "un_sanctions"} <= {edition["source"] for edition in pack["list_editions"]}
    assert [d["id"] for d in pack["decisions"]] == [decision["id"]]
    assert pack["decisions"][0]["state"] == "lapsed"  # its listing changed in the later edition
    assert pack["thresholds"]["vessel_name_cutoff"] == 90.0 and pack["engine_version"] == screened["engine_version"]


def test_the_pdf_lays_out_the_pack_with_its_hash_and_nothing_cut_off(key, send, screen, client, keyed):
    _decide(send, key)
    screened = screen(key, demo.AMBER_NAME_ONLY).json()
    pack = _pack(client, keyed, key, screened["id"]).json()

    response = _pack(client, keyed, key, screened["id"], HTTP_ACCEPT="application/pdf")
    if response.status_code == 503:
        pytest.skip(response.json()["message"])
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    document = PdfReader(io.BytesIO(response.content))
    text = "".join(page.extract_text() for page in document.pages)
    flat = "".join(text.split())
    assert len(document.pages) >= 2  # paginated, with a footer on every page
    for page in document.pages:
        assert pack["sha256"][:16] in "".join(page.extract_text().split())
    assert pack["sha256"] in flat and pack["record_sha256"] in flat
    for shown in (demo.AMBER_NAME_ONLY, "AMBER", "DEMO SILVER TIDE", "a.analyst", screened["sanctions"]["detail"]):
        assert "".join(shown.split()) in flat, shown


def test_another_environments_or_accounts_record_is_404_as_json_and_as_pdf(key, screen, client, keyed, issue_key):
    screened = screen(key, demo.GREEN_CLEAN).json()
    for other in (issue_key("live", email="reviewer@example.com"), issue_key("test", email="else@example.com")):
        assert _pack(client, keyed, other, screened["id"]).status_code == 404
        refused = _pack(client, keyed, other, screened["id"], HTTP_ACCEPT="application/pdf")
        assert refused.status_code == 404 and refused.json()["code"] == "not_found"
