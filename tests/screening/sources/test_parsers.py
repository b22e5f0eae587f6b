"""Parsers of the other official formats, on hand-written files in each format (and the real UN list)."""

from __future__ import annotations

from pathlib import Path

import pytest

from screening.records import RECORD_ENTITY, RECORD_VESSEL
from screening.sources import aggregated, eu, registers, uk, ukraine, un

FIXTURES = Path(__file__).parent / "fixtures"


def read(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def test_the_real_un_list_holds_persons_and_entities_and_only_company_imos(shared_data):
    parsed = un.parse_consolidated_xml((shared_data / "un" / "consolidated-2026-02-27.xml").read_bytes())
    assert len(parsed.records) == 730 + 273
    assert all(r.record_type == RECORD_ENTITY and r.imo is None for r in parsed.records)
    assert sum(len(r.company_numbers) for r in parsed.records) == 16
    assert all(r.source_url is None for r in parsed.records)
    assert parsed.published_at.date().isoformat() == "2026-02-27"


def test_un_1718_vessels_keep_their_imo():
    parsed = un.parse_1718_vessels_csv(read("un_1718.csv"))
    (vessel,) = parsed.records
    assert vessel.record_type == RECORD_VESSEL and vessel.imo == "8405311" and vessel.programs == ("DPRK 1718",)
    assert vessel.flags == ("KP",) and vessel.dataset == "un_1718_vessels"


def test_eu_financial_file_subjects_are_entities_and_their_imo_numbers_company_numbers():
    # The FSF in its published layout: enterprises and persons only; an `imo` identification on
    # an enterprise is the IMO company number of a shipping company (item 15 of issue 12).
    parsed = eu.parse_fsf_xml(read("eu_fsf.xml"))
    company, lines, person = parsed.records
    assert parsed.list_edition_label == "eu_fsf" and parsed.published_at.isoformat() == "2026-11-20T08:00:00+01:00"
    assert all(r.record_type == RECORD_ENTITY and r.imo is None for r in parsed.records)
    assert company.name == "FIXTURE PRIDE SHIPPING LLC" and company.aliases == ("FIXTURE PRIDE LLC",)
    assert company.company_numbers == ("9074729",)  # passes the ship check digit, still a company number
    assert company.programs == ("RUS",) and company.source_record_id == "EU.9001.01" and company.dataset == "eu_fsf"
    assert lines.company_numbers == ("5055293",) and lines.programs == ("PRK",)
    assert person.name == "Ivan Ivanovich Fixturov" and person.source_record_id == "170003"  # no EU reference
    assert person.aliases == ("Иван Фикстуров",) and person.company_numbers == ("9187629",)


def test_eu_mirror_rows_name_their_dataset_and_bad_rows_are_flagged():
    parsed = eu.parse_journal_mirror_csv(read("eu_journal.csv"), "eu_journal_sanctions")
    (vessel,) = parsed.records
    assert vessel.programs == ("eu_journal_sanctions",) and vessel.dataset == "eu_journal_sanctions"
    assert len(parsed.warnings) == 1
    with pytest.raises(ValueError):
        eu.parse_journal_mirror_csv(read("eu_journal.csv"), "eu_other")


def test_uk_rows_merge_by_unique_id_and_ships_carry_imo_and_flags():
    parsed = uk.parse_uk_csv(read("uk.csv"))
    ship = next(r for r in parsed.records if r.source_record_id == "RUS9001")
    assert (
        ship.record_type == RECORD_VESSEL and ship.name == "FIXTURE CARRIER" and ship.aliases == ("FIXTURE CARRIER II",)
    )
    assert ship.imo == "9074729" and ship.flags == ("PA", "MT", "LR") and ship.listed_on == "2024-05-09"
    entity = next(r for r in parsed.records if r.source_record_id == "RUS9002")
    assert entity.record_type == RECORD_ENTITY


def test_aggregated_maritime_csv_tags_and_company_numbers():
    parsed = aggregated.parse_maritime_csv(read("maritime.csv"))
    vessel, company = parsed.records
    assert vessel.tags == ("mare.shadow", "sanction") and vessel.imo == "9074729" and vessel.mmsi == "572469210"
    assert vessel.aliases == ("OLD SHADOW",) and vessel.flags == ("PA",)
    assert company.record_type == RECORD_ENTITY and company.imo is None and company.company_numbers == ("5055293",)


def test_aggregated_ftm_entities():
    parsed = aggregated.parse_ftm_jsonl(read("entities.ftm.json"))
    vessel, company = parsed.records
    assert vessel.imo == "9187629" and vessel.tags == ("sanction",) and vessel.source_url.endswith("/ftm-1/")
    assert company.imo is None and company.company_numbers == ("5055293",)


def test_ukrainian_list_rows_are_vessels_with_flags():
    (vessel,) = ukraine.parse_shadow_fleet_csv(read("ua.csv")).records
    assert vessel.imo == "9074729" and vessel.flags == ("GA",) and vessel.source_url.startswith("https://")


def test_register_particulars_and_inspections_with_bad_rows_flagged():
    particulars = registers.parse_particulars_csv(read("particulars.csv"), "paris_mou_thetis")
    (record,) = particulars.records
    assert record.former_names == ("OLD ONE", "OLDER ONE") and record.former_flags == ("MT", "LR")
    assert record.flag == "PA" and record.build_year == 2004 and record.dwt == 82000
    assert len(particulars.warnings) == 1
    inspections = registers.parse_inspections_csv(read("inspections.csv"), "paris_mou_thetis")
    (inspection,) = inspections.records
    assert inspection.detained is True and inspection.deficiencies == 4
    assert len(inspections.warnings) == 1
    with pytest.raises(ValueError, match="unknown register"):
        registers.parse_particulars_csv(read("particulars.csv"), "lloyds")


@pytest.mark.parametrize("parser", [un.parse_consolidated_xml, eu.parse_fsf_xml])
def test_files_in_the_wrong_format_are_refused(parser):
    with pytest.raises(ValueError):
        parser(b"<html><body>maintenance</body></html>")
