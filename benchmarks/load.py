"""Many users at once: 10 headless chromium sessions driving one server for 60 seconds.

Run with ``python -m benchmarks.load`` (options: ``--sessions N --seconds S``). It starts the app
on a loopback port, opens each session on the Overview, then each one, as fast as the app
answers, moves the Cards slider a step, picks another precision or switches to another page, at
random: every action changes something, so every one must start and finish a rerun. A rerun's
latency is the time from the action to the end of the rerun it asked for, read from the
session's websocket (what a person waits for). It prints the number of actions, errors (an
exception drawn on the page, a crashed tab, an action that asked for no rerun or whose rerun never
finished), p50 and p95 rerun latency, and the server's peak resident memory. Bounded: the whole
run is cancelled after the duration plus two minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Page, WebSocket, async_playwright
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from benchmarks.server import CHROMIUM, CHROMIUM_ARGS, peak_memory_bytes, running_server
from ui.controls import CARD_STEPS, CONTROLS

PAGES = ("Overview", "Training vs inference cost", "VRAM", "Tokens per second", "Compare", "Method", "Validation")
PRECISIONS = ("bf16", "fp8", "fp16", "int4")
RERUN_TIMEOUT_MS = 60_000
RERUN_TIMEOUT_S = RERUN_TIMEOUT_MS / 1000
"""Every action changes the scenario or the page, so each must be asked for and finish in this long."""
_COMPLETED = (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)


class Wire:
    """One session's websocket, read as Streamlit's protobuf messages: when reruns are asked and end.

    Reading the wire, not the page's script-state attribute: a fast rerun's start and end can
    reach the page in one render, and the attribute then never changes.
    """

    def __init__(self) -> None:
        self.asked: list[float] = []
        self.ended: list[float] = []
        self.changed = asyncio.Event()

    def watch(self, socket: WebSocket) -> None:
        """Listen to ``socket`` (Playwright's websocket event hands each new one here)."""
        socket.on("framesent", self._sent)
        socket.on("framereceived", self._received)

    def _sent(self, frame: str | bytes) -> None:
        message = BackMsg()
        message.ParseFromString(frame if isinstance(frame, bytes) else frame.encode())
        if message.WhichOneof("type") == "rerun_script":
            self.asked.append(time.perf_counter())
            self.changed.set()

    def _received(self, frame: str | bytes) -> None:
        message = ForwardMsg()
        message.ParseFromString(frame if isinstance(frame, bytes) else frame.encode())
        if message.WhichOneof("type") == "script_finished" and message.script_finished in _COMPLETED:
            self.ended.append(time.perf_counter())
            self.changed.set()

    async def rerun_after(self, started: float) -> float | str:
        """Seconds from ``started`` to the end of a rerun asked after it, or what went wrong."""
        deadline = started + RERUN_TIMEOUT_S
        while True:
            asked = next((t for t in self.asked if t >= started), None)
            ended = next((t for t in self.ended if asked is not None and t >= asked), None)
            if ended is not None:
                return ended - started
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                return "never asked for" if asked is None else "asked for but never finished"
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), remaining)


@dataclass
class Tally:
    """What every session saw."""

    latencies: list[float] = field(default_factory=list)
    actions: int = 0
    errors: list[str] = field(default_factory=list)


async def _idle(page: Page) -> None:
    await page.locator("[data-testid='stApp'][data-test-script-state='notRunning']").wait_for(
        state="attached", timeout=RERUN_TIMEOUT_MS
    )


async def _act(page: Page, rng: random.Random, state: dict[str, Any]) -> str:
    """Do one thing a person would, always a change: another card count, precision or page."""
    roll = rng.random()
    sidebar = page.get_by_test_id("stSidebar")
    if roll < 0.5:
        # One step along the slider, turning back at either end so the count always changes.
        step = rng.choice((1, -1))
        if not 0 <= state["cards"] + step < len(CARD_STEPS):
            step = -step
        state["cards"] += step
        slider = sidebar.get_by_role("slider", name="Cards")
        await slider.focus()
        await page.keyboard.press("ArrowRight" if step > 0 else "ArrowLeft")
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
    state: dict[str, Any] = {  # the app's defaults
        "precision": CONTROLS["precision"].default,
        "cards": CARD_STEPS.index(CONTROLS["cards"].default),
        "page": "Overview",
    }
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    wire = Wire()
    page.on("websocket", wire.watch)
    page.on("crash", lambda _page: tally.errors.append(f"session {seed}: the tab crashed"))
    await page.goto(url)
    await page.get_by_test_id("stAppViewContainer").wait_for(state="attached", timeout=RERUN_TIMEOUT_MS)
    await _idle(page)
    while time.monotonic() < deadline:
        started = time.perf_counter()
        action = await _act(page, rng, state)
        outcome = await wire.rerun_after(started)
        tally.actions += 1
        if isinstance(outcome, float):
            tally.latencies.append(outcome)
        else:
            tally.errors.append(f"session {seed}: the rerun after '{action}' was {outcome} in 60 s")
        await _idle(page)
        if await page.get_by_test_id("stException").count():
            shown = (await page.get_by_test_id("stException").first.inner_text())[:300]
            tally.errors.append(f"session {seed}: an exception is drawn after '{action}' on {page.url}: {shown!r}")
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
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "server.log"
        with running_server(log) as (process, url):
            try:
                asyncio.run(asyncio.wait_for(_drive(url, args.sessions, args.seconds, tally), args.seconds + 120))
            except TimeoutError:
                tally.errors.append("the run did not end within its time bound")
            peak = peak_memory_bytes(process.pid)
        server_output = log.read_text(encoding="utf-8", errors="replace")
    print(f"{args.sessions} concurrent chromium sessions for {args.seconds:g} s against one server")
    print(f"actions: {tally.actions}, each a change that must rerun; reruns finished: {len(tally.latencies)}")
    print(f"errors: {len(tally.errors)}")
    for error in tally.errors[:10]:
        print(f"  {error}")
    tracebacks = server_output.count("Traceback")
    if tracebacks:
        print(f"the server logged {tracebacks} traceback(s); the first one:")
        print(server_output[server_output.index("Traceback") :][:12_000])
    if tally.latencies:
        p50, p95 = statistics.median(tally.latencies), _percentile(tally.latencies, 0.95)
        print(f"rerun latency: p50 {p50:.2f} s, p95 {p95:.2f} s, worst {max(tally.latencies):.2f} s")
    if peak is not None:
        print(f"server peak resident memory: {peak / 1e6:,.0f} MB  [target < 1,000 MB]")
    raise SystemExit(1 if tally.errors or "Traceback" in server_output else 0)


if __name__ == "__main__":
    main()
