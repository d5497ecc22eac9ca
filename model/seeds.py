"""The seed articles' concrete claims, each set beside what the catalog and the engine compute.

The seeds (/work/shared/seeds, in Chinese) are the content the app grew from: the GPU generations
and price tables, the training-cost and API-price tables, and the rule "time per generated token
≈ bytes of weights read / memory bandwidth" with its DeepSeek-R1-on-H20 example. Each
:class:`SeedClaim` keeps the original sentence, an English gloss and the figures it states;
:func:`check_claims` computes the engine's side for a stated reference setup (never a stored
answer) and gives a verdict by one rule (:func:`verdict`) with the assumptions that reconcile
or contradict the two. Background the numbers alone cannot show is quoted from
reference/gpu_specs_notes.md, section 4.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, NamedTuple

from model.catalog import ApiPrice, Catalog, Gpu, default_catalog
from model.estimate import Estimate, estimate
from model.scenario import CHINCHILLA_TOKENS_PER_PARAM, Scenario
from model.units import DAY_S, GB, TERA

__all__ = [
    "APPROXIMATE_TOLERANCE",
    "PARTLY_FACTOR",
    "REFERENCE_SERVING",
    "REFERENCE_TRAINING",
    "SEED_CLAIMS",
    "SPEC_TOLERANCE",
    "VERDICTS",
    "ClaimCheck",
    "SeedClaim",
    "Verdict",
    "check_claims",
    "verdict",
]

Verdict = Literal["consistent", "partly", "contradicts"]
VERDICTS: tuple[Verdict, ...] = ("consistent", "partly", "contradicts")
SPEC_TOLERANCE = 0.02
"""A datasheet figure the seed rounds (989 for 989.4) still matches within 2 %."""
APPROXIMATE_TOLERANCE = 0.15
"""A figure the seed gives as about (约, ~) or as a round estimate matches within 15 %."""
PARTLY_FACTOR = 1.5
"""Outside its tolerance but within this factor, a claim is partly right; beyond it, contradicted."""
REFERENCE_TRAINING: dict[str, object] = {"gpu": "h100-sxm", "cards": 1024, "precision": "bf16"}
"""The training-cost table's setup: Chinchilla's 20 tokens per parameter on 1,024 H100 SXM at the
catalog's price per GPU-hour, bf16 mixed precision with AdamW."""
REFERENCE_SERVING: dict[str, object] = {"gpu": "h100-sxm", "cards": 8, "precision": "bf16", "batch": "max"}
"""The self-hosted price rows' setup: one 8 x H100 SXM server at full load (the largest batch that
fits), the scenario's default 1,024-token prompts, 256-token outputs and 70 % utilisation."""
_YEAR_S = 365.0 * DAY_S
_PUBLISHED_TOKENS = {"llama-2-7b": 2e12, "llama-2-70b": 2e12}
"""Tokens the presets were trained on: Llama 2 paper (Touvron et al. 2023), Table 1: 2.0T."""
_OVERVIEW = "gpu-overview-why-ai-needs-gpus.zh.txt"
_INFRA = "ai-infra-gpu-centric.zh.txt"


@dataclass(frozen=True, slots=True)
class SeedClaim:
    """One concrete claim of a seed article: where it is, what it says, the figures it states."""

    id: str
    topic: str
    seed: str
    """The seed file and section."""
    original: str
    """The sentence or table row as the seed prints it (Chinese)."""
    gloss: str
    """An English rendering."""
    claimed: str
    """The figures as the seed states them, in English."""
    figures: tuple[tuple[str, float, float], ...]
    """(what, low, high) for each stated figure, in the unit the name says."""
    subjects: tuple[str, ...] = ()
    """Catalog ids the claim is about (GPUs, models, API prices)."""
    context: str = ""
    """Sourced background that the numbers alone do not show."""

    def figure(self, name: str) -> tuple[float, float]:
        """Return the (low, high) the seed states for ``name``."""
        for what, low, high in self.figures:
            if what == name:
                return low, high
        raise KeyError(f"{self.id} states no figure {name!r}")


class ClaimCheck(NamedTuple):
    """A claim beside the engine: the engine's figure, the verdict, and why."""

    claim: SeedClaim
    engine: str
    """The engine's (or catalog's) figure, with units."""
    engine_value: float
    """The main figure as a number, in the unit of the claim's first figure."""
    verdict: Verdict
    assumptions: str
    """The setup used and the assumptions that reconcile or contradict the claim."""


def _claim(
    id: str,
    topic: str,
    seed: str,
    original: str,
    gloss: str,
    claimed: str,
    *figures: tuple[str, float, float],
    subjects: tuple[str, ...] = (),
    context: str = "",
) -> SeedClaim:
    return SeedClaim(id, topic, seed, original, gloss, claimed, figures, subjects, context)


_GENERATIONS = "GPU generations"
_PRICES = "Prices"
_HARDWARE = "Hardware"
_TRAINING = "Training time and cost"
_API = "Price per million tokens"
_RULE = "Bytes over bandwidth"
_TABLE2 = f"{_OVERVIEW}, 第二站 (generations table)"
_PRICE_TABLE = f"{_OVERVIEW}, 第二站 (consumer vs datacenter)"
_COST_TABLE = f"{_OVERVIEW}, 第八站 (cost tables)"
_RULE_SECTION = f"{_INFRA}, 1.2"
_NOTES = "gpu_specs_notes.md sec. 4"

SEED_CLAIMS: tuple[SeedClaim, ...] = (
    _claim("gen-v100", _GENERATIONS, _TABLE2, "V100 | 2017 | 32GB | 125 | 第一代深度学习卡",
           "V100 (2017): 32 GB, 125 FP16 TFLOPS, the first deep-learning card", "32 GB, 125 TFLOPS",
           ("memory_gb", 32, 32), ("fp16_tflops", 125, 125), subjects=("v100-sxm-32gb",),
           context=f"The 2017 launch part had 16 GB; the 32 GB variant came later ({_NOTES}, row 1)."),
    _claim("gen-a100", _GENERATIONS, _TABLE2, "A100 | 2020 | 40/80GB | 312 | 训练 GPT-3 用的",
           "A100 (2020): 40/80 GB, 312 FP16 TFLOPS, used to train GPT-3", "40 or 80 GB, 312 TFLOPS",
           ("memory_gb", 40, 80), ("fp16_tflops", 312, 312), subjects=("a100-sxm-40gb", "a100-sxm-80gb"),
           context="GPT-3 itself was trained on V100s (Brown et al. 2020, sec. 2.3)."),
    _claim("gen-h100", _GENERATIONS, _TABLE2, "H100 | 2022 | 80GB | 989 | 训练 GPT-4 用的",
           "H100 (2022): 80 GB, 989 FP16 TFLOPS", "80 GB, 989 TFLOPS",
           ("memory_gb", 80, 80), ("fp16_tflops", 989, 989), subjects=("h100-sxm",),
           context=f"True of the SXM part; H100 PCIe and NVL are slower ({_NOTES}, row 3)."),
    _claim("gen-h200", _GENERATIONS, _TABLE2, "H200 | 2024 | 141GB | 989 | H100 升级版（显存大）",
           "H200 (2024): 141 GB, 989 FP16 TFLOPS, an H100 with more memory", "141 GB, 989 TFLOPS",
           ("memory_gb", 141, 141), ("fp16_tflops", 989, 989), subjects=("h200",)),
    _claim("gen-blackwell", _GENERATIONS, _TABLE2, "B100/B200 | 2025 | 192GB | 2000+ | 当下最强",
           "B100/B200 (2025): 192 GB, 2000+ FP16 TFLOPS, the strongest today", "192 GB, 2,000+ TFLOPS",
           ("memory_gb", 192, 192), ("fp16_tflops", 2000, math.inf), subjects=("b100", "b200"),
           context=f"192 GB was the 2024 announcement; NVIDIA now lists 180 GB for HGX B200 ({_NOTES}, row 5)."),
    _claim("gen-nvl72", _GENERATIONS, _TABLE2, "GB200 NVL72 | 2025 | 集群 | 数万 | 整柜方案",
           "GB200 NVL72 (2025): a rack-scale system of tens of thousands of FP16 TFLOPS",
           "tens of thousands of TFLOPS per rack", ("rack_tflops", 10_000, 99_999), subjects=("gb200",)),
    _claim("gen-step", _GENERATIONS, _TABLE2, "每代涨 2-3 倍性能。", "Each generation is 2-3x faster.",
           "2-3x per generation", ("ratio", 2, 3), subjects=("v100-sxm-32gb", "a100-sxm-80gb", "h100-sxm", "b200")),
    _claim("price-rtx-4090", _PRICES, _PRICE_TABLE, "消费级 | RTX 4090 | 24GB | $2,000",
           "Consumer RTX 4090: 24 GB, $2,000", "24 GB, $2,000", ("usd", 2000, 2000), ("memory_gb", 24, 24),
           subjects=("rtx-4090",), context="Street prices were often above the launch MSRP."),
    _claim("price-rtx-5090", _PRICES, _PRICE_TABLE, "消费级 | RTX 5090 | 32GB | $3,000",
           "Consumer RTX 5090: 32 GB, $3,000", "32 GB, $3,000", ("usd", 3000, 3000), ("memory_gb", 32, 32),
           subjects=("rtx-5090",), context="Street premiums existed but were not quantified in the sources read."),
    _claim("price-a100", _PRICES, _PRICE_TABLE, "数据中心 | A100 80GB | 80GB | ~$15,000",
           "Datacenter A100 80GB: about $15,000", "80 GB, ~$15,000", ("usd", 15_000, 15_000), ("memory_gb", 80, 80),
           subjects=("a100-sxm-80gb",),
           context="Datacenter parts have no public list price; the catalog's is an estimate."),
    _claim("price-h100", _PRICES, _PRICE_TABLE, "数据中心 | H100 | 80GB | ~$30,000",
           "Datacenter H100: about $30,000", "80 GB, ~$30,000", ("usd", 30_000, 30_000), ("memory_gb", 80, 80),
           subjects=("h100-sxm",)),
    _claim("price-b200", _PRICES, _PRICE_TABLE, "数据中心 | B200 | 192GB | ~$60,000",
           "Datacenter B200: 192 GB, about $60,000", "192 GB, ~$60,000", ("usd", 60_000, 60_000),
           ("memory_gb", 192, 192), subjects=("b200",),
           context=f"Only an unsourced blog says $70,000 ({_NOTES}, row 6e)."),
    _claim("server-8x-h100", _PRICES, f"{_OVERVIEW}, 第二站", "一台 8 卡 H100 服务器约 30 万美元",
           "An 8 x H100 server costs about $300,000", "~$300,000", ("usd", 300_000, 300_000), subjects=("h100-sxm",)),
    _claim("tensor-cores-8x", _HARDWARE, f"{_OVERVIEW}, 第三站", "同一张 H100，Tensor Cores 比 CUDA Cores 快 8 倍。",
           "On the same H100, Tensor Cores are 8x faster than CUDA cores", "8x", ("ratio", 8, 8),
           subjects=("h100-sxm",)),
    _claim("vram-7b-training", _HARDWARE, f"{_OVERVIEW}, 第三站",
           "训练 7B 模型需要约 80GB 显存（参数 + 优化器状态 + 激活）。 单张 A100 80GB 勉强够。",
           "Training a 7B model needs about 80 GB (parameters + optimizer states + activations); one A100 80GB "
           "barely suffices", "~80 GB, fits one A100 80GB", ("memory_gb", 80, 80),
           subjects=("llama-2-7b", "a100-sxm-80gb")),
    _claim("nvlink-10x-pcie", _HARDWARE, f"{_OVERVIEW}, 第三站", "NVLink / NVSwitch … 比 PCIe 快 10 倍。",
           "NVLink is 10x faster than PCIe", "10x", ("ratio", 10, 10),
           subjects=("v100-sxm-32gb", "a100-sxm-80gb", "h100-sxm", "b200")),
    _claim("gpt3-34-days", _TRAINING, f"{_OVERVIEW}, 第一站", "训 GPT-3 … 用 GPU 集群是 34 天。",
           "Training GPT-3 on a GPU cluster takes 34 days", "34 days", ("days", 34, 34),
           subjects=("gpt-3-175b", "a100-sxm-80gb"),
           context="The 34 days are Narayanan et al. 2021's estimate for 1,024 A100s at 140 TFLOPS each."),
    _claim("gpt3-350-years-cpu", _TRAINING, f"{_OVERVIEW}, 第一站", "训 GPT-3 用 CPU 估算要 350 年。",
           "Training GPT-3 on a CPU would take about 350 years", "350 years", ("years", 350, 350),
           subjects=("gpt-3-175b", "cpu-server", "v100-sxm-32gb"),
           context="Lambda Labs (2020, 'Demystifying GPT-3') estimated 355 years on one V100 GPU at 28 TFLOPS."),
    _claim("cost-7b", _TRAINING, _COST_TABLE, "7B 模型预训练 | $50K -$100K", "Pre-training a 7B model: $50K-100K",
           "$50K-100K", ("usd", 50e3, 100e3), subjects=("llama-2-7b",)),
    _claim("cost-70b", _TRAINING, _COST_TABLE, "70B 模型预训练 | $1M -$10M", "Pre-training a 70B model: $1M-10M",
           "$1M-10M", ("usd", 1e6, 10e6), subjects=("llama-2-70b",)),
    _claim("cost-1t", _TRAINING, _COST_TABLE, "GPT-4 级别（>1T） | $50M -$100M+",
           "A GPT-4-class model (>1T parameters): $50M-100M or more", "$50M-100M+", ("usd", 50e6, 100e6),
           context="GPT-4's size, architecture and token count are not public; a mixture of experts computes only "
           "its active parameters per token, so the same total size can cost several times less."),
    _claim("api-gpt-4o", _API, _COST_TABLE, "GPT-4o API | $5 输入 /$15 输出", "GPT-4o API: $5 input / $15 output",
           "$5 / $15 per M tokens", ("output_usd_per_million", 15, 15), ("input_usd_per_million", 5, 5),
           subjects=("gpt-4o-2024-05", "gpt-4o-2024-08")),
    _claim("api-claude-3-5", _API, _COST_TABLE, "Claude 3.5 API | $3 输入 /$15 输出",
           "Claude 3.5 (Sonnet) API: $3 input / $15 output", "$3 / $15 per M tokens",
           ("output_usd_per_million", 15, 15), ("input_usd_per_million", 3, 3),
           subjects=("claude-3-5-sonnet-2024-06", "claude-sonnet-4-2025-05")),
    _claim("self-hosted-70b", _API, _COST_TABLE, "自建推理（70B） | ~$1 输入 /$3 输出",
           "Self-hosted 70B: about $1 input / $3 output", "~$1 / $3 per M tokens",
           ("output_usd_per_million", 3, 3), ("input_usd_per_million", 1, 1), subjects=("llama-3.1-70b",)),
    _claim("self-hosted-7b", _API, _COST_TABLE, "自建推理（7B） | ~$0.1 输入 /$0.3 输出",
           "Self-hosted 7B: about $0.1 input / $0.3 output", "~$0.1 / $0.3 per M tokens",
           ("output_usd_per_million", 0.3, 0.3), ("input_usd_per_million", 0.1, 0.1), subjects=("llama-3.1-8b",),
           context="The nearest preset to the seed's 7B is Llama 3.1 8B."),
    _claim("self-hosted-10x", _API, _COST_TABLE, "自建推理通常便宜 10 倍——但需要工程团队。",
           "Self-hosting is usually 10x cheaper, but needs an engineering team", "10x cheaper", ("ratio", 10, 10),
           subjects=("gpt-4o-2024-05", "llama-3.1-70b", "llama-3.1-8b")),
    _claim("rule-h20-9ms", _RULE, _RULE_SECTION, "在 H20 GPU 上参数大小 37B × 1byte ÷ 4000GB/s ≈9ms/token",
           "DeepSeek-R1 (37B active, FP8) on an H20: 37 GB / 4,000 GB/s ≈ 9 ms per token", "≈ 9 ms per token",
           ("ms", 9, 9), subjects=("deepseek-r1", "h20")),
    _claim("rule-cpu-578ms", _RULE, _RULE_SECTION, "在 CPU 上参数大小 37B × 1byte ÷ 64GB/s ≈578ms/token",
           "The same on a 64 GB/s CPU: ≈ 578 ms per token", "≈ 578 ms per token", ("ms", 578, 578),
           subjects=("deepseek-r1", "cpu-server")),
    _claim("rule-64x", _RULE, _RULE_SECTION, "这个 64 倍的差距就是为什么我们不能用传统服务器运行大模型的根本原因",
           "This 64x gap is why ordinary servers cannot run large models", "64x", ("ratio", 64, 64),
           subjects=("deepseek-r1", "h20", "cpu-server")),
    _claim("h20-specs", _HARDWARE, f"{_INFRA}, 2.3",
           "显存容量单卡 96GB HBM3e … 显存带宽4.0 TB/s … 浮点算力FP8: 296 TFLOPS",
           "H20: 96 GB, 4.0 TB/s, 296 FP8 TFLOPS", "96 GB, 4,000 GB/s, 296 TFLOPS", ("memory_gb", 96, 96),
           ("bandwidth_gb_per_s", 4000, 4000), ("fp8_tflops", 296, 296), subjects=("h20",),
           context=f"No public NVIDIA datasheet: partner and press figures agree ({_NOTES}, row 7); the seed says "
           "HBM3 in 2.2 and HBM3e in 2.3."),
    _claim("h20-8-cards-r1", _HARDWARE, f"{_INFRA}, 2.2",
           "8 卡服务器即可提供高达 768GB 的总显存足以容纳像 DeepSeek-R1 这样的千亿级大模型",
           "An 8-card H20 server has 768 GB, enough to hold DeepSeek-R1", "768 GB holds DeepSeek-R1",
           ("memory_gb", 768, 768), subjects=("deepseek-r1", "h20")),
)  # fmt: skip


def verdict(claimed: tuple[float, float], engine: tuple[float, float], tolerance: float) -> Verdict:
    """Compare a claimed interval with the engine's (low, high) and return the verdict.

    The claim, widened by ``tolerance``, is consistent when it overlaps the engine's range;
    partly right when the gap between them is within :data:`PARTLY_FACTOR`; else contradicted.
    """
    low, high = claimed[0] / (1.0 + tolerance), claimed[1] * (1.0 + tolerance)
    if not all(math.isfinite(value) for value in engine):
        return "contradicts"
    if engine[1] >= low and engine[0] <= high:
        return "consistent"
    gap = low / engine[1] if engine[1] < low else engine[0] / high
    return "partly" if gap <= PARTLY_FACTOR else "contradicts"


def _worst(*verdicts: Verdict) -> Verdict:
    return max(verdicts, key=VERDICTS.index)


def _point(value: float) -> tuple[float, float]:
    return value, value


def _short(gpu: Gpu) -> str:
    return gpu.name.split(" (")[0]


def _usd(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "n/a"
    for scale, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "K")):
        if value >= scale:
            return f"${value / scale:,.3g}{suffix}"
    return f"${value:,.3g}" if value < 10 else f"${value:,.0f}"


def _duration(seconds: float) -> str:
    if seconds < 2 * DAY_S:
        return f"{seconds / 3600:,.1f} hours"
    if seconds < 2 * _YEAR_S:
        return f"{seconds / DAY_S:,.0f} days"
    return f"{seconds / _YEAR_S:,.1f} years"


def _tokens(value: float) -> str:
    return f"{value / 1e12:,.3g}T" if value >= 1e12 else f"{value / 1e9:,.3g}B"


def _fp16(gpu: Gpu) -> float:
    flops = gpu.dense_flops_per_s
    return flops.get("fp16") or flops.get("bf16") or 0.0


def _run(catalog: Catalog, **settings: object) -> Estimate:
    return estimate(Scenario(**settings), catalog)  # type: ignore[arg-type]


def _price_row(catalog: Catalog, price_id: str) -> ApiPrice | None:
    return next((price for price in catalog.prices if price.id == price_id), None)


def _check_generation(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    memory, tflops = claim.figure("memory_gb"), claim.figure("fp16_tflops")
    parts: list[str] = []
    notes: list[str] = []
    values: list[float] = []
    verdicts: list[Verdict] = []
    for gpu_id in claim.subjects:
        gpu = catalog.gpus[gpu_id]
        gb, tf = gpu.memory_bytes / GB, _fp16(gpu) / TERA
        values.append(tf)
        checks = (verdict(memory, _point(gb), SPEC_TOLERANCE), verdict(tflops, _point(tf), SPEC_TOLERANCE))
        verdicts.extend(checks)
        parts.append(f"{_short(gpu)}: {gb:g} GB, {tf:,.1f} TFLOPS")
        if checks[0] != "consistent":
            notes.append(f"{_short(gpu)} has {gb:g} GB")
        if checks[1] != "consistent":
            notes.append(f"{_short(gpu)} has {tf:,.0f} dense FP16 TFLOPS")
        sparse = gpu.sparse_flops_per_s.get("fp16")
        if sparse:
            notes.append(f"{_short(gpu)}'s datasheet prints {sparse / TERA:,.0f} with 2:4 sparsity")
    text = "Catalog dense FP16 tensor peaks (data/gpus.yaml). " + "; ".join(notes) + ("." if notes else "")
    return ClaimCheck(claim, "; ".join(parts), min(values), _worst(*verdicts), f"{text} {claim.context}".strip())


def _check_rack(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    gpu = catalog.gpus[claim.subjects[0]]
    total = gpu.gpus_per_node * _fp16(gpu) / TERA
    tf32 = gpu.gpus_per_node * gpu.dense_flops_per_s.get("tf32", math.nan) / TERA
    return ClaimCheck(
        claim,
        f"{total:,.0f} TFLOPS",
        total,
        verdict(claim.figure("rack_tflops"), _point(total), 0.0),
        f"{gpu.gpus_per_node} GPUs × {_fp16(gpu) / TERA:,.0f} dense FP16 TFLOPS ({_short(gpu)}, data/gpus.yaml) = "
        f"{total / 1000:,.0f} PFLOPS, so 'tens of thousands' understates the rack; it fits TF32 ({tf32:,.0f} TFLOPS).",
    )


def _check_generation_step(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    gpus = [catalog.gpus[gpu_id] for gpu_id in claim.subjects]
    pairs = list(itertools.pairwise(gpus))
    ratios = [_fp16(new) / _fp16(old) for old, new in pairs]
    steps = ", ".join(f"{_short(old)} → {_short(new)} {_fp16(new) / _fp16(old):.2f}×" for old, new in pairs)
    return ClaimCheck(
        claim,
        f"{min(ratios):.2f}-{max(ratios):.2f}×",
        sum(ratios) / len(ratios),
        _worst(*(verdict(claim.figure("ratio"), _point(ratio), APPROXIMATE_TOLERANCE) for ratio in ratios)),
        f"Dense FP16 tensor peaks, one architecture to the next: {steps}. H200 keeps H100's compute (a memory "
        "upgrade), so it is not a step.",
    )


def _check_price(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    gpu = catalog.gpus[claim.subjects[0]]
    price = gpu.purchase_usd
    if price is None:
        return ClaimCheck(claim, "no price in the catalog", math.nan, "partly", "The catalog has no purchase price.")
    verdicts = [verdict(claim.figure("usd"), _point(price), APPROXIMATE_TOLERANCE)]
    memory = f"{gpu.memory_bytes / GB:g} GB, "
    if any(name == "memory_gb" for name, _, _ in claim.figures):
        verdicts.append(verdict(claim.figure("memory_gb"), _point(gpu.memory_bytes / GB), SPEC_TOLERANCE))
    return ClaimCheck(
        claim,
        f"{memory}${price:,.0f}",
        price,
        _worst(*verdicts),
        f"Catalog purchase price: {gpu.purchase_source}. {claim.context}".strip(),
    )


def _check_server(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    gpu = catalog.gpus[claim.subjects[0]]
    gpus = gpu.gpus_per_node * (gpu.purchase_usd or math.nan)
    return ClaimCheck(
        claim,
        f"{_usd(gpus)} for the {gpu.gpus_per_node} GPUs",
        gpus,
        verdict(claim.figure("usd"), _point(gpus), APPROXIMATE_TOLERANCE),
        f"{gpu.gpus_per_node} × the catalog's {_usd(gpu.purchase_usd)} per {_short(gpu)}; the CPUs, memory, NICs, "
        f"NVSwitch and chassis make up the remaining {_usd(claim.figure('usd')[0] - gpus)} of the claim.",
    )


def _check_tensor_cores(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    gpu = catalog.gpus[claim.subjects[0]]
    flops = gpu.dense_flops_per_s
    fp32 = flops["fp32"]
    like = flops.get("tf32", math.nan) / fp32
    mixed = flops.get("bf16", math.nan) / fp32
    checks = [verdict(claim.figure("ratio"), _point(value), APPROXIMATE_TOLERANCE) for value in (like, mixed)]
    result: Verdict = "consistent" if all(v == "consistent" for v in checks) else (
        "partly" if "consistent" in checks else "contradicts")  # fmt: skip
    fp8 = f"; FP8 tensor: {flops['fp8'] / fp32:.0f}×" if "fp8" in flops else ""
    return ClaimCheck(
        claim,
        f"{like:.1f}× (TF32 vs FP32), {mixed:.1f}× (BF16 vs FP32)",
        like,
        result,
        f"{_short(gpu)} dense: TF32 tensor {flops.get('tf32', math.nan) / TERA:,.1f} vs FP32 CUDA-core "
        f"{fp32 / TERA:,.1f} TFLOPS is the like-for-like {like:.1f}×; mixed-precision training compares BF16 tensor "
        f"{flops.get('bf16', math.nan) / TERA:,.1f} with FP32, {mixed:.1f}×{fp8}.",
    )


def _check_training_memory(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    model_id, gpu_id = claim.subjects
    base = {"model": model_id, "gpu": gpu_id, "cards": 1, "precision": "bf16"}
    full = _run(catalog, **base).training
    eight_bit = _run(catalog, **base, optimizer="adamw-8bit").training
    lora = _run(catalog, **base, finetune="lora").training
    memory = full.memory_per_gpu
    capacity = catalog.gpus[gpu_id].memory_bytes / GB

    def fits(t: object) -> str:
        return "fits" if getattr(t, "fits", False) else "does not fit"

    return ClaimCheck(
        claim,
        f"{memory.total / GB:,.0f} GB on one card ({fits(full)} in {capacity:g} GB)",
        memory.total / GB,
        _worst(
            verdict(claim.figure("memory_gb"), _point(memory.total / GB), APPROXIMATE_TOLERANCE),
            "consistent" if full.fits else "contradicts",
        ),
        f"{catalog.models[model_id].name}, bf16 mixed precision with AdamW (16 bytes per parameter), "
        f"{full.seq_len:,}-token sequences, micro-batch 1, {full.recompute} recomputation: weights "
        f"{memory.weights / GB:.0f} + gradients {memory.gradients / GB:.0f} + optimizer {memory.optimizer / GB:.0f} + "
        f"activations {memory.activations / GB:.0f} + other {memory.other / GB:.0f} GB. The claim holds with 8-bit "
        f"Adam ({eight_bit.memory_per_gpu.total / GB:.0f} GB, {fits(eight_bit)}) or LoRA "
        f"({lora.memory_per_gpu.total / GB:.0f} GB, {fits(lora)}).",
    )


def _check_nvlink(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    parts, ratios = [], []
    for gpu_id in claim.subjects:
        gpu = catalog.gpus[gpu_id]
        if gpu.host_link is None:
            continue
        up, host = catalog.interconnects[gpu.scale_up], catalog.interconnects[gpu.host_link]
        ratios.append(up.bandwidth_bytes_per_s / host.bandwidth_bytes_per_s)
        parts.append(f"{_short(gpu)}: {up.name.split(' (')[0]} / {host.name} = {ratios[-1]:.1f}×")
    return ClaimCheck(
        claim,
        f"{min(ratios):.0f}-{max(ratios):.0f}×",
        sum(ratios) / len(ratios),
        verdict(claim.figure("ratio"), (min(ratios), max(ratios)), APPROXIMATE_TOLERANCE),
        "Per-direction bandwidth of each generation's scale-up link over its host PCIe link "
        f"(data/interconnects.yaml): {'; '.join(parts)}.",
    )


def _check_gpt3_days(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    model_id, gpu_id = claim.subjects
    result = _run(catalog, model=model_id, gpu=gpu_id, cards=1024, precision="bf16", tokens=300e9)
    days = result.training.time_s / DAY_S
    low, high = (value / DAY_S for value in result.ranges["time_s"])
    layout = result.training.parallelism
    return ClaimCheck(
        claim,
        f"{days:.0f} days (range {low:.0f}-{high:.0f})",
        days,
        verdict(claim.figure("days"), (low, high), APPROXIMATE_TOLERANCE),
        f"GPT-3 175B on 300B tokens (Brown et al. 2020) on 1,024 × {_short(catalog.gpus[gpu_id])}, bf16; layout "
        f"tp {layout.tp} × pp {layout.pp} × dp {layout.dp}, MFU {result.training.mfu:.0%}. {claim.context}",
    )


def _check_gpt3_cpu(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    model_id, cpu_id, gpu_id = claim.subjects
    common = {"model": model_id, "cards": 1, "precision": "bf16", "tokens": 300e9}
    cpu = _run(catalog, gpu=cpu_id, **common)
    gpu = _run(catalog, gpu=gpu_id, **common)
    years = cpu.training.time_s / _YEAR_S
    low, high = (value / _YEAR_S for value in cpu.ranges["time_s"])
    gpu_years = gpu.training.time_s / _YEAR_S
    return ClaimCheck(
        claim,
        f"{years:,.0f} years on one CPU server",
        years,
        verdict(claim.figure("years"), (low, high), APPROXIMATE_TOLERANCE),
        f"One {catalog.gpus[cpu_id].memory_bandwidth_bytes_per_s / GB:g} GB/s server CPU (catalog row {cpu_id}, "
        f"{catalog.gpus[cpu_id].dense_flops_per_s['bf16'] / TERA:.1f} TFLOPS assumed): {years:,.0f} years "
        f"(range {low:,.0f}-{high:,.0f}); 350 years would need about {years / claim.figure('years')[0]:.0f} such "
        f"servers. The figure fits one GPU instead: the engine gives {gpu_years:,.0f} years on one "
        f"{_short(catalog.gpus[gpu_id])}. {claim.context}",
    )


def _check_training_cost(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    model: dict[str, object] = {"model": claim.subjects[0]} if claim.subjects else {"params": 1e12}
    result = _run(catalog, **REFERENCE_TRAINING, **model)
    training, r = result.training, result.resolved
    cost = training.cost_usd or math.nan
    low, high = result.ranges.get("cost_usd", (math.nan, math.nan))
    claimed = claim.figure("usd")
    found = verdict(claimed, (low, high), APPROXIMATE_TOLERANCE)
    if found == "contradicts" and low > claimed[1] and claim.id == "cost-1t":
        found = "partly"  # the seed's "+" leaves the top open
    params = r.arch.stats.total_params
    published = _PUBLISHED_TOKENS.get(claim.subjects[0]) if claim.subjects else None
    actual = ""
    if published:
        as_trained = _run(catalog, **REFERENCE_TRAINING, **model, tokens=published).training.cost_usd
        actual = f" On the {_tokens(published)} tokens it was trained on (Touvron et al. 2023): {_usd(as_trained)}."
    name = r.model_name if claim.subjects else f"A dense {_tokens(params)}-parameter model (Llama-style shape)"
    tokens_low, tokens_high = (training.tokens * value / cost for value in claimed)
    return ClaimCheck(
        claim,
        f"{_usd(cost)} (range {_usd(low)}-{_usd(high)})",
        cost,
        found,
        f"{name}: {CHINCHILLA_TOKENS_PER_PARAM:g} tokens per parameter ({_tokens(training.tokens)}, "
        f"Chinchilla) on {REFERENCE_TRAINING['cards']:,} × {_short(r.gpu)} at ${r.price_per_gpu_hour:.2f} per GPU-hour "
        f"({r.gpu.cloud_price_date}): {_duration(training.time_s)}, MFU {training.mfu:.0%}. At this rate the "
        f"claim's range buys {_tokens(tokens_low)}-{_tokens(tokens_high)} tokens "
        f"({tokens_low / params:,.0f}-{tokens_high / params:,.0f} per parameter).{actual} {claim.context}".strip(),
    )


def _check_api(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    row = _price_row(catalog, claim.subjects[0])
    if row is None:
        return ClaimCheck(claim, "not in data/prices.yaml", math.nan, "partly", "No catalog row to compare.")
    found = _worst(
        verdict(claim.figure("output_usd_per_million"), _point(row.output_usd_per_million), SPEC_TOLERANCE),
        verdict(claim.figure("input_usd_per_million"), _point(row.input_usd_per_million), SPEC_TOLERANCE),
    )
    later = [p for p in (_price_row(catalog, i) for i in claim.subjects[1:]) if p is not None and p.date > row.date]
    changed = [p for p in later if (p.input_usd_per_million, p.output_usd_per_million)
               != (row.input_usd_per_million, row.output_usd_per_million)]  # fmt: skip
    if found == "consistent" and changed:
        found = "partly"
    since = "; ".join(
        f"{p.model} ${p.input_usd_per_million:g} / ${p.output_usd_per_million:g} from {p.date}" for p in later
    )
    return ClaimCheck(
        claim,
        f"${row.input_usd_per_million:g} / ${row.output_usd_per_million:g} from {row.date}",
        row.output_usd_per_million,
        found,
        f"data/prices.yaml row {row.id}." + (f" Later: {since}." if since else ""),
    )


def _serve(catalog: Catalog, model_id: str) -> Estimate:
    return _run(catalog, model=model_id, **REFERENCE_SERVING)


def _check_self_hosted(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    result = _serve(catalog, claim.subjects[0])
    serving, r, s = result.inference, result.resolved, result.resolved.scenario
    cost = serving.cost_per_million_output_tokens_usd
    price = r.price_per_gpu_hour
    if cost is None or price is None:
        return ClaimCheck(claim, "no price", math.nan, "partly", f"No cloud price for {r.gpu.name}.")
    low, high = result.ranges["cost_per_million_output_tokens_usd"]
    claimed = claim.figure("output_usd_per_million")
    prefill_only = price * s.cards / 3600.0 / (serving.prefill_tokens_per_s * s.utilization) * 1e6
    return ClaimCheck(
        claim,
        f"${cost:.3g} per M output tokens (range ${low:.3g}-{high:.3g})",
        cost,
        verdict(claimed, (low, high), APPROXIMATE_TOLERANCE),
        f"{r.model_name} on {s.cards} × {_short(r.gpu)} at ${price:.2f} per GPU-hour ({r.gpu.cloud_price_date}), "
        f"full load ({serving.batch:,} sequences × {serving.dp} replicas of tp {serving.tp}), {s.prompt_len:,}-token "
        f"prompts, {s.output_len}-token outputs, {s.utilization:.0%} utilisation; every GPU-second is charged to "
        "output tokens. "
        f"Prefill alone would cost ${prefill_only:.2g} per M input tokens. The claim's ${claimed[0]:g} matches "
        f"{s.utilization * cost / claimed[0]:.0%} utilisation, or ${price * claimed[0] / cost:.2f} per GPU-hour. "
        f"{claim.context}".strip(),
    )


def _check_cheaper(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    api = _price_row(catalog, claim.subjects[0])
    costs = [_serve(catalog, model_id).inference.cost_per_million_output_tokens_usd for model_id in claim.subjects[1:]]
    if api is None or None in costs:
        return ClaimCheck(claim, "n/a", math.nan, "partly", "A price is missing from the catalog.")
    large, small = (api.output_usd_per_million / (cost or math.nan) for cost in costs)
    own_table = next(c for c in SEED_CLAIMS if c.id == "self-hosted-70b").figure("output_usd_per_million")[0]
    return ClaimCheck(
        claim,
        f"{large:.1f}× (70B), {small:.0f}× (8B)",
        large,
        verdict(claim.figure("ratio"), _point(large), APPROXIMATE_TOLERANCE),
        f"{api.model}'s ${api.output_usd_per_million:g} per M output tokens over the engine's self-hosted price "
        f"(8 × H100 SXM, full load): {large:.1f}× for Llama 3.1 70B, {small:.0f}× for Llama 3.1 8B. The seed's "
        f"own table gives {api.output_usd_per_million / own_table:.0f}× (${api.output_usd_per_million:g} vs "
        f"${own_table:g}).",
    )


def _decode(catalog: Catalog, model_id: str, gpu_id: str, cards: int = 1) -> Estimate:
    return _run(catalog, model=model_id, gpu=gpu_id, cards=cards, precision="fp8", batch=1)


def _check_rule(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    model_id, gpu_id = claim.subjects
    one = _decode(catalog, model_id, gpu_id)
    gpu = catalog.gpus[gpu_id]
    ideal, expected = one.inference.tpot_roofline_s * 1e3, one.inference.tpot_s * 1e3
    read = one.inference.tpot_roofline_s * gpu.memory_bandwidth_bytes_per_s / GB
    text = (
        f"The roofline at batch 1 on one card: {read:.1f} GB read per token (the FP8 weights a token touches, its KV "
        f"cache; the input embedding is looked up, not read) over {gpu.memory_bandwidth_bytes_per_s / GB:,.0f} GB/s. "
        f"Expected with achievable bandwidth and overheads: {expected:,.1f} ms."
    )
    weights = one.inference.memory_per_gpu.weights / GB
    if not one.inference.fits and gpu.gpus_per_node > 1:
        spread = _decode(catalog, model_id, gpu_id, cards=gpu.gpus_per_node).inference
        text += (
            f" The model does not fit one card ({weights:,.0f} GB of weights); on {gpu.gpus_per_node} cards with "
            f"TP {spread.tp} each reads 1/{spread.tp}: {spread.tpot_roofline_s * 1e3:.1f} ms ideal, "
            f"{spread.tpot_s * 1e3:.1f} ms expected."
        )
    elif not one.inference.fits:
        text += (
            f" The {gpu.memory_bytes / GB:,.0f} GB assumed do not hold the {weights:,.0f} GB of weights either: the "
            "rule counts bytes read, not capacity."
        )
    return ClaimCheck(
        claim,
        f"{ideal:,.1f} ms ideal",
        ideal,
        verdict(claim.figure("ms"), _point(ideal), APPROXIMATE_TOLERANCE),
        text,
    )


def _check_gap(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    model_id, gpu_id, cpu_id = claim.subjects
    gpu, cpu = _decode(catalog, model_id, gpu_id).inference, _decode(catalog, model_id, cpu_id).inference
    ratio = cpu.tpot_roofline_s / gpu.tpot_roofline_s
    return ClaimCheck(
        claim,
        f"{ratio:.1f}×",
        ratio,
        verdict(claim.figure("ratio"), _point(ratio), APPROXIMATE_TOLERANCE),
        f"Both read the same bytes, so the ideal ratio is the bandwidth ratio; with efficiencies "
        f"{cpu.tpot_s / gpu.tpot_s:.1f}×.",
    )


def _check_h20(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    gpu = catalog.gpus[claim.subjects[0]]
    memory, bandwidth = gpu.memory_bytes / GB, gpu.memory_bandwidth_bytes_per_s / GB
    fp8 = gpu.dense_flops_per_s.get("fp8", math.nan) / TERA
    return ClaimCheck(
        claim,
        f"{memory:g} GB {gpu.memory_type}, {bandwidth:,.0f} GB/s, {fp8:g} TFLOPS",
        memory,
        _worst(
            verdict(claim.figure("memory_gb"), _point(memory), SPEC_TOLERANCE),
            verdict(claim.figure("bandwidth_gb_per_s"), _point(bandwidth), SPEC_TOLERANCE),
            verdict(claim.figure("fp8_tflops"), _point(fp8), SPEC_TOLERANCE),
        ),
        f"Catalog row {gpu.id} (dense FP8). {claim.context}",
    )


def _check_h20_server(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    model_id, gpu_id = claim.subjects
    gpu = catalog.gpus[gpu_id]
    result = _decode(catalog, model_id, gpu_id, cards=gpu.gpus_per_node)
    serving = result.inference
    cards = serving.tp * serving.pp
    total = gpu.gpus_per_node * gpu.memory_bytes / GB
    return ClaimCheck(
        claim,
        f"{serving.memory_per_gpu.total / GB:.0f} of {gpu.memory_bytes / GB:g} GB per card"
        + (" (fits)" if serving.fits else " (does not fit)"),
        total,
        _worst(
            verdict(claim.figure("memory_gb"), _point(total), SPEC_TOLERANCE),
            "consistent" if serving.fits else "contradicts",
        ),
        f"{result.resolved.model_name} in FP8 on {cards} × {_short(gpu)} (tp {serving.tp}): weights "
        f"{serving.memory_per_gpu.weights / GB:.0f} GB per card ({serving.memory_per_gpu.weights * cards / GB:.0f} GB "
        f"in all); up to {serving.max_batch:,} sequences of {result.resolved.scenario.prompt_len:,} + "
        f"{result.resolved.scenario.output_len} tokens fit in the rest.",
    )


_CHECKS: dict[str, Callable[[SeedClaim, Catalog], ClaimCheck]] = {
    **{
        c.id: _check_generation
        for c in SEED_CLAIMS
        if c.id.startswith("gen-") and c.id not in ("gen-nvl72", "gen-step")
    },
    "gen-nvl72": _check_rack,
    "gen-step": _check_generation_step,
    **{c.id: _check_price for c in SEED_CLAIMS if c.id.startswith("price-")},
    "server-8x-h100": _check_server,
    "tensor-cores-8x": _check_tensor_cores,
    "vram-7b-training": _check_training_memory,
    "nvlink-10x-pcie": _check_nvlink,
    "gpt3-34-days": _check_gpt3_days,
    "gpt3-350-years-cpu": _check_gpt3_cpu,
    "cost-7b": _check_training_cost,
    "cost-70b": _check_training_cost,
    "cost-1t": _check_training_cost,
    "api-gpt-4o": _check_api,
    "api-claude-3-5": _check_api,
    "self-hosted-70b": _check_self_hosted,
    "self-hosted-7b": _check_self_hosted,
    "self-hosted-10x": _check_cheaper,
    "rule-h20-9ms": _check_rule,
    "rule-cpu-578ms": _check_rule,
    "rule-64x": _check_gap,
    "h20-specs": _check_h20,
    "h20-8-cards-r1": _check_h20_server,
}


def _check(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    """Run one claim's check; a catalog row the user replaced without the figure needed is a result."""
    try:
        return _CHECKS[claim.id](claim, catalog)
    except (KeyError, ArithmeticError, ValueError) as error:  # ScenarioError is a ValueError
        return ClaimCheck(claim, "n/a", math.nan, "partly", f"Not checked: the catalog lacks a figure ({error}).")


@functools.lru_cache(maxsize=8)
def _checked(catalog: Catalog) -> tuple[ClaimCheck, ...]:
    return tuple(_check(claim, catalog) for claim in SEED_CLAIMS)


def check_claims(catalog: Catalog | None = None) -> tuple[ClaimCheck, ...]:
    """Set every seed claim beside the catalog's and the engine's figures, in :data:`SEED_CLAIMS` order.

    Computed once per catalog (the catalog is immutable); the user's added rows do not change
    the reference setups, which name built-in ids.
    """
    return _checked(catalog or default_catalog())
