"""Headless Chromium (Debian's package) against a live test server; skipped where it is not installed."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SCREENSHOT_DIR = Path(__file__).resolve().parent.parent.parent / "var" / "screenshots"


@contextmanager
def chromium_against(live_server: Any, settings: Any, monkeypatch: Any) -> Iterator[Any]:
    """Playwright's Chromium (Debian's package) driving the live test server; skipped where it is not installed."""
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (bin/test installs it on CI)")
    sync_api = pytest.importorskip("playwright.sync_api")
    # Playwright runs an event loop in this thread; the test's own ORM reads happen outside any coroutine.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    settings.PUBLIC_BASE_URL = live_server.url
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            yield browser
        finally:
            browser.close()


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
