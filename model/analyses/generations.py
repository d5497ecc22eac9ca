"""The seed's generations table, V100 (2017) to B100/B200 (2025), beside the catalog's figures.

The seed article (docs/seeds/gpu-overview-why-ai-needs-gpus.zh.txt, table 各代 NVIDIA GPU) lists each
generation's year, memory and FP16 TFLOPS. :func:`generations` sets every row beside the catalog
(dense 16-bit peaks from :func:`model.analyses.anatomy.chip_summary`) and says where the seed matches;
:func:`generation_growth` says how compute, memory and bandwidth grew along the main line.
What docs/reference/gpu_specs_notes.md section 4 found about each row is kept with it.
"""

from __future__ import annotations

import itertools
from typing import Final, NamedTuple

from model.analyses.anatomy import chip_summary
from model.catalog import Catalog

__all__ = [
    "GENERATION_IDS",
    "SEED_GENERATIONS",
    "Generation",
    "GenerationGrowth",
    "SeedGeneration",
    "generation_growth",
    "generations",
]


GENERATION_IDS: Final = ("v100-sxm-32gb", "a100-sxm-40gb", "a100-sxm-80gb", "h100-sxm", "h200", "b100", "b200")
_MAIN_LINE: Final = frozenset({"v100-sxm-32gb", "a100-sxm-80gb", "h100-sxm", "h200", "b200"})
_SHORT_NAMES: Final = {
    "v100-sxm-32gb": "V100",
    "a100-sxm-40gb": "A100 40GB",
    "a100-sxm-80gb": "A100 80GB",
    "h100-sxm": "H100",
    "h200": "H200",
    "b100": "B100",
    "b200": "B200",
}


class SeedGeneration(NamedTuple):
    """One row of the seed article's table 各代 NVIDIA GPU (its FP16 TFLOPS column)."""

    label: str
    year: int
    memory_gb: tuple[float, ...]
    tflops: float
    tflops_is_floor: bool
    """The seed wrote '2000+'."""
    note: str
    """What docs/reference/gpu_specs_notes.md section 4 found about the row."""


_A100 = SeedGeneration("A100", 2020, (40.0, 80.0), 312.0, False, "312 is dense BF16/FP16; 624 with sparsity.")
_BLACKWELL = SeedGeneration(
    "B100/B200",
    2025,
    (192.0,),
    2000.0,
    True,
    "192 GB was the 2024 announcement; NVIDIA now lists 180 GB (HGX B200). B100 is 1,750 dense, below 2000; "
    "announced 2024, B200 volume in 2025.",
)
SEED_GENERATIONS: Final[dict[str, SeedGeneration]] = {
    "v100-sxm-32gb": SeedGeneration(
        "V100",
        2017,
        (32.0,),
        125.0,
        False,
        "125 is FP16 tensor-core (FP32 accumulate); the 2017 launch card had 16 GB, the 32 GB one came later.",
    ),
    "a100-sxm-40gb": _A100,
    "a100-sxm-80gb": _A100,
    "h100-sxm": SeedGeneration("H100", 2022, (80.0,), 989.0, False, "Right for H100 SXM; the PCIe card is 756."),
    "h200": SeedGeneration("H200", 2024, (141.0,), 989.0, False, "Right: H100's compute with 141 GB HBM3e."),
    "b100": _BLACKWELL,
    "b200": _BLACKWELL,
}
"""The seed's figures (docs/seeds/gpu-overview-why-ai-needs-gpus.zh.txt, table 各代 NVIDIA GPU)."""


class Generation(NamedTuple):
    """One NVIDIA datacenter GPU from the catalog beside the seed's figures for it."""

    gpu_id: str
    label: str
    year: int
    memory_bytes: float
    memory_bandwidth_bytes_per_s: float
    flops_format: str
    dense_flops_per_s: float
    flops_per_byte: float
    main_line: bool
    """One card per generation (V100, A100 80GB, H100, H200, B200), the line the chart draws."""
    seed: SeedGeneration
    year_matches: bool
    memory_matches: bool
    flops_matches: bool


def generations(catalog: Catalog) -> tuple[Generation, ...]:
    """Return V100 to B200 from the catalog, ordered by year, each beside the seed's figures.

    Dense 16-bit peak: bf16, or fp16 where the chip has no bf16 (V100). The seed matches when
    the years are equal, the memory is within 2 % of one of its sizes, and the TFLOPS within 1 %
    (or at least its figure where it wrote '2000+'). GPUs missing from the catalog are skipped.
    """
    rows = []
    for gpu_id in GENERATION_IDS:
        gpu = catalog.gpus.get(gpu_id)
        if gpu is None:
            continue
        summary = chip_summary(gpu, "bf16")
        seed = SEED_GENERATIONS[gpu_id]
        tflops = summary.dense_flops_per_s / 1e12
        rows.append(
            Generation(
                gpu_id,
                _SHORT_NAMES[gpu_id],
                gpu.year,
                gpu.memory_bytes,
                gpu.memory_bandwidth_bytes_per_s,
                summary.flops_format,
                summary.dense_flops_per_s,
                summary.flops_per_byte,
                gpu_id in _MAIN_LINE,
                seed,
                gpu.year == seed.year,
                any(abs(gpu.memory_bytes / 1e9 - gb) <= 0.02 * gb for gb in seed.memory_gb),
                tflops >= seed.tflops if seed.tflops_is_floor else abs(tflops - seed.tflops) <= 0.01 * seed.tflops,
            )
        )
    return tuple(sorted(rows, key=lambda row: (row.year, row.dense_flops_per_s, row.memory_bytes)))


class GenerationGrowth(NamedTuple):
    """How much the main line grew from its first card to its last, and step by step in compute."""

    first: str
    last: str
    flops_ratio: float
    memory_ratio: float
    bandwidth_ratio: float
    steps: tuple[tuple[str, str, float], ...]
    """(from, to, dense 16-bit FLOPs ratio) between consecutive cards of the main line."""


def generation_growth(rows: tuple[Generation, ...]) -> GenerationGrowth | None:
    """Return the growth of compute, memory and bandwidth along the main line (None if under 2 cards)."""
    line = [row for row in rows if row.main_line]
    if len(line) < 2:
        return None
    first, last = line[0], line[-1]
    return GenerationGrowth(
        first.label,
        last.label,
        last.dense_flops_per_s / first.dense_flops_per_s,
        last.memory_bytes / first.memory_bytes,
        last.memory_bandwidth_bytes_per_s / first.memory_bandwidth_bytes_per_s,
        tuple((a.label, b.label, b.dense_flops_per_s / a.dense_flops_per_s) for a, b in itertools.pairwise(line)),
    )
