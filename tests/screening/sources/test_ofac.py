"""OFAC SDN parsers: the real CSV snapshot, ALT.CSV aliases, and SDN.XML."""

from __future__ import annotations

from pathlib import Path

import pytest

from screening.records import RECORD_ENTITY, RECORD_VESSEL
from screening.sources.ofac import parse_sdn_csv, parse_sdn_xml

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def snapshot():
    from tests.conftest import SHARED_DATA

    path = SHARED_DATA / "ofac" / "sdn-2024-05-03.csv"
    if not path.exists():
        pytest.skip("../shared/data is not present")
    return parse_sdn_csv(path.read_bytes())


def test_every_row_becomes_a_record_and_vessels_are_typed(snapshot):
    assert len(snapshot.records) == 14965
    vessels = [r for r in snapshot.records if r.record_type == RECORD_VESSEL]
    assert len(vessels) == 851
    # 846: two rows write the hull IMO without "IMO" ("Vessel Registration Identification 8606173").
    assert sum(1 for r in vessels if r.imo) == 846


def test_company_numbers_never_become_hull_imos(snapshot):
    entities = [r for r in snapshot.records if r.record_type == RECORD_ENTITY]
    assert not any(r.imo for r in entities)
    assert sum(1 for r in entities if r.company_numbers) >= 135
    gooryong = next(r for r in entities if r.name == "GOORYONG SHIPPING CO LTD")
    assert gooryong.company_numbers == ("5055293",)


def test_a_vessel_carries_imo_former_names_flag_programmes_and_link(snapshot):
    ebano = next(r for r in snapshot.records if r.source_record_id == "4243")
    assert ebano.imo == "7406784" and ebano.imo_check_digit_valid is True
    assert ebano.aliases == ("ANA I", "SAND SWAN")
    assert ebano.flags == ("PA",) and ebano.programs == ("CUBA",)
    assert ebano.source_url.endswith("id=4243")


def test_mmsi_and_former_flags_are_read_from_remarks(snapshot):
    with_mmsi = [r for r in snapshot.records if r.mmsi]
    assert with_mmsi and all(len(r.mmsi) == 9 for r in with_mmsi)
    assert any(len(r.flags) > 1 for r in snapshot.records if r.record_type == RECORD_VESSEL)


def test_alt_csv_adds_aliases():
    sdn = b'306,"BANCO NACIONAL DE CUBA","-0- ","CUBA",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"a.k.a. \'BNC\'."\n'
    alt = b'306,219,"aka","NATIONAL BANK OF CUBA",-0- \n'
    parsed = parse_sdn_csv(sdn, alt)
    assert parsed.records[0].aliases == ("NATIONAL BANK OF CUBA", "BNC")  # ALT.CSV, then the a.k.a. in remarks


def test_a_file_that_is_not_the_sdn_csv_is_refused():
    with pytest.raises(ValueError, match="not an OFAC SDN.CSV"):
        parse_sdn_csv(b"name,imo\nX,9074729\n")


def test_the_xml_edition_gives_the_same_records():
    parsed = parse_sdn_xml((FIXTURES / "SDN.XML").read_bytes())
    vessel, entity = parsed.records
    assert parsed.published_at.date().isoformat() == "2024-05-03"
    assert vessel.record_type == RECORD_VESSEL and vessel.imo == "9074729" and vessel.mmsi == "572469210"
    assert vessel.aliases == ("OLD FIXTURE",) and vessel.flags == ("PA",) and vessel.programs == ("IRAN", "SDGT")
    assert entity.record_type == RECORD_ENTITY and entity.imo is None and entity.company_numbers == ("5055293",)
