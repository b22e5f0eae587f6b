"""Headless Chromium (Debian's package) against a live test server; skipped where it is not installed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SCREENSHOT_DIR = Path(__file__).resolve().parent.parent.parent / "var" / "screenshots"


def _run(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *args],
        capture_output=True,
        timeout=90,
        check=False,
    )


@pytest.fixture
def browser():
    """browser.dom(url) -> rendered HTML; browser.screenshot(url, name) -> PNG path."""
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (bin/test installs it on CI)")
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)

    class Browser:
        @staticmethod
        def dom(url: str) -> str:
            result = _run(["--dump-dom", url])
            assert result.returncode == 0, result.stderr.decode()[-2000:]
            return result.stdout.decode()

        @staticmethod
        def screenshot(url: str, name: str, size: str = "1200,1800") -> Path:
            target = SCREENSHOT_DIR / f"{name}.png"
            target.unlink(missing_ok=True)
            result = _run([f"--screenshot={target}", f"--window-size={size}", url])
            assert result.returncode == 0, result.stderr.decode()[-2000:]
            return target

    return Browser()


def png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")


def distinct_colours(path: Path) -> int:
    """A rough check that the page drew something: count distinct bytes triplets in the compressed stream."""
    data = path.read_bytes()
    return len({data[i : i + 3] for i in range(64, min(len(data), 200_000), 3)})
