"""Browser timings of the running app in headless chromium, and the server's peak memory.

Run with ``python -m benchmarks.browser``. Measures, on a freshly started server:
first load to idle (the very first visit, which pays the imports, then a second visitor),
the time from a slider move to the updated chart (median of several moves), and the server
process's peak resident memory (VmHWM).
"""

from __future__ import annotations

import statistics
import time

from playwright.sync_api import sync_playwright

from benchmarks.server import CHROMIUM, CHROMIUM_ARGS, peak_memory_bytes, running_server

CHART_MARKS = "[data-testid='stVegaLiteChart'] svg [aria-label]"
LABELS_JS = f"[...document.querySelectorAll(\"{CHART_MARKS}\")].map(n => n.getAttribute('aria-label'))"


def _wait_idle(page) -> None:
    page.locator("[data-testid='stApp'][data-test-script-state='notRunning']").wait_for(
        state="attached", timeout=60_000
    )


def first_load(browser, url: str) -> float:
    """Seconds from navigation to the app idle with its charts drawn."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_selector(CHART_MARKS, state="attached", timeout=60_000)
    _wait_idle(page)
    elapsed = time.perf_counter() - start
    context.close()
    return elapsed


def visit(browser, url: str) -> None:
    """Open a page and wait until its script has run (pages without charts included)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(url)
    page.get_by_test_id("stAppViewContainer").wait_for(state="attached", timeout=60_000)
    page.wait_for_timeout(300)
    _wait_idle(page)
    context.close()


def slider_to_chart(browser, url: str, moves: int = 8) -> list[float]:
    """Seconds from each Cards slider key press to the chart's marks changing."""
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.goto(url)
    page.wait_for_selector(CHART_MARKS, state="attached", timeout=60_000)
    _wait_idle(page)
    slider = page.get_by_test_id("stSidebar").get_by_role("slider", name="Cards")
    samples = []
    for index in range(moves):
        before = page.evaluate(LABELS_JS)
        slider.focus()
        start = time.perf_counter()
        page.keyboard.press("ArrowRight" if index % 2 == 0 else "ArrowLeft")
        page.wait_for_function(
            f"before => JSON.stringify({LABELS_JS}) !== JSON.stringify(before)", arg=before, timeout=30_000
        )
        samples.append(time.perf_counter() - start)
        _wait_idle(page)
    return samples


def main() -> None:
    """Print first-load and slider-to-chart times and the server's peak memory."""
    with running_server() as (process, url), sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        cold = first_load(browser, url)
        warm = [first_load(browser, url) for _ in range(3)]
        moves = slider_to_chart(browser, f"{url}/?goal=pretrain")  # training memory moves with the cards
        for path in ("costs", "vram", "tokens", "compare", "anatomy", "method", "validation"):
            visit(browser, f"{url}/{path}?model=llama-3.1-70b&cards=64")
        browser.close()
        peak = peak_memory_bytes(process.pid)
    print(f"first load to idle, first visit after server start: {cold:.2f} s  [target <= 3 s]")
    print(f"first load to idle, later visitors (median of 3): {statistics.median(warm):.2f} s  [target <= 3 s]")
    print(
        f"slider move to updated chart: median {statistics.median(moves):.2f} s, worst {max(moves):.2f} s "
        f"over {len(moves)} moves  [target <= 1 s]"
    )
    if peak is not None:
        print(f"server peak resident memory after visiting every page: {peak / 1e6:,.0f} MB  [target < 1,000 MB]")


if __name__ == "__main__":
    main()
