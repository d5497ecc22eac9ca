"""Fit the engine's free efficiency factors on the published measurements, and print the fit.

Run with ``python -m benchmarks.calibrate``. It varies the few factors that no microbenchmark
pins down (how much of the matrix-product ceiling training realises, the share of streaming
bandwidth paged KV reads reach, the whole-run overhead of training totals) over a small grid,
scores each setting with the validate command's errors, and prints the best. The values it finds
are then written into model/efficiency.py by hand: the engine never reads this script.
"""

from __future__ import annotations

import dataclasses
import importlib
import itertools
import statistics

import model.efficiency as efficiency
from model.reference import KINDS
from model.validate import validate

GRID = {
    "training_matmul_vs_ceiling": (0.58, 0.64, 0.70, 0.76),
    "kv_read_bandwidth": (0.6, 0.7, 0.8, 0.9, 1.0),
    "run_overhead": (0.0, 0.15, 0.25, 0.35),
}


def _score(changes: dict[str, float]) -> tuple[float, dict[str, float], float]:
    trial = dataclasses.replace(efficiency.EXPECTED, **changes)
    # Swap the expected set where the engine picks it (the estimate's variants, the serving sweep).
    estimate_module = importlib.import_module("model.estimate")
    serving_module = importlib.import_module("model.serving")
    variants, serving_expected = estimate_module._VARIANTS, serving_module.EXPECTED
    estimate_module._VARIANTS = (trial, *variants[1:])
    serving_module.EXPECTED = trial
    try:
        report = validate()
    finally:
        estimate_module._VARIANTS, serving_module.EXPECTED = variants, serving_expected
    per_kind = {score.kind: score.median_abs_error for score in report.kinds}
    worst = max(row.ratio for row in report.rows)
    return report.overall.median_abs_error, per_kind, worst


def main() -> None:
    """Print the grid's best settings by overall median error, with each kind's median."""
    results = []
    for values in itertools.product(*GRID.values()):
        changes = dict(zip(GRID, values, strict=True))
        overall, per_kind, worst = _score(changes)
        # Rank by the bounds: no entry off by 2x or more, then the larger of the overall
        # median and the worst kind's median scaled to the same bound (15 % vs 25 %).
        score = max(overall, max(per_kind.values()) * 0.6)
        results.append((worst >= 2.0, score, overall, per_kind, worst, changes))
    results.sort(key=lambda item: (item[0], item[1]))
    header = " ".join(f"{kind[:14]:>14}" for kind in KINDS)
    print(f"{'overall':>8} {header} {'worst x':>8}  settings")
    for _, _, overall, per_kind, worst, changes in results[:10]:
        kinds = " ".join(f"{per_kind[kind]:14.1%}" for kind in KINDS)
        print(f"{overall:8.1%} {kinds} {worst:8.2f}  {changes}")
    print(f"(grid of {len(results)} settings; medians of |predicted / measured - 1|)")
    print(f"spread of overall medians: {statistics.pstdev(r[2] for r in results):.1%}")


if __name__ == "__main__":
    main()
