"""The engine against llm-analysis 0.2.2 in CPU instructions, which do not drift as wall time does.

Run with ``python -m benchmarks.instructions`` (needs valgrind and llm-analysis; neither is a
dependency). Each workload runs under ``valgrind --tool=callgrind`` twice, N and 2N times after one
warm-up call, with ``PYTHONHASHSEED=0``; the difference over N is the instructions of one call, free
of the interpreter's start-up and imports. Wall time on this project's machine swings by up to 2x
from minute to minute (``benchmarks.engine`` times the same pair interleaved); an instruction count
is the same on every run, though it leaves out the cache misses wall time pays.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNS = 50
"""Calls in the shorter of the two runs (the longer makes twice as many)."""

WORKLOADS = {
    "ours": ("from benchmarks.engine import PEER_SCENARIO, computed\ncall = lambda: computed(PEER_SCENARIO)\n"),
    "ours_cold": (
        "from benchmarks.engine import PEER_SCENARIO, computed\n"
        "from model.layouts.plan import forget_searches\n"
        "call = lambda: (forget_searches(), computed(PEER_SCENARIO))\n"
    ),
    "llm_analysis": (
        "from llm_analysis.analysis import infer, train\n"
        "common = {'model_name': 'NousResearch_Llama-2-7b-hf', 'gpu_name': 'a100-sxm-80gb',\n"
        "    'dtype_name': 'w16a16e16'}\n"
        "inference = {**common, 'batch_size_per_gpu': 1, 'seq_len': 512, 'num_tokens_to_generate': 128, 'tp_size': 1}\n"
        "training = {**common, 'batch_size_per_gpu': 1, 'seq_len': 4096, 'total_num_tokens': 10**9,\n"
        "    'total_num_gpus': 8, 'ds_zero': 3, 'activation_recomputation': 2, 'flash_attn': True,\n"
        "    'mlp_gated_linear_units': True}\n"
        "call = lambda: (infer(**inference, log_level='ERROR'), train(**training, log_level='ERROR'))\n"
    ),
}
"""The same calls as ``benchmarks.engine.time_llm_analysis`` times (see its docstring for why
llm-analysis trains on 8 cards)."""


def _instructions(setup: str, calls: int, scratch: Path) -> int:
    script = scratch / "workload.py"
    script.write_text(f"{setup}call()\nfor _ in range({calls}):\n    call()\n", encoding="utf-8")
    out = scratch / "callgrind.out"
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, str(script)],
        cwd=ROOT,
        env={**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no instruction count:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def per_call(setup: str) -> int:
    """Return the instructions of one call of ``setup``'s ``call`` (difference of two run lengths)."""
    with tempfile.TemporaryDirectory() as scratch:
        short = _instructions(setup, RUNS, Path(scratch))
        long = _instructions(setup, 2 * RUNS, Path(scratch))
    return (long - short) // RUNS


def main() -> None:
    """Print each workload's instructions per call and the engine's ratio to llm-analysis."""
    if shutil.which("valgrind") is None:
        print("valgrind: not installed (apt-get install valgrind to count instructions)")
        return
    try:
        import llm_analysis  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        print("llm-analysis: not installed (pip install llm-analysis==0.2.2 to compare; not a dependency)")
        return
    counts = {name: per_call(setup) for name, setup in WORKLOADS.items()}
    peer = counts["llm_analysis"]
    print(
        f"instructions per call (callgrind, PYTHONHASHSEED=0): llm-analysis infer() + train() {peer:,}; "
        f"one estimate here {counts['ours']:,} ({peer / counts['ours']:.1f}x fewer), "
        f"{counts['ours_cold']:,} with its search caches emptied ({peer / counts['ours_cold']:.1f}x fewer)"
    )


if __name__ == "__main__":
    main()
