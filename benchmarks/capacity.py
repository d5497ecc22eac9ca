"""Server capacity without browsers: N websocket sessions, each acting every 2-5 s, on one server core.

Run with ``python -m benchmarks.capacity`` (options: ``--levels 1,2,4,... --seconds S --warm S``).
A fresh server is pinned to core 0, the websocket clients (``benchmarks.wire``) to core 1. For
each level N it opens N sessions by the shared links in ``benchmarks.wire.LINKS`` (arrivals
spread over 5 s), each of which then moves the Cards slider a step, picks another precision or
opens another page after a think time of 2-5 s (uniform), for ``--warm`` plus ``--seconds``
seconds; only reruns that end after the warm-up count. It prints, per level, the reruns, reruns
per second, rerun latency p50/p95 (action sent to the run's end), the server's CPU use and the
errors, and stops after the first level whose p95 is 1 s or more. The answer is the largest N
whose p95 stayed under 1 s, and its reruns per second on the one core.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.server import peak_memory_bytes
from benchmarks.wire import LINKS, Tally, allowed_cores, cpu_seconds, percentile, pinned_server, server_errors, visitor

THINK = (2.0, 5.0)
TARGET_P95_S = 1.0


@dataclass
class Level:
    """One level's figures."""

    sessions: int
    reruns: int
    per_second: float
    p50: float
    p95: float
    worst: float
    cpu_share: float
    errors: list[str]


async def _arrive(url: str, rng: random.Random, until: float, tally: Tally) -> None:
    await asyncio.sleep(rng.uniform(0, THINK[1]))
    await visitor(url, rng.choice(LINKS), random.Random(rng.random()), until, THINK, tally)


async def _level(pid: int, url: str, sessions: int, warm: float, seconds: float, seed: int) -> Level:
    rng = random.Random(seed)
    tally = Tally()
    started = time.monotonic()
    until = started + warm + seconds
    runs = [asyncio.create_task(_arrive(url, random.Random(rng.random()), until, tally)) for _ in range(sessions)]
    await asyncio.sleep(warm)
    window, cpu = time.monotonic(), cpu_seconds(pid)
    await asyncio.sleep(max(0.0, until - time.monotonic()))
    elapsed, used = time.monotonic() - window, cpu_seconds(pid) - cpu
    await asyncio.wait_for(asyncio.gather(*runs), 120)
    latencies = [s for ended, s, _ in tally.reruns if window <= ended <= window + elapsed]
    return Level(
        sessions=sessions,
        reruns=len(latencies),
        per_second=len(latencies) / elapsed,
        p50=statistics.median(latencies) if latencies else float("nan"),
        p95=percentile(latencies, 0.95) if latencies else float("nan"),
        worst=max(latencies, default=float("nan")),
        cpu_share=used / elapsed,
        errors=tally.errors,
    )


async def _ramp(pid: int, url: str, args: argparse.Namespace) -> list[Level]:
    levels = []
    for index, sessions in enumerate(args.levels):
        level = await _level(pid, url, sessions, args.warm, args.seconds, seed=index)
        levels.append(level)
        print(
            f"{level.sessions:>8} {level.reruns:>7} {level.per_second:>9.2f} {level.p50:>7.2f} {level.p95:>7.2f} "
            f"{level.worst:>7.2f} {level.cpu_share:>10.0%} {len(level.errors):>6}",
            flush=True,
        )
        if not level.p95 < TARGET_P95_S:
            break
    return levels


def main() -> None:
    """Ramp the sessions against a fresh server pinned to one core and print the capacity."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="1,2,4,8,10,12,14,16,18,20,24,28,32")
    parser.add_argument("--seconds", type=float, default=60.0, help="measured seconds per level")
    parser.add_argument("--warm", type=float, default=10.0, help="seconds per level before measuring")
    args = parser.parse_args()
    args.levels = [int(n) for n in args.levels.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "server.log"
        with pinned_server(log) as (process, url):
            print(f"server on core(s) {allowed_cores(process.pid)}; think time {THINK[0]:g}-{THINK[1]:g} s")
            print("sessions  reruns  reruns/s   p50 s   p95 s worst s server CPU errors")
            levels = asyncio.run(_ramp(process.pid, url, args))
            peak = peak_memory_bytes(process.pid) or 0
        tracebacks = server_errors(log)
    errors = [error for level in levels for error in level.errors] + tracebacks
    for error in errors[:10]:
        print(f"  {error[:2000]}")
    passed = [level for level in levels if level.p95 < TARGET_P95_S]
    if passed:
        best = passed[-1]
        print(
            f"largest N with p95 < {TARGET_P95_S:g} s: {best.sessions} sessions on one core, "
            f"{best.per_second:.1f} reruns/s/core (p50 {best.p50:.2f} s, p95 {best.p95:.2f} s, "
            f"server CPU {best.cpu_share:.0%}, {best.cpu_share / best.per_second * 1000:.0f} ms CPU per rerun)"
        )
    if levels and levels[-1] not in passed:
        over = levels[-1]
        print(f"first level over: {over.sessions} sessions, p95 {over.p95:.2f} s, {over.per_second:.1f} reruns/s")
    print(f"errors: {len(errors)}; server peak resident memory: {peak / 1e6:,.0f} MB")
    raise SystemExit(1 if errors else 0)


if __name__ == "__main__":
    main()
