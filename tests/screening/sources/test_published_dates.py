"""Every format that stamps its publication time gives it to the edition (issue 27, part 1).

Each format is read from a small file in its real layout (so the test runs without shared data)
and, where ../shared/data holds a real copy, from that copy too. Formats that carry no date say
so: their edition's publication time stays unknown (None), never the load time.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from screening.sources.aggregated import parse_ftm_jsonl, parse_maritime_csv
from screening.sources.eu import parse_fsf_xml
from screening.sources.ofac import parse_sdn_csv, parse_sdn_xml
from screening.sources.uk import parse_uk_csv
from screening.sources.un import parse_consolidated_xml

FIXTURES = Path(__file__).parent / "fixtures"

UK_HEADER = (
    "Last Updated,Unique ID,OFSI Group ID,UN Reference Number,Name 6,Name 1,Name 2,Name 3,Name 4,Name 5,"
    "Name type,Alias strength,Title,Name non-latin script,Regime Name,Designation Type,Date Designated,"
    "IMO number,Current believed flag of ship,Previous flags,Current owner/operator (s)"
)
UK_ROW = (
    '20/11/2026,RUS1234,17000,,"FIXTURE CARRIER",,,,,,Primary name,,,,Russia,Ship,09/05/2024,'
    "9074729,Panama,,Fixture Shipping Ltd"
)


# --- OFAC ---------------------------------------------------------------------------------------


def test_ofac_sdn_xml_publish_date_is_the_edition_date():
    parsed = parse_sdn_xml((FIXTURES / "SDN.XML").read_bytes())
    assert parsed.published_at == datetime(2024, 5, 3, tzinfo=UTC)


def test_ofac_sdn_csv_states_no_date(shared_data):
    # The real SDN.CSV is header-less rows only: its date is known from outside (--published).
    parsed = parse_sdn_csv((shared_data / "ofac" / "sdn-2024-05-03.csv").read_bytes())
    assert len(parsed.records) > 14000
    assert parsed.published_at is None


# --- UN -----------------------------------------------------------------------------------------


def test_un_consolidated_date_generated_constructed():
    xml = (
        b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        b'<CONSOLIDATED_LIST xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        b'xsi:noNamespaceSchemaLocation="https://www.un.org/sc/resources/sc-sanctions.xsd" '
        b'dateGenerated="2026-02-27T00:00:09.554Z"><INDIVIDUALS><INDIVIDUAL><DATAID>1</DATAID>'
        b"<FIRST_NAME>FIXTURE</FIRST_NAME><REFERENCE_NUMBER>KPi.001</REFERENCE_NUMBER>"
        b"</INDIVIDUAL></INDIVIDUALS><ENTITIES/></CONSOLIDATED_LIST>"
    )
    parsed = parse_consolidated_xml(xml)
    assert parsed.published_at == datetime(2026, 2, 27, 0, 0, 9, 554000, tzinfo=UTC)


def test_un_consolidated_real_file_date_generated(shared_data):
    parsed = parse_consolidated_xml((shared_data / "un" / "consolidated-2026-02-27.xml").read_bytes())
    assert parsed.published_at == datetime(2026, 2, 27, 0, 0, 9, 554000, tzinfo=UTC)


# --- EU -----------------------------------------------------------------------------------------


def test_eu_fsf_generation_date():
    parsed = parse_fsf_xml((FIXTURES / "eu_fsf.xml").read_bytes())
    assert parsed.published_at is not None
    assert parsed.published_at.astimezone(UTC) == datetime(2026, 11, 20, 7, 0, tzinfo=UTC)


# --- UK -----------------------------------------------------------------------------------------


def test_uk_report_date_line_is_the_edition_date():
    parsed = parse_uk_csv((FIXTURES / "uk.csv").read_bytes())
    assert parsed.published_at == datetime(2026, 11, 20, tzinfo=UTC)
    assert {r.source_record_id for r in parsed.records} == {"RUS9001", "RUS9002"}


def test_uk_list_in_the_published_column_layout_reads_its_report_date():
    # The FCDO file's own layout: a "Report Date" line, then a header whose first column is the
    # per-record "Last Updated" (a record's date, not the file's).
    data = f"Report Date: 03-May-2024\n{UK_HEADER}\n{UK_ROW}\n".encode()
    parsed = parse_uk_csv(data)
    assert parsed.published_at == datetime(2024, 5, 3, tzinfo=UTC)
    assert parsed.records[0].imo == "9074729"


def test_uk_consolidated_layout_last_updated_line():
    data = b"Last Updated,20/11/2024\nUnique ID,Name 1,Name type,Regime Name,Designation Type,IMO number\n"
    data += b"RUS1,FIXTURE SHIP,Primary name,Russia,Ship,9074729\n"
    parsed = parse_uk_csv(data)
    assert parsed.published_at == datetime(2024, 11, 20, tzinfo=UTC)


def test_uk_list_without_a_date_line_has_no_publication_time():
    parsed = parse_uk_csv(f"{UK_HEADER}\n{UK_ROW}\n".encode())
    assert parsed.published_at is None
    assert len(parsed.records) == 1


# --- aggregated -----------------------------------------------------------------------------------


def test_ftm_export_is_dated_by_its_newest_last_seen():
    entities = [
        {
            "id": "ftm-1",
            "schema": "Vessel",
            "properties": {"name": ["FIXTURE FTM"], "imoNumber": ["IMO 9187629"]},
            "datasets": ["un_sc_sanctions"],
            "first_seen": "2023-01-02T10:00:00",
            "last_seen": "2026-02-26T21:04:11",
            "last_change": "2024-01-01T00:00:00",
        },
        {
            "id": "ftm-2",
            "schema": "Company",
            "properties": {"name": ["FIXTURE HOLDING"]},
            "datasets": ["us_ofac_sdn"],
            "last_seen": "2026-02-27T03:15:00",
        },
    ]
    data = "\n".join(json.dumps(e) for e in entities).encode()
    parsed = parse_ftm_jsonl(data)
    assert parsed.published_at == datetime(2026, 2, 27, 3, 15, tzinfo=UTC)


def test_ftm_export_without_stamps_and_maritime_csv_state_no_date():
    assert parse_ftm_jsonl((FIXTURES / "entities.ftm.json").read_bytes()).published_at is None
    # The maritime CSV has no date column and no date line: its publication time is unknown.
    assert parse_maritime_csv((FIXTURES / "maritime.csv").read_bytes()).published_at is None
