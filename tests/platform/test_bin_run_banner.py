"""Issue 30 item 6: bin/run's banner says how to change the port, where development mail goes and how
to return to the pure demo world."""

from __future__ import annotations

from pathlib import Path

RUN = (Path(__file__).resolve().parent.parent.parent / "bin" / "run").read_text()
BANNER = "\n".join(line for line in RUN.splitlines() if line.lstrip().startswith("echo"))


def test_the_banner_says_how_to_change_the_port():
    assert "PORT=8001 bin/run" in BANNER


def test_the_banner_says_where_sign_up_mail_goes_in_development():
    assert "var}/mail}/" in BANNER and "EMAIL_HOST" in BANNER


def test_the_banner_says_how_to_return_to_the_pure_demo_world():
    assert "manage.py seed_demo --reset" in BANNER and "--including-real" in BANNER
