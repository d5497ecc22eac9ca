"""Soak: sessions opening, acting and leaving for many minutes; the server's memory after warm-up and at the end.

Run with ``python -m benchmarks.soak --minutes 30`` (options: ``--slots N --warmup MIN --drain S
--out FILE``). A fresh server is pinned to core 0 (the websocket visitors to core 1). Each of the
slots (8) runs visitors one after the other: a visitor arrives by one of several shared links
(pages, scenarios, the Chinese interface), acts every 2-5 s and leaves after 30-120 s; the next
arrives 0-5 s later. Every 10 s it samples the server's resident memory and its
``/_stcore/metrics`` (active sessions, bytes held by session state and caches). It prints the
memory after the warm-up (3 min) and at the end, the growth between them (target: within 10 %),
the peak, the memory once every visitor has left and the disconnected sessions' time to live
(120 s) has passed, the reruns and their p50/p95, and errors (a drawn exception, a rerun that did
not finish, a traceback in the server's log). The samples go to ``--out`` as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import tempfile
import time
import urllib.request
from pathlib import Path

from benchmarks.server import peak_memory_bytes, resident_memory_bytes
from benchmarks.wire import LINKS, Tally, allowed_cores, cpu_seconds, percentile, pinned_server, server_errors, visitor

THINK = (2.0, 5.0)
LIFE = (30.0, 120.0)
SAMPLE_S = 10.0
_METRIC = re.compile(r"^(\w+?)(?:_total)?(?:\{(.*)\})? ([0-9.e+-]+)$")


def server_metrics(url: str) -> dict[str, float]:
    """Streamlit's own figures: active sessions, session events, and bytes held per cache type."""
    with urllib.request.urlopen(f"{url}/_stcore/metrics", timeout=30) as response:
        text = response.read().decode()
    figures: dict[str, float] = {}
    for line in text.splitlines():
        match = _METRIC.match(line)
        if not match:
            continue
        name, labels, value = match.groups()
        labels = dict(re.findall(r'(\w+)="([^"]*)"', labels or ""))
        if name == "cache_memory_bytes":
            name = f"bytes:{labels.get('cache_type', '?')}"
        elif "type" in labels:
            name = f"{name}:{labels['type']}"
        figures[name] = figures.get(name, 0.0) + float(value)
    return figures


async def _slot(url: str, seed: int, end: float, tally: Tally) -> None:
    rng = random.Random(seed)
    while time.monotonic() < end - THINK[1]:
        until = min(end, time.monotonic() + rng.uniform(*LIFE))
        await visitor(url, rng.choice(LINKS), random.Random(rng.random()), until, THINK, tally)
        await asyncio.sleep(rng.uniform(0, 5))


async def _sample(pid: int, url: str, started: float, tally: Tally, samples: list[dict]) -> None:
    """Append a sample now: minutes, resident MB, server CPU seconds, sessions, metrics."""
    try:
        metrics = await asyncio.to_thread(server_metrics, url)
    except OSError as error:
        metrics = {"error": str(error)}
    samples.append({
        "minute": round((time.monotonic() - started) / 60, 2),
        "rss_mb": round((resident_memory_bytes(pid) or 0) / 1e6, 1),
        "cpu_s": round(cpu_seconds(pid), 1),
        "opened": tally.opened,
        "closed": tally.closed,
        "reruns": len(tally.reruns),
        **metrics,
    })  # fmt: skip


async def _soak(pid: int, url: str, args: argparse.Namespace, tally: Tally, samples: list[dict]) -> None:
    started = time.monotonic()
    end = started + args.minutes * 60
    slots = [asyncio.create_task(_slot(url, seed, end, tally)) for seed in range(args.slots)]
    while time.monotonic() < end - THINK[0] - 1:  # visitors leave in the last seconds
        await _sample(pid, url, started, tally, samples)
        await asyncio.sleep(min(SAMPLE_S, max(0.0, end - THINK[0] - 1 - time.monotonic())))
    await _sample(pid, url, started, tally, samples)  # the end: the visitors still there
    samples[-1]["mark"] = "end"
    await asyncio.wait_for(asyncio.gather(*slots), 180)
    await _sample(pid, url, started, tally, samples)
    samples[-1]["mark"] = "left"
    drained = time.monotonic() + args.drain
    while time.monotonic() < drained:
        await asyncio.sleep(SAMPLE_S)
        await _sample(pid, url, started, tally, samples)
    samples[-1]["mark"] = "drained"


def _at(samples: list[dict], minute: float) -> dict:
    return min(samples, key=lambda sample: abs(sample["minute"] - minute))


def main() -> None:
    """Run the soak against a fresh server pinned to one core and print the memory figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--slots", type=int, default=8, help="visitors at once (each slot: one after another)")
    parser.add_argument("--warmup", type=float, default=3.0, help="minutes before the reference memory")
    parser.add_argument("--drain", type=float, default=150.0, help="seconds to wait after everyone has left")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "soak-samples.json")
    args = parser.parse_args()
    tally, samples = Tally(), []
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "server.log"
        with pinned_server(log) as (process, url):
            cores = allowed_cores(process.pid)
            asyncio.run(_soak(process.pid, url, args, tally, samples))
            peak = peak_memory_bytes(process.pid) or 0
        tracebacks = server_errors(log)
    args.out.write_text(json.dumps(samples, indent=1))
    warm, end = _at(samples, args.warmup), next(s for s in samples if s.get("mark") == "end")
    drained = samples[-1]
    growth = (end["rss_mb"] - warm["rss_mb"]) / warm["rss_mb"]
    latencies = [seconds for _, seconds, _ in tally.reruns]
    print(f"soak: {args.minutes:g} min, {args.slots} visitor slots, server on core(s) {cores}")
    print(f"visitors: {tally.opened} opened, {tally.closed} closed; reruns: {len(latencies)}")
    if latencies:
        p50, p95 = statistics.median(latencies), percentile(latencies, 0.95)
        print(f"rerun latency: p50 {p50:.2f} s, p95 {p95:.2f} s, worst {max(latencies):.2f} s")
    print(f"errors: {len(tally.errors) + len(tracebacks)}")
    for error in (tally.errors + tracebacks)[:10]:
        print(f"  {error[:2000]}")
    print(
        f"resident memory: {warm['rss_mb']:.0f} MB after warm-up (minute {warm['minute']:g}), "
        f"{end['rss_mb']:.0f} MB at the end (minute {end['minute']:g}): {growth:+.1%}  [target within 10 %]"
    )
    after = [s["rss_mb"] for s in samples if warm["minute"] <= s["minute"] <= end["minute"]]
    print(f"resident memory from the warm-up to the end: {min(after):.0f}-{max(after):.0f} MB")
    print(
        f"peak resident memory: {peak / 1e6:,.0f} MB; "
        f"after everyone left and {args.drain:g} s: {drained['rss_mb']:.0f} MB"
    )
    for name, sample in (("warm-up", warm), ("end", end), ("drained", drained)):
        held = {k: v for k, v in sample.items() if k.startswith(("bytes:", "active_sessions"))}
        print(f"  {name}: {json.dumps(held)}")
    print(f"samples: {args.out}")
    raise SystemExit(1 if tally.errors or tracebacks or growth > 0.10 else 0)


if __name__ == "__main__":
    main()
