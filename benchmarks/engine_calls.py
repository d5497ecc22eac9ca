"""Engine calls and rerun time per page after a slider move (issue 30: one computation per rerun).

Run with ``python -m benchmarks.engine_calls``. For each page, AppTest opens the app on it, moves the
sidebar's Cards slider to a count not seen before (so the engine's caches hold nothing for it: a cold
rerun), then back to a count already seen (a warm rerun), and prints for each: how many times
``model.estimate`` ran during the rerun and the rerun's wall time. An estimate is counted where it
resolves its scenario (``model.estimate.resolve``), so calls from every page, analysis and sweep count.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

from ui.navigation import page_files

ROOT = Path(__file__).resolve().parents[1]
estimate_module = importlib.import_module("model.estimate")  # the module: ``model.estimate`` names the function
COLD_CARDS = (16, 32, 64)
"""Card counts each page moves to, one per repeat, none of them the default of 8."""


class _Counter:
    """Counts estimate() calls by wrapping the resolve it makes first."""

    def __init__(self) -> None:
        self.calls = 0
        self._resolve: Callable[..., Any] = estimate_module.resolve

    def __enter__(self) -> _Counter:
        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return self._resolve(*args, **kwargs)

        estimate_module.resolve = counted  # type: ignore[assignment]
        return self

    def __exit__(self, *exc: object) -> None:
        estimate_module.resolve = self._resolve  # type: ignore[assignment]


def measure(page: str | None, cards: int) -> tuple[tuple[int, float], tuple[int, float]]:
    """Return (estimates, seconds) of a cold rerun to ``cards`` and of a warm one back to 8 cards."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    if page:
        at.switch_page(page).run()
    results = []
    for count in (cards, 8, cards):
        with _Counter() as counter:
            start = time.perf_counter()
            at.select_slider(key="cards").set_value(count).run()
            seconds = time.perf_counter() - start
        if at.exception:
            raise RuntimeError(at.exception)
        results.append((counter.calls, seconds))
    return results[0], results[2]


def main() -> None:
    """Print each page's estimates and time for a cold and a warm rerun after the Cards slider moves."""
    print(f"{'page':<12} {'cold: estimates':>16} {'ms':>8}   {'warm: estimates':>16} {'ms':>8}")
    for index, (name, path) in enumerate(page_files().items()):
        if name == "add":
            continue  # the form page runs no estimate
        (cold_calls, cold_s), (warm_calls, warm_s) = measure(
            None if name == "overview" else path, COLD_CARDS[index % len(COLD_CARDS)]
        )
        print(f"{name:<12} {cold_calls:>16,} {cold_s * 1e3:>8.0f}   {warm_calls:>16,} {warm_s * 1e3:>8.0f}")


if __name__ == "__main__":
    main()
