"""Issue 12, items 17-19: official download names, the shrink guard, and demo data never replacing real lists."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from screening import datastate
from screening.demo import imo_from_stem
from screening.models import ListedEntry, SourceSnapshot

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).parent / "sources" / "fixtures"


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("refresh_sources", *args, stdout=out)
    return out.getvalue()


def sdn_csv(stems: range) -> bytes:
    """An SDN.CSV in OFAC's layout: one vessel row per stem."""
    rows = [
        f'{900000 + stem},"FIXTURE HULL {stem}","vessel","IRAN",-0- ,-0- ,"Crude Oil Tanker",-0- ,-0- ,"Panama",-0- ,'
        f'"Vessel Registration Identification IMO {imo_from_stem(stem)}."\n'
        for stem in stems
    ]
    return "".join(rows).encode()


ALT_CSV = b'900001,1,"fka","OLD FIXTURE HULL 1",-0- \n'
ADD_CSV = b"900001,1,-0- ,-0- ,-0- ,-0- ,-0- \n"
OFAC_CONSOLIDATED_XML = (
    b'<?xml version="1.0" standalone="yes"?>\n'
    b'<sdnList xmlns="https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/XML">'
    b"<publshInformation><Publish_Date>05/03/2024</Publish_Date><Record_Count>1</Record_Count></publshInformation>"
    b"<sdnEntry><uid>1</uid><lastName>NON SDN FIXTURE</lastName><sdnType>Entity</sdnType>"
    b"<programList><program>SSI</program></programList></sdnEntry></sdnList>"
)
ENHANCED_XML = (
    b'<?xml version="1.0" encoding="utf-8"?>\n'
    b'<sanctionsData xmlns="https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/ENHANCED_XML">'
    b"<publicationInfo/><entities/></sanctionsData>"
)
UN_XML = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n'
    b'<CONSOLIDATED_LIST dateGenerated="2026-02-27T00:00:09.554Z"><INDIVIDUALS/><ENTITIES>'
    b"<ENTITY><DATAID>1</DATAID><FIRST_NAME>FIXTURE TRADING CORPORATION</FIRST_NAME>"
    b"<UN_LIST_TYPE>DPRK</UN_LIST_TYPE><REFERENCE_NUMBER>KPe.999</REFERENCE_NUMBER>"
    b"<LISTED_ON>2017-08-05</LISTED_ON></ENTITY></ENTITIES></CONSOLIDATED_LIST>"
)


def active(source: str, edition: str = "") -> SourceSnapshot:
    return SourceSnapshot.objects.get(source=source, edition=edition, status=SourceSnapshot.Status.ACTIVE)


# --- 17: official download names, single files, wrong parts ------------------------------------------


def test_from_dir_recognises_official_names_and_says_what_it_skipped(tmp_path):
    (tmp_path / "SDN.CSV").write_bytes(sdn_csv(range(100001, 100011)))
    (tmp_path / "ALT.CSV").write_bytes(ALT_CSV)
    (tmp_path / "ADD.CSV").write_bytes(ADD_CSV)
    (tmp_path / "SDN.XML").write_bytes((FIXTURES / "SDN.XML").read_bytes())
    (tmp_path / "SDN_ENHANCED.XML").write_bytes(ENHANCED_XML)
    (tmp_path / "CONSOLIDATED.XML").write_bytes(OFAC_CONSOLIDATED_XML)
    (tmp_path / "un").mkdir()
    (tmp_path / "un" / "consolidated.xml").write_bytes(UN_XML)
    (tmp_path / "20261120-FULL-1_1(xsd).xml").write_bytes((FIXTURES / "eu_fsf.xml").read_bytes())
    (tmp_path / "README.md").write_text("what these files are\n")
    out = run("--from-dir", str(tmp_path))

    ofac = active("ofac_sdn")
    assert ofac.row_count == 10 and "SDN.CSV" in ofac.origin and "ALT.CSV" in ofac.origin
    assert active("un_sanctions").row_count == 1
    assert active("eu_sanctions", "eu_fsf").row_count == 3
    skipped = {line.split(" — ")[0]: line.split(" — ")[1] for line in out.splitlines() if line.startswith("skipped ")}
    assert set(skipped) == {
        "skipped SDN.XML",
        "skipped SDN_ENHANCED.XML",
        "skipped CONSOLIDATED.XML",
        "skipped README.md",
    }
    assert "non-SDN" in skipped["skipped CONSOLIDATED.XML"]
    assert "SDN.CSV" in skipped["skipped SDN.XML"]
    assert "enhanced" in skipped["skipped SDN_ENHANCED.XML"]


def test_from_dir_loads_sdn_xml_when_there_is_no_csv(tmp_path):
    (tmp_path / "SDN.XML").write_bytes((FIXTURES / "SDN.XML").read_bytes())
    run("--from-dir", str(tmp_path))
    assert active("ofac_sdn").row_count == 2


@pytest.mark.parametrize(
    "file_name, data, rows",
    [("sdn-2024-05-03.csv", sdn_csv(range(100001, 100004)), 3), ("SDN.XML", (FIXTURES / "SDN.XML").read_bytes(), 2)],
    ids=["csv-under-another-name", "xml"],
)
def test_a_single_ofac_file_loads_without_a_part(tmp_path, file_name, data, rows):
    path = tmp_path / file_name
    path.write_bytes(data)
    run("--source", "ofac_sdn", "--file", str(path))
    assert active("ofac_sdn").row_count == rows


def test_a_single_file_source_takes_its_file_under_any_name(tmp_path):
    path = tmp_path / "UK-Sanctions-List.csv"
    path.write_bytes((FIXTURES / "uk.csv").read_bytes())
    run("--source", "uk_sanctions", "--file", str(path))
    assert active("uk_sanctions").row_count >= 2


@pytest.mark.parametrize(
    "source, spec, message",
    [
        ("ofac_sdn", "foo={path}", "ofac_sdn has no file part 'foo'; its parts: sdn, alt, add, xml"),
        ("uk_sanctions", "sdn={path}", "uk_sanctions has no file part 'sdn'; its parts: csv"),
        ("ofac_sdn", "alt={path}", "needs sdn=SDN.CSV"),
    ],
    ids=["ofac-unknown-part", "one-file-source-wrong-part", "ofac-alt-alone"],
)
def test_a_wrong_part_is_a_clear_error(tmp_path, source, spec, message):
    path = tmp_path / "file.csv"
    path.write_bytes(ALT_CSV)
    with pytest.raises(CommandError) as raised:
        run("--source", source, "--file", spec.format(path=path))
    assert message in str(raised.value)
    assert "KeyError" not in str(raised.value) and str(raised.value) not in {"'sdn'", "parse failed: 'sdn'"}
    assert not SourceSnapshot.objects.filter(source=source, status=SourceSnapshot.Status.ACTIVE).exists()


# --- 18: the shrink guard -------------------------------------------------------------------------


def test_a_truncated_edition_is_refused_and_the_previous_copy_keeps_serving(tmp_path):
    full, truncated = tmp_path / "full.csv", tmp_path / "truncated.csv"
    full.write_bytes(sdn_csv(range(100001, 100031)))
    truncated.write_bytes(sdn_csv(range(100001, 100011)))  # two thirds of the list missing
    run("--source", "ofac_sdn", "--file", f"sdn={full}")
    before = active("ofac_sdn")
    with pytest.raises(CommandError, match=r"refused: the file would remove 20 of the 30 records .*--allow-shrink"):
        run("--source", "ofac_sdn", "--file", f"sdn={truncated}")
    assert active("ofac_sdn") == before and ListedEntry.objects.filter(snapshot=before).count() == 30
    failed = SourceSnapshot.objects.get(source="ofac_sdn", status=SourceSnapshot.Status.FAILED)
    assert failed.message.startswith("refused:")
    datastate.invalidate()
    assert datastate.current().sanctions.records_by_imo(imo_from_stem(100030))

    run("--source", "ofac_sdn", "--file", f"sdn={truncated}", "--allow-shrink")
    assert active("ofac_sdn").row_count == 10


def test_another_list_in_the_same_format_is_refused(tmp_path):
    ua, un_1718 = tmp_path / "ua.csv", tmp_path / "un_1718.csv"
    ua.write_bytes((FIXTURES / "ua.csv").read_bytes())
    un_1718.write_bytes((FIXTURES / "un_1718.csv").read_bytes())  # parses as a ua list: name and imo columns
    run("--source", "ua_war_sanctions", "--file", str(ua))
    with pytest.raises(CommandError, match="shares none of the 1 records of the serving copy"):
        run("--source", "ua_war_sanctions", "--file", str(un_1718))
    assert "ua.csv" in active("ua_war_sanctions").origin


def test_a_normal_edition_loads_and_every_load_logs_added_and_removed(tmp_path, caplog):
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    first.write_bytes(sdn_csv(range(100001, 100031)))
    second.write_bytes(sdn_csv(range(100002, 100035)))  # one delisted, four added
    with caplog.at_level(logging.INFO, logger="service.ingest"):
        run("--source", "ofac_sdn", "--file", f"sdn={first}")
        out = run("--source", "ofac_sdn", "--file", f"sdn={second}")
    assert "(+4 / -1)" in out
    messages = [r.getMessage() for r in caplog.records if r.name == "service.ingest"]
    assert messages == [
        "loaded ofac_sdn: 30 records (+30 added / -0 removed / ~0 changed)",
        "loaded ofac_sdn: 33 records (+4 added / -1 removed / ~0 changed)",
    ]


# --- 19: seed_demo never replaces a real snapshot ------------------------------------------------------


def test_seed_demo_keeps_a_list_an_operator_loaded(tmp_path):
    path = tmp_path / "SDN.CSV"
    path.write_bytes(sdn_csv(range(100001, 100011)))
    run("--source", "ofac_sdn", "--file", str(path))
    real = active("ofac_sdn")
    out = io.StringIO()
    call_command("seed_demo", stdout=out)  # what bin/run does on every start
    assert active("ofac_sdn") == real and not real.is_demo
    assert "kept with real data (ofac_sdn)" in out.getvalue()
    assert active("uk_sanctions").is_demo  # sources the operator did not load still get the demo
    call_command("seed_demo", "--omit-source", "ofac_sdn", stdout=io.StringIO())
    assert active("ofac_sdn") == real
