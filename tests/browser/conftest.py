"""Browser tests: Playwright drives Debian's chromium against a real `streamlit run` server.

Each test module gets a freshly started server, so a module's first request is the first the
server sees (the case a shared link hits after a Community Cloud wake-up). Screenshots go to
test-results/screenshots/ (outside git). Skipped when chromium or Playwright is missing.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = ROOT / "test-results" / "screenshots"

playwright_api = pytest.importorskip("playwright.sync_api")
# A loaded CI machine can take a few seconds per rerun; the speed targets live in benchmarks/.
playwright_api.expect.set_options(timeout=20_000)

BROWSER_MISSING = None if Path(CHROMIUM).exists() else f"Debian's chromium is not installed at {CHROMIUM}"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server() -> tuple[subprocess.Popen[bytes], str]:
    """Start the app on a free loopback port and wait until it answers its health check."""
    port = _free_port()
    command = [
        sys.executable, "-m", "streamlit", "run", "app.py",
        "--server.headless", "true", "--server.address", "127.0.0.1", "--server.port", str(port),
        "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
        "--global.developmentMode", "false",
    ]  # fmt: skip
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.read() == b"ok":
                    return process, url
        except OSError:
            time.sleep(0.2)
    process.terminate()
    raise RuntimeError("the Streamlit server did not become healthy within 60 s")


@pytest.fixture(scope="module")
def app_url() -> Iterator[str]:
    if BROWSER_MISSING:
        pytest.skip(BROWSER_MISSING)
    process, url = start_server()
    yield url
    process.terminate()
    process.wait(timeout=15)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    """Launch Debian's chromium (Playwright's own browser download cannot work here)."""
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict) -> dict:
    return {**browser_context_args, "viewport": {"width": 1400, "height": 1000}}


def wait_for_app_run(page) -> None:
    """Wait until the script has finished running (mirrors Streamlit's own e2e helper)."""
    page.wait_for_timeout(250)
    page.locator("[data-testid='stApp'][data-test-connection-state='CONNECTED']").wait_for(
        state="attached", timeout=30_000
    )
    page.locator("[data-testid='stApp'][data-test-script-state='notRunning']").wait_for(
        state="attached", timeout=30_000
    )


def open_app(page, url: str) -> None:
    """Go to ``url`` and wait for the first run to finish."""
    page.goto(url)
    page.get_by_test_id("stAppViewContainer").wait_for(state="attached", timeout=30_000)
    wait_for_app_run(page)


def mark_labels(page) -> list[str]:
    """Return the aria-labels of every chart mark on the page (Vega renders SVG in 1.67)."""
    return page.locator("[data-testid='stVegaLiteChart'] svg [aria-label]").evaluate_all(
        "nodes => nodes.map(n => n.getAttribute('aria-label'))"
    )


def selected(page, key: str) -> str:
    """Return the text a sidebar selectbox shows (its combobox input's value)."""
    return page.locator(f".st-key-{key} input[role='combobox']").input_value()


def wait_until_drawn(page) -> None:
    """Wait until no element is still a loading placeholder and every chart has drawn its marks.

    Widgets and charts load their code lazily, so a finished run can still show grey skeletons.
    """
    page.wait_for_function(
        """() => document.querySelectorAll("[data-testid='stSkeleton'], [data-testid='stSkeletonElement']").length === 0
          && [...document.querySelectorAll("[data-testid='stVegaLiteChart']")]
               .every(chart => chart.querySelector("svg.marks"))""",
        timeout=30_000,
    )


def screenshot(page, name: str) -> Path:
    """Save a full-page screenshot, once the page is drawn, as a test artifact."""
    wait_until_drawn(page)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
