"""Issue 12 item 30: every row of the README's "Demo world" table is true of the demo world.

The table is read from README.md as it stands; each row's outcome text is split into promises
(status, grades, floors, opacity, match kinds, fields) and each promise is checked on a real
screening of that hull. A phrase the test does not know how to check fails the test, so a new
row cannot promise something unchecked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.management import call_command

from screening import datastate, demo

pytestmark = pytest.mark.django_db

README = Path(__file__).resolve().parent.parent.parent / "README.md"


def readme_rows() -> list[tuple[str, str, str]]:
    text = README.read_text()
    section = text.split("## Demo world", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and re.fullmatch(r"\d{7}", cells[1]):
            rows.append((cells[0], cells[1], cells[2]))
    return rows


ROWS = readme_rows()


def _listed_records_for(imo: str) -> list:
    return [r for snap in demo.sanctions_snapshots() for r in snap.records if getattr(r, "imo", None) == imo]


def _former_names(imo: str) -> set[str]:
    names: set[str] = set()
    for snap in demo.register_snapshots():
        for record in snap.records:
            if getattr(record, "imo", None) == imo:
                names.update(getattr(record, "former_names", None) or ())
    return names


def promises(outcome: str, imo: str):
    """(phrase, check(record) -> bool) for every promise in the outcome text; raises on an unknown phrase."""
    checks = []
    rest = outcome
    status = re.match(r"(RED|AMBER|GREEN|INCOMPLETE)\b", outcome)
    assert status, outcome
    checks.append((status.group(1), lambda r, s=status.group(1): r["sanctions"]["status"] == s))
    rest = rest[status.end() :]

    def take(pattern: str, make):
        nonlocal rest
        for match in list(re.finditer(pattern, rest)):
            checks.append((match.group(0), make(match)))
        rest = re.sub(pattern, " ", rest)

    matches = lambda r: r["sanctions"]["matches"]  # noqa: E731
    take(r"vetting floored at (\d+)", lambda m: lambda r, v=int(m.group(1)): r["vetting"]["score_floor"]["value"] == v)
    take(r"\(floor (\d+)", lambda m: lambda r, v=int(m.group(1)): r["vetting"]["score_floor"]["value"] == v)
    take(r"vetting not_assessed", lambda m: lambda r: r["vetting"]["status"] == "not_assessed")
    take(r"(?:vetting|grade) ([A-E])\b", lambda m: lambda r, g=m.group(1): r["vetting"]["grade"] == g)
    take(r"ownership (LOW|MEDIUM|HIGH)", lambda m: lambda r, o=m.group(1): r["ownership"]["opacity"] == o)
    take(r"coverage complete", lambda m: lambda r: r["sanctions"]["coverage_complete"] is True)
    take(
        r"exact IMO on the UN 1718 designated-vessels list",
        lambda m: lambda r: any(x["source"] == "un_sanctions" and x["match_type"] == "exact_imo" for x in matches(r)),
    )
    take(
        r"exact IMO on ([a-z0-9_]+)",
        lambda m: lambda r, s=m.group(1): any(x["source"] == s and x["match_type"] == "exact_imo" for x in matches(r)),
    )
    take(r"found by IMO|listed by IMO", lambda m: lambda r: any(x["match_type"] == "exact_imo" for x in matches(r)))
    take(
        r"exact MMSI on a listed vessel",
        lambda m: lambda r: any(x["match_type"] == "exact_mmsi" and x["record_type"] == "vessel" for x in matches(r)),
    )
    take(r"IMO not listed", lambda m: lambda r: not any(x["match_type"] == "exact_imo" for x in matches(r)))
    take(
        r"AMBER shape 1: name-only hit on a listed vessel record|name-only hit on a listed vessel record",
        lambda m: (
            lambda r: (
                bool(matches(r))
                and all(x["match_type"].startswith("name") and x["record_type"] == "vessel" for x in matches(r))
            )
        ),
    )
    take(r"shape [123]:?", lambda m: lambda r: True)  # the shape is what the rest of the row states
    take(
        r"aggregated 'sanction' tag no primary list corroborates",
        lambda m: lambda r: [x["source"] for x in matches(r)] == ["opensanctions"],
    )
    take(r"retry_after set", lambda m: lambda r: r["sanctions"]["retry_after"] is not None)
    take(r"no register names it", lambda m: lambda r: r["identity_basis"] in (None, "none", "unresolved"))
    take(r"send vessel_name to resolve", lambda m: lambda r: "vessel_name" in r["sanctions"]["detail"])
    take(r"four different names recorded", lambda m: lambda r: "Four" in r["sanctions"]["detail"])
    take(r"\(identity_contested\)", lambda m: lambda r: "identity_contested" in [n["code"] for n in r["notices"]])
    take(
        r"name hits a listed company \(entity\)",
        lambda m: (
            lambda r: any(x["record_type"] == "entity" and x["match_type"].startswith("name") for x in matches(r))
        ),
    )
    take(
        r"drove_verdict false", lambda m: lambda r: bool(matches(r)) and not any(x["drove_verdict"] for x in matches(r))
    )
    take(
        r"name hits a listed vessel with a different IMO \(collision\)",
        lambda m: (
            lambda r: any(
                x["record_type"] == "vessel" and x["match_type"].startswith("name") and not x["drove_verdict"]
                for x in matches(r)
            )
        ),
    )
    take(
        r"screened_name on the f\.k\.a\. hit",
        lambda m: lambda r: any(x.get("screened_name") in _former_names(r["imo"]) for x in matches(r)),
    )
    take(
        r"listed under a former name",
        lambda m: lambda r: any(rec.name in _former_names(r["imo"]) for rec in _listed_records_for(r["imo"])),
    )
    take(
        r"the listing also carries its former name as an alias",
        lambda m: lambda r: any(set(rec.aliases) & _former_names(r["imo"]) for rec in _listed_records_for(r["imo"])),
    )
    take(r"a name and nothing else", lambda m: lambda r: r["vessel_name"] and r["ownership"]["score"] is None)
    take(r"seventh digit fails the checksum", lambda m: lambda r: r["imo_check_digit_valid"] is False)
    take(r"\(not charged\)", lambda m: lambda r: r["unit_charged"] is False)
    leftover = re.sub(r"[\s,;:()]+", " ", rest).strip()
    assert leftover == "", f"the test cannot check this part of the row: {leftover!r} (row: {outcome!r})"
    return checks


@pytest.fixture
def screened(client, issue_key, keyed):
    call_command("seed_demo", stdout=open("/dev/null", "w"))
    datastate.invalidate()
    key = issue_key("test")
    answers: dict[str, dict] = {}

    def screen(imo: str) -> dict:
        if imo not in answers:
            response = client.post(
                "/api/v1/screenings",
                data={"imo": imo},
                content_type="application/json",
                HTTP_IDEMPOTENCY_KEY=f"readme-{imo}",
                **keyed(key),
            )
            assert response.status_code in (200, 201), response.content
            answers[imo] = response.json()
        return answers[imo]

    return screen


def test_the_table_lists_every_demo_hull_once():
    assert [(k, i) for k, i, _ in ROWS] == [(h.key, h.imo) for h in demo.HULLS]


@pytest.mark.parametrize(("key", "imo", "outcome"), ROWS, ids=[r[0] for r in ROWS])
def test_each_row_of_the_demo_table_holds(screened, key, imo, outcome):
    record = screened(imo)
    failed = [phrase for phrase, check in promises(outcome, imo) if not check(record)]
    assert failed == [], f"{key}: the README promises {failed} but the screening does not show it"


@pytest.mark.parametrize("hull", demo.HULLS, ids=[h.key for h in demo.HULLS])
def test_each_hull_description_in_the_demo_module_holds(screened, hull):
    """screening/demo.py describes each hull too (its renamed row is the README's corrected row)."""
    record = screened(hull.imo)
    failed = [phrase for phrase, check in promises(hull.outcome, hull.imo) if not check(record)]
    assert failed == [], f"{hull.key}: demo.py promises {failed} but the screening does not show it"
