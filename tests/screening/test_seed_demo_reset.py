"""Issue 30 item 6: `seed_demo --reset` returns to the pure demo world, and never deletes real editions
unless told to; the summary line says when the demo hulls' verdicts no longer hold."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from screening import datastate
from screening.demo import imo_from_stem
from screening.models import EditionFile, SourceSnapshot

pytestmark = pytest.mark.django_db


def seed(*args: str) -> str:
    out = io.StringIO()
    call_command("seed_demo", *args, stdout=out)
    datastate.invalidate()
    return out.getvalue()


def load_real_ofac(tmp_path) -> SourceSnapshot:
    rows = [
        f'{900000 + stem},"FIXTURE HULL {stem}","vessel","IRAN",-0- ,-0- ,"Crude Oil Tanker",-0- ,-0- ,"Panama",'
        f'-0- ,"Vessel Registration Identification IMO {imo_from_stem(stem)}."\n'
        for stem in range(100001, 100011)
    ]
    path = tmp_path / "SDN.CSV"
    path.write_text("".join(rows))
    call_command("refresh_sources", "--source", "ofac_sdn", "--file", str(path), stdout=io.StringIO())
    return SourceSnapshot.objects.get(source="ofac_sdn", status=SourceSnapshot.Status.ACTIVE)


def active(source: str) -> SourceSnapshot | None:
    return SourceSnapshot.objects.filter(source=source, status=SourceSnapshot.Status.ACTIVE).first()


def test_reset_refuses_while_a_real_edition_is_loaded_and_deletes_nothing(tmp_path):
    seed()
    real = load_real_ofac(tmp_path)
    before = SourceSnapshot.objects.count()
    with pytest.raises(CommandError, match=r"1 real edition\(s\).*\(ofac_sdn\).*--including-real"):
        seed("--reset")
    assert SourceSnapshot.objects.count() == before and active("ofac_sdn") == real


def test_reset_including_real_deletes_the_real_edition_and_serves_the_demo_again(tmp_path):
    seed()
    real = load_real_ofac(tmp_path)
    out = seed("--reset", "--including-real")
    assert not SourceSnapshot.objects.filter(pk=real.pk).exists()
    assert not SourceSnapshot.objects.filter(is_demo=False).exists()
    assert not EditionFile.objects.filter(checksum=real.checksum).exists()
    assert active("ofac_sdn").is_demo
    assert "Reset:" in out and "answer as the README's 'Demo world' table says" in out


def test_reset_brings_back_an_omitted_source_and_forgets_failed_refreshes():
    seed("--omit-source", "uk_sanctions")
    SourceSnapshot.objects.create(source="ofac_sdn", status=SourceSnapshot.Status.FAILED, message="refused: test")
    assert active("uk_sanctions") is None
    seed("--reset")  # no real edition: nothing to refuse
    assert active("uk_sanctions").is_demo
    assert not SourceSnapshot.objects.filter(status=SourceSnapshot.Status.FAILED).exists()
    assert not SourceSnapshot.objects.exclude(status=SourceSnapshot.Status.ACTIVE).exists()


def test_including_real_alone_is_refused():
    with pytest.raises(CommandError, match="--including-real goes with --reset"):
        seed("--including-real")


def test_with_a_real_edition_the_summary_no_longer_claims_the_demo_verdicts_hold(tmp_path):
    seed()
    load_real_ofac(tmp_path)
    out = seed()  # what bin/run prints on every start
    assert "hold only while the demo lists are the ones loaded" in out
    assert "seed_demo --reset --including-real" in out
    assert "answer as the README's 'Demo world' table says" not in out


def test_on_the_demo_lists_alone_the_summary_points_to_the_demo_table():
    out = seed()
    assert "the 18 demo hulls answer as the README's 'Demo world' table says" in out
