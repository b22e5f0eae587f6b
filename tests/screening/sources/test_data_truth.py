"""Issue 12, items 14-16: what real official files say, read as they say it.

14  OFAC writes some hull IMOs without "IMO" ("Vessel Registration Identification 8606173").
15  The EU Financial Sanctions File lists persons and enterprises; an `imo` identification on an
    enterprise is a company number, and no company number makes a hull RED from any list.
16  A maritime CSV row with an empty risk column is not a listing.
"""

from __future__ import annotations

import pytest

from screening.index import SanctionsIndex
from screening.matching import match_hull
from screening.records import (
    CONFIDENCE_CONFIRMED,
    MATCH_EXACT_IMO,
    RECORD_ENTITY,
    RECORD_VESSEL,
    ListedRecord,
    MatchHit,
)
from screening.sources import aggregated, eu
from screening.sources.ofac import parse_sdn_csv, parse_sdn_xml
from screening.verdict import decide_sanctions

# --- 14: OFAC hull IDs without "IMO" -----------------------------------------------------------

SDN_ROWS = (
    b'17104,"RYONG GUN BONG","vessel","DPRK",-0- ,-0- ,"General Cargo",-0- ,-0- ,'
    b'"Democratic People\'s Republic of Korea",-0- ,"Secondary sanctions risk: North Korea Sanctions '
    b'Regulations, sections 510.201 and 510.210; Vessel Registration Identification 8606173."\n'
    b'23424,"BONU 5","vessel","LIBYA3",-0- ,-0- ,-0- ,-0- ,-0- ,"Malta",-0- ,'
    b'"Vessel Registration Identification 15411 (Malta); Linked To: ANDREA MARTINA LIMITED."\n'
    b'37479,"SHELLEST","vessel","RUSSIA-EO14024",-0- ,-0- ,-0- ,-0- ,-0- ,"Russia",-0- ,'
    b'"Vessel Registration Identification RS 1504437 (Russia)."\n'
    b'33809,"FU YUAN YU 8683","vessel","GLOMAG",-0- ,-0- ,"Fishing Vessel",-0- ,-0- ,"China",-0- ,'
    b'"Vessel Registration Identification 9894387; Linked To: FUJIAN OCEAN FISHING GROUP CO., LTD."\n'
    b'90001,"FIXTURE TYPO","vessel","IRAN",-0- ,-0- ,-0- ,-0- ,-0- ,"Panama",-0- ,'
    b'"Vessel Registration Identification 8606174."\n'
    b'90002,"FIXTURE SHIPPING CO","-0- ","DPRK",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,'
    b'"Vessel Registration Identification 9074729; Company Number IMO 5055293."\n'
)


def test_ofac_csv_reads_a_bare_vessel_registration_number_as_the_hull_imo():
    by_id = {r.source_record_id: r for r in parse_sdn_csv(SDN_ROWS).records}
    assert by_id["17104"].imo == "8606173" and by_id["17104"].imo_check_digit_valid is True
    assert by_id["33809"].imo == "9894387"
    # National registrations (an issuing country follows) and numbers failing the ship check digit are not IMOs.
    assert by_id["23424"].imo is None and by_id["37479"].imo is None and by_id["90001"].imo is None
    # Only vessel rows: on an entity the same words never give a hull IMO.
    assert by_id["90002"].record_type == RECORD_ENTITY and by_id["90002"].imo is None


def _sdn_xml(entries: str) -> bytes:
    return (
        '<?xml version="1.0" standalone="yes"?>'
        '<sdnList xmlns="https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/XML">'
        "<publshInformation><Publish_Date>05/03/2024</Publish_Date><Record_Count>2</Record_Count>"
        f"</publshInformation>{entries}</sdnList>"
    ).encode()


def test_ofac_xml_reads_a_bare_vessel_registration_number_as_the_hull_imo():
    data = _sdn_xml(
        "<sdnEntry><uid>17104</uid><lastName>RYONG GUN BONG</lastName><sdnType>Vessel</sdnType>"
        "<programList><program>DPRK</program></programList><idList>"
        "<id><uid>1</uid><idType>Vessel Registration Identification</idType><idNumber>8606173</idNumber></id>"
        "</idList><vesselInfo><vesselType>General Cargo</vesselType></vesselInfo></sdnEntry>"
        "<sdnEntry><uid>23424</uid><lastName>BONU 5</lastName><sdnType>Vessel</sdnType>"
        "<programList><program>LIBYA3</program></programList><idList>"
        "<id><uid>2</uid><idType>Vessel Registration Identification</idType><idNumber>1541104</idNumber>"
        "<idCountry>Malta</idCountry></id></idList></sdnEntry>"
    )
    ryong, bonu = parse_sdn_xml(data).records
    assert ryong.record_type == RECORD_VESSEL and ryong.imo == "8606173"
    assert bonu.imo is None  # 1541104 passes the check digit, but Malta issued it: a national number


def test_the_two_hulls_written_without_imo_in_the_real_edition_are_found(shared_data):
    records = parse_sdn_csv((shared_data / "ofac" / "sdn-2024-05-03.csv").read_bytes()).records
    index = SanctionsIndex.build(records, version="ofac-2024-05-03")
    for imo, name in (("8606173", "RYONG GUN BONG"), ("9894387", "FU YUAN YU 8683")):
        hits = match_hull(index, imo=imo, mmsi=None, names=[], chosen_name=None)
        assert [h.record.name for h in hits if h.match_type == MATCH_EXACT_IMO] == [name]
    assert sum(1 for r in records if r.record_type == RECORD_VESSEL and r.imo) == 846


# --- 15: EU FSF enterprises, and company numbers never RED ------------------------------------------


def _fsf(entity: str) -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<export xmlns="http://eu.europa.ec/fpi/fsd/export" generationDate="2026-11-20T08:00:00.000+01:00">'
        f'<sanctionEntity euReferenceNumber="EU.1.1" logicalId="1">{entity}</sanctionEntity></export>'
    ).encode()


def test_an_fsf_enterprise_with_an_imo_identification_is_a_company():
    data = _fsf(
        '<regulation programme="RUS"/><subjectType code="enterprise" classificationCode="E"/>'
        '<nameAlias wholeName="FIXTURE TANKER CO"/>'
        '<identification identificationTypeCode="imo" identificationTypeDescription="IMO Number" number="9074729"/>'
    )
    (record,) = eu.parse_fsf_xml(data).records
    assert record.record_type == RECORD_ENTITY and record.imo is None and record.company_numbers == ("9074729",)


@pytest.mark.parametrize(
    "subject, description",
    [("vessel", "IMO Number"), ("enterprise", "IMO ship identification number")],
    ids=["vessel-subject", "identification-says-ship"],
)
def test_an_fsf_record_that_is_positively_a_vessel_keeps_its_hull_imo(subject, description):
    data = _fsf(
        f'<subjectType code="{subject}"/><nameAlias wholeName="FIXTURE PRIDE"/>'
        f'<identification identificationTypeCode="imo" identificationTypeDescription="{description}" number="9074729"/>'
    )
    (record,) = eu.parse_fsf_xml(data).records
    assert record.record_type == RECORD_VESSEL and record.imo == "9074729"


def test_an_fsf_ship_owner_company_number_stays_a_company_number():
    data = _fsf(
        '<subjectType code="enterprise"/><nameAlias wholeName="FIXTURE OWNER"/>'
        '<identification identificationTypeCode="imo" identificationTypeDescription="IMO number of the ship owner '
        'company" number="9074729"/>'
    )
    (record,) = eu.parse_fsf_xml(data).records
    assert record.record_type == RECORD_ENTITY and record.company_numbers == ("9074729",)


def _decide(record: ListedRecord, hull: str) -> str:
    hit = MatchHit(record, MATCH_EXACT_IMO, CONFIDENCE_CONFIRMED, 100.0)
    return decide_sanctions(
        [hit],
        hull_imo=hull,
        identity_basis="sources",
        available_sources=["ofac_sdn", "opensanctions", "eu_sanctions", "un_sanctions", "uk_sanctions"],
        unavailable_sources=[],
        editions={},
    ).status


@pytest.mark.parametrize("source", ["eu_sanctions", "ofac_sdn", "un_sanctions", "uk_sanctions", "opensanctions"])
def test_a_company_number_never_makes_a_hull_red_from_any_list(source):
    company = ListedRecord(source, RECORD_ENTITY, "FIXTURE LINES", "X1", company_numbers=("9074729",))
    assert _decide(company, "9074729") == "GREEN"
    # A record typed as a vessel whose number its list also gives as a company number: still not a listing.
    mistyped = ListedRecord(source, RECORD_VESSEL, "FIXTURE LINES", "X2", imo="9074729", company_numbers=("9074729",))
    assert _decide(mistyped, "9074729") == "GREEN"
    # The hull IMO of a vessel record still makes RED on a designating list.
    vessel = ListedRecord(source, RECORD_VESSEL, "FIXTURE PRIDE", "X3", imo="9074729", tags=("sanction",))
    assert _decide(vessel, "9074729") == ("AMBER" if source == "opensanctions" else "RED")


def test_a_loaded_fsf_company_number_does_not_make_the_hull_it_equals_red(demo_world, issue_key, screen, tmp_path):
    from django.core.management import call_command

    from screening import datastate, demo

    fsf = tmp_path / "20261120-FULL-1_1(xsd).xml"
    fsf.write_bytes(
        _fsf(
            '<regulation programme="RUS"/><subjectType code="enterprise" classificationCode="E"/>'
            '<nameAlias wholeName="FIXTURE TANKER CO"/>'
            '<identification identificationTypeCode="imo" identificationTypeDescription="IMO Number" '
            f'number="{demo.GREEN_CLEAN}"/>'
        )
    )
    # The demo's EU snapshot is replaced (a demo copy is never guarded against shrinking).
    call_command("refresh_sources", "--source", "eu_sanctions", "--edition", "eu_fsf", "--file", str(fsf))
    datastate.invalidate()
    assert screen(issue_key("test"), demo.GREEN_CLEAN).json()["sanctions"]["status"] == "GREEN"


# --- 16: maritime CSV rows with an empty risk -------------------------------------------------------

MARITIME = (
    "type,caption,imo,risk,countries,flag,mmsi,id,url,datasets,aliases\n"
    "VESSEL,FIXTURE SHADOW,9074729,mare.shadow,ru,pa,572469210,ftx-1,,ua_war_sanctions,\n"
    "VESSEL,FIXTURE INNOCENT,9187629,,pa,pa,,ftx-2,,us_ofac_sdn,\n"
    "ORGANIZATION,FIXTURE OWNER LTD,5055293,,ae,,,ftx-3,,eu_fsf,\n"
)


def test_a_maritime_row_with_an_empty_risk_is_not_a_listing():
    parsed = aggregated.parse_maritime_csv(MARITIME.encode())
    assert [r.source_record_id for r in parsed.records] == ["ftx-1"]
    assert parsed.records[0].record_type == RECORD_VESSEL and parsed.records[0].tags == ("mare.shadow",)
    assert parsed.warnings == ["2 row(s) with an empty risk column are not listings and were not loaded"]


def test_a_hull_on_a_maritime_row_with_an_empty_risk_screens_green(demo_world, issue_key, screen, tmp_path):
    from django.core.management import call_command

    from screening import datastate, demo

    path = tmp_path / "maritime.csv"
    path.write_text(MARITIME.replace("9187629", demo.GREEN_CLEAN))
    call_command("refresh_sources", "--source", "opensanctions", "--edition", "maritime", "--file", str(path))
    datastate.invalidate()
    body = screen(issue_key("test"), demo.GREEN_CLEAN).json()
    assert body["sanctions"]["status"] == "GREEN", body["sanctions"]
