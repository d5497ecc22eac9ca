"""Many users at once: 10 headless chromium sessions driving one server for 60 seconds.

Run with ``python -m benchmarks.load`` (options: ``--sessions N --seconds S``). It starts the app
on a loopback port, opens each session on the Overview, then each one, as fast as the app
answers, moves the Cards slider, picks a precision or switches page, at random. A rerun's
latency is the time from the action to the app's script state going from running back to idle
(what a person waits for). It prints the number of actions, errors (an exception drawn on the
page, a crashed tab, a rerun that never finished), p50 and p95 rerun latency, and the server's
peak resident memory. Bounded: the whole run is cancelled after the duration plus two minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from dataclasses import dataclass, field

from playwright.async_api import Browser, Page, async_playwright

from benchmarks.server import CHROMIUM, CHROMIUM_ARGS, peak_memory_bytes, running_server

PAGES = ("Overview", "Training vs inference cost", "VRAM", "Tokens per second", "Compare", "Method", "Validation")
PRECISIONS = ("bf16", "fp8", "fp16", "int4")
RERUN_TIMEOUT_MS = 60_000
START_TIMEOUT_MS = 10_000
"""An action that starts no rerun in this long had nothing to do (the slider at its end, the page open)."""

# Installed before an action: resolves once the script state has gone to running and back.
_ARM = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  window.__rerun = new Promise((resolve) => {
    let running = false;
    const observer = new MutationObserver((records) => {
      // A fast rerun can start and end between two callbacks: read each change's old value too.
      for (const record of records) if (record.oldValue === 'running') running = true;
      const state = app.getAttribute('data-test-script-state');
      if (state === 'running') running = true;
      if (running && state === 'notRunning') { observer.disconnect(); resolve(true); }
    });
    observer.observe(app, {attributes: true, attributeOldValue: true, attributeFilter: ['data-test-script-state']});
    setTimeout(() => { if (!running) { observer.disconnect(); resolve(null); } }, START_MS);
    setTimeout(() => { observer.disconnect(); resolve(false); }, RERUN_MS);
  });
}""".replace("START_MS", str(START_TIMEOUT_MS)).replace("RERUN_MS", str(RERUN_TIMEOUT_MS))


@dataclass
class Tally:
    """What every session saw."""

    latencies: list[float] = field(default_factory=list)
    actions: int = 0
    no_rerun: int = 0
    quiet_actions: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


async def _idle(page: Page) -> None:
    await page.locator("[data-testid='stApp'][data-test-script-state='notRunning']").wait_for(
        state="attached", timeout=RERUN_TIMEOUT_MS
    )


async def _act(page: Page, rng: random.Random, state: dict[str, str]) -> str:
    """Do one thing a person would, always a change: another card count, precision or page."""
    roll = rng.random()
    sidebar = page.get_by_test_id("stSidebar")
    if roll < 0.5:
        slider = sidebar.get_by_role("slider", name="Cards")
        await slider.focus()
        await page.keyboard.press(rng.choice(("ArrowRight", "ArrowLeft")))
        return "cards"
    if roll < 0.7:
        state["precision"] = rng.choice([p for p in PRECISIONS if p != state["precision"]])
        await sidebar.get_by_role("radio", name=state["precision"], exact=True).click()
        return "precision"
    state["page"] = rng.choice([p for p in PAGES if p != state["page"]])
    await page.get_by_test_id("stSidebarNav").get_by_role("link", name=state["page"], exact=True).click()
    return "page"


async def _session(browser: Browser, url: str, seed: int, deadline: float, tally: Tally) -> None:
    rng = random.Random(seed)
    state = {"precision": "bf16", "page": "Overview"}  # the app's defaults
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    page.on("crash", lambda _page: tally.errors.append(f"session {seed}: the tab crashed"))
    await page.goto(url)
    await page.get_by_test_id("stAppViewContainer").wait_for(state="attached", timeout=RERUN_TIMEOUT_MS)
    await _idle(page)
    while time.monotonic() < deadline:
        await page.evaluate(_ARM)
        started = time.perf_counter()
        action = await _act(page, rng, state)
        finished = await page.evaluate("window.__rerun")
        elapsed = time.perf_counter() - started
        tally.actions += 1
        if finished is True:
            tally.latencies.append(elapsed)
        elif finished is False:
            tally.errors.append(f"session {seed}: a rerun after '{action}' did not finish in 60 s")
        else:
            tally.no_rerun += 1  # e.g. the slider was already at its end, or the page was already open
            tally.quiet_actions.append(action)
        await _idle(page)
        if await page.get_by_test_id("stException").count():
            tally.errors.append(f"session {seed}: an exception is drawn after '{action}'")
            break
    await context.close()


async def _drive(url: str, sessions: int, seconds: float, tally: Tally) -> None:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        deadline = time.monotonic() + seconds
        runs = [_session(browser, url, seed, deadline, tally) for seed in range(sessions)]
        results = await asyncio.gather(*runs, return_exceptions=True)
        tally.errors += [f"session {n}: {type(r).__name__}: {r}" for n, r in enumerate(results) if r is not None]
        await browser.close()


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> None:
    """Run the sessions against a fresh server and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    tally = Tally()
    with running_server() as (process, url):
        try:
            asyncio.run(asyncio.wait_for(_drive(url, args.sessions, args.seconds, tally), args.seconds + 120))
        except TimeoutError:
            tally.errors.append("the run did not end within its time bound")
        peak = peak_memory_bytes(process.pid)
    print(f"{args.sessions} concurrent chromium sessions for {args.seconds:g} s against one server")
    print(f"actions: {tally.actions} ({len(tally.latencies)} reruns, {tally.no_rerun} with nothing to rerun)")
    if tally.quiet_actions:
        kinds = ", ".join(f"{kind} {tally.quiet_actions.count(kind)}" for kind in sorted(set(tally.quiet_actions)))
        print(f"actions that started no rerun: {kinds}")
    print(f"errors: {len(tally.errors)}")
    for error in tally.errors[:10]:
        print(f"  {error}")
    if tally.latencies:
        p50, p95 = statistics.median(tally.latencies), _percentile(tally.latencies, 0.95)
        print(f"rerun latency: p50 {p50:.2f} s, p95 {p95:.2f} s, worst {max(tally.latencies):.2f} s")
    if peak is not None:
        print(f"server peak resident memory: {peak / 1e6:,.0f} MB  [target < 1,000 MB]")
    raise SystemExit(1 if tally.errors else 0)


if __name__ == "__main__":
    main()
