"""The seed articles' concrete claims: where each is, what it says, and the figures it states.

The seeds (docs/seeds, in Chinese) are the content the app grew from: the GPU generations
and price tables, the training-cost and API-price tables, and the rule "time per generated token
≈ bytes of weights read / memory bandwidth" with its DeepSeek-R1-on-H20 example. Each
:class:`SeedClaim` keeps the original sentence, an English gloss and the figures it states;
:func:`model.seeds.check_claims` computes the engine's side for a stated reference setup
(never a stored answer) and gives each a :class:`ClaimCheck` with a :data:`Verdict`. Background
the numbers alone cannot show is quoted from docs/reference/gpu_specs_notes.md, section 4.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, NamedTuple

__all__ = ["SEED_CLAIMS", "VERDICTS", "ClaimCheck", "SeedClaim", "Verdict"]


Verdict = Literal["consistent", "partly", "contradicts"]
VERDICTS: tuple[Verdict, ...] = ("consistent", "partly", "contradicts")
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
_NOTES = "docs/reference/gpu_specs_notes.md sec. 4"

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
