"""The meeting burst: one shared deep link opened by 20 people at once on a server that has just started.

Run with ``python -m benchmarks.burst`` (options: ``--sessions N --url PATH``). It starts a fresh
server (nothing imported or cached yet) pinned to core 0, launches ONE headless chromium on core 1
with one browser context per session, then sends every context to the same link at the same
moment. A session has rendered when its first run has finished (read from its websocket, as
``benchmarks.load`` does), the page shows the script idle, and no skeleton or undrawn chart is
left (what ``tests/browser/conftest.py`` waits for). It prints the time until the last and the
median session rendered, the same for the server's part (the run's end on the wire), the
server's peak resident memory, and errors: an exception drawn on a page, a tab that crashed or
timed out, a link whose scenario is not in the address after the run, a traceback in the log.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path

from playwright.async_api import Browser, async_playwright

from benchmarks.load import Wire
from benchmarks.server import CHROMIUM, CHROMIUM_ARGS, peak_memory_bytes, resident_memory_bytes
from benchmarks.wire import WireSession, allowed_cores, cpu_seconds, pinned_server, server_errors

LINK = "/tokens?model=llama-3.1-70b&gpu=h200&cards=16&precision=fp8&batch=64"
TIMEOUT_MS = 300_000
DRAWN_JS = """() =>
  document.querySelectorAll("[data-testid='stSkeleton'], [data-testid='stSkeletonElement']").length === 0
  && [...document.querySelectorAll("[data-testid='stVegaLiteChart']")].every(c => c.querySelector("svg.marks"))"""
"""No loading placeholder left and every chart has its marks (conftest.wait_until_drawn)."""


async def _session(browser: Browser, url: str, link: str, start: asyncio.Event, result: dict) -> None:
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    wire = Wire()
    page.on("websocket", wire.watch)
    page.on("crash", lambda _page: result["errors"].append("the tab crashed"))
    page.on("pageerror", lambda error: result["js_errors"].append(str(error)[:300]))
    result["ready"] = True
    await start.wait()
    began = time.perf_counter()
    await page.goto(url + link, timeout=TIMEOUT_MS)
    await page.get_by_test_id("stAppViewContainer").wait_for(state="attached", timeout=TIMEOUT_MS)
    while not wire.ended:  # the first run: asked for on connecting (slow when the browser is busy)
        wire.changed.clear()
        await asyncio.wait_for(wire.changed.wait(), TIMEOUT_MS / 1000)
    result["server"] = wire.ended[0] - began
    result["run"] = wire.ended[0] - wire.asked[0]
    await page.locator("[data-testid='stApp'][data-test-script-state='notRunning']").wait_for(
        state="attached", timeout=TIMEOUT_MS
    )
    await page.wait_for_function(DRAWN_JS, timeout=TIMEOUT_MS)
    result["rendered"] = time.perf_counter() - began
    if await page.get_by_test_id("stException").count():
        shown = await page.get_by_test_id("stException").first.inner_text()
        result["errors"].append(f"an exception is drawn: {shown[:1500]!r}")
    wanted = [part for part in link.partition("?")[2].split("&") if part]
    lost = [part for part in wanted if part not in page.url]
    if lost:
        result["errors"].append(f"the address lost {lost}: {page.url}")
    await context.close()


async def _wire_burst(url: str, link: str, sessions: int) -> list[dict]:
    """The same burst without browsers: websocket sessions (``benchmarks.wire``) ask for the first run at once."""

    async def one(seed: int) -> dict:
        session = WireSession(url, link, random.Random(seed))
        seconds = await session.open()
        await session.close()
        return {"errors": session.errors, "js_errors": [], **({"server": seconds} if seconds is not None else {})}

    return list(await asyncio.gather(*(one(seed) for seed in range(sessions))))


async def _burst(url: str, link: str, sessions: int) -> list[dict]:
    results = [{"errors": [], "js_errors": []} for _ in range(sessions)]
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        start = asyncio.Event()
        runs = [asyncio.create_task(_session(browser, url, link, start, result)) for result in results]
        while not all(result.get("ready") or run.done() for result, run in zip(results, runs, strict=True)):
            await asyncio.sleep(0.05)
        start.set()  # every context exists: all navigate at once
        outcomes = await asyncio.gather(*runs, return_exceptions=True)
        for result, outcome in zip(results, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                result["errors"].append(f"{type(outcome).__name__}: {str(outcome)[:500]}")
        await browser.close()
    return results


def main() -> None:
    """Open the link in N browser contexts at once against a fresh server; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--url", default=LINK, help="the path and query string every session opens")
    parser.add_argument("--wire", action="store_true", help="websocket sessions instead of browsers")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "server.log"
        with pinned_server(log) as (process, url):
            idle = resident_memory_bytes(process.pid) or 0
            cpu = cpu_seconds(process.pid)
            began = time.perf_counter()
            burst = (_wire_burst if args.wire else _burst)(url, args.url, args.sessions)
            results = asyncio.run(asyncio.wait_for(burst, TIMEOUT_MS / 1000 * 2))
            wall = time.perf_counter() - began
            used, cores = cpu_seconds(process.pid) - cpu, allowed_cores(process.pid)
            peak = peak_memory_bytes(process.pid) or 0
            after = resident_memory_bytes(process.pid) or 0
        tracebacks = server_errors(log)
    rendered = [r["rendered"] for r in results if "rendered" in r]
    server = [r["server"] for r in results if "server" in r]
    runs = [r["run"] for r in results if "run" in r]
    errors = [f"session {n}: {e}" for n, r in enumerate(results) for e in r["errors"]] + tracebacks
    js_errors = [e for r in results for e in r["js_errors"]]
    clients = "websocket clients" if args.wire else "one chromium"
    print(f"{args.sessions} sessions at once, {clients} (core 1), a fresh server on core(s) {cores}: {args.url}")
    if not args.wire:
        print(f"rendered: {len(rendered)} of {args.sessions}")
    if rendered:
        print(f"time to the last session rendered: {max(rendered):.2f} s, median {statistics.median(rendered):.2f} s")
    if server:
        last, median = max(server), statistics.median(server)
        print(f"the first run's end on the wire: last {last:.2f} s, median {median:.2f} s (of {len(server)})")
    if runs:
        longest, median = max(runs), statistics.median(runs)
        print(f"the first run itself (asked for to ended): longest {longest:.2f} s, median {median:.2f} s")
    print(f"server CPU during the burst: {used:.1f} s in {wall:.1f} s")
    print(f"errors: {len(errors)}  [target 0]")
    for error in errors[:10]:
        print(f"  {error[:2000]}")
    if js_errors:
        print(f"browser script errors (not counted): {len(js_errors)}, e.g. {js_errors[0]!r}")
    print(
        f"server resident memory: {idle / 1e6:,.0f} MB started, peak {peak / 1e6:,.0f} MB, "
        f"{after / 1e6:,.0f} MB after  [target peak < 1,000 MB]"
    )
    done = len(server) if args.wire else len(rendered)
    raise SystemExit(1 if errors or done < args.sessions or peak >= 1e9 else 0)


if __name__ == "__main__":
    main()
