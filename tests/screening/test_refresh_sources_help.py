"""Issue 30 item 6: `refresh_sources --help` lists the file names --from-dir recognises."""

from __future__ import annotations

import io
from contextlib import redirect_stdout

import pytest
from django.core.management import call_command


def help_text() -> str:
    out = io.StringIO()
    with redirect_stdout(out), pytest.raises(SystemExit):
        call_command("refresh_sources", "--help")
    return out.getvalue()


def test_the_help_lists_the_file_names_it_recognises():
    text = help_text()
    assert "--from-dir recognises these names" in text
    for name in ("SDN.CSV", "SDN.XML", "UK-Sanctions-List.csv", "entities.ftm.json", "World_EEZ", "alias*.csv"):
        assert name in text, name


def test_the_help_keeps_the_names_one_per_line():
    lines = help_text().splitlines()
    assert any(line.strip().startswith("OFAC") and "SDN.CSV" in line for line in lines)
    assert any(line.strip().startswith("UK") and "UK-Sanctions-List.csv" in line for line in lines)
