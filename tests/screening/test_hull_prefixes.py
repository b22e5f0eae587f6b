"""Hull-type prefixes are not part of a ship's name (issue 29, "hull prefixes"): M/V, M.V., MT, TANKER ..."""

from __future__ import annotations

import pytest

from screening.index import SanctionsIndex
from screening.matching import match_hull
from screening.normalize import normalize_vessel_name
from screening.records import RECORD_VESSEL, ListedRecord


@pytest.mark.parametrize(
    "written",
    ["M.V. SEA ROSE", "M.V.SEA ROSE", "m.v. sea rose", "M. T. SEA ROSE", "MT. SEA ROSE", "M/T SEA ROSE",
     "MV SEA ROSE", "TANKER SEA ROSE", "M/S SEA ROSE"],
)  # fmt: skip
def test_a_type_prefix_however_written_is_dropped(written):
    assert normalize_vessel_name(written) == "SEA ROSE"


@pytest.mark.parametrize("name", ["MARIA", "M VEGA", "M.VEGA", "TANKER", "MV", "MAVERICK STAR"])
def test_names_that_only_look_like_a_prefix_are_kept(name):
    assert normalize_vessel_name(name) == " ".join(name.replace(".", " ").split())


@pytest.mark.parametrize("query", ["M.V. SEA ROSE", "TANKER SEA ROSE", "M.T. SEA ROSE"])
def test_a_listed_hull_is_found_at_rank_one_under_a_prefixed_name(query):
    listed = ListedRecord("ofac_sdn", RECORD_VESSEL, "SEA ROSE", source_record_id="1")
    other = ListedRecord("ofac_sdn", RECORD_VESSEL, "SEA ROVER", source_record_id="2")
    index = SanctionsIndex.build([listed, other], version="prefixes")
    hits = match_hull(index, imo="0000000", mmsi=None, names=[query], chosen_name=query)
    assert hits and hits[0].record is listed and hits[0].score == 100.0
