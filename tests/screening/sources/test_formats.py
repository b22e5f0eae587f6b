"""The reading helpers every official-format parser shares (screening/sources/formats.py)."""

from __future__ import annotations

import pytest

from screening.sources.formats import (
    child_text,
    children,
    column_name_as_written,
    csv_rows,
    decode_text,
    flag_codes,
    read_vessel_listing,
    xml_root,
)


def test_text_drops_the_bom_and_each_source_chooses_what_non_utf8_bytes_do():
    assert decode_text("\ufeffname".encode()) == "name"
    assert decode_text("CAF\xc9".encode("latin-1"), on_error="latin-1") == "CAF\xc9"
    assert decode_text(b"CAF\xc9", on_error="replace") == "CAF\ufffd"
    with pytest.raises(ValueError):
        decode_text(b"CAF\xc9")


def test_csv_rows_fold_the_header_strip_cells_and_number_lines_from_the_header():
    rows = list(csv_rows(" Name , IMO \n A , 1 \nB\n", required=("name", "imo")))
    assert rows == [(2, {"name": "A", "imo": "1"}), (3, {"name": "B", "imo": ""})]


def test_csv_rows_refuse_a_file_without_the_required_columns_before_reading_a_row():
    with pytest.raises(ValueError, match="^expected a CSV with the columns name, imo, url$"):
        csv_rows("name;imo\nx;1\n", required=("name", "imo"), expected_header=("name", "imo", "url"))
    with pytest.raises(ValueError, match=r"^missing column\(s\): IMO$"):
        csv_rows("Name,imo\n", required=("Name", "IMO"), column_key=column_name_as_written)


def test_a_vessel_listing_skips_rows_without_name_or_imo_and_keeps_failed_check_digits():
    data = b"name,imo,flag\nA,IMO 9074729,pa\n,9074729,\nB,1234568,Panama\nC,12345,\n"
    records, warnings = read_vessel_listing(
        data,
        source="x",
        expected_header=("name", "imo", "flag"),
        particulars=lambda row, imo: {"flags": flag_codes(row["flag"])},
        warn_failed_check_digit=True,
    )
    assert [(r.name, r.imo, r.imo_check_digit_valid, r.flags) for r in records] == [
        ("A", "9074729", True, ("PA",)),
        ("B", "1234568", False, ("PA",)),
    ]
    assert warnings == [
        "line 3: skipped (needs a name and a 7-digit IMO)",
        "line 4: IMO 1234568 fails its check digit (kept as listed)",
        "line 5: skipped (needs a name and a 7-digit IMO)",
    ]


def test_xml_helpers_ignore_namespaces_unless_told_the_format_has_none():
    root = xml_root(b"<list xmlns='urn:x'><entry><name> A </name></entry><entry/></list>", "list", "the list")
    entries = children(root, "entry")
    assert [child_text(e, "name") for e in entries] == ["A", ""]
    assert child_text(None, "name") == ""
    with pytest.raises(ValueError, match="^not the list: the root element is not list$"):
        xml_root(b"<list xmlns='urn:x'/>", "list", "the list", any_namespace=False)
    with pytest.raises(ValueError, match="^not XML"):
        xml_root(b"maintenance", "list", "the list")
