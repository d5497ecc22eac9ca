"""Seed claims checked by running the engine: training memory, time and cost, serving prices, bytes over bandwidth.

Each check runs :func:`model.estimate.estimate` on a stated reference setup (:data:`REFERENCE_TRAINING`,
:data:`REFERENCE_SERVING`, or one named in the check) and judges the claim by
:func:`model.seeds.rule.verdict`, saying which assumptions reconcile or contradict the two.
:data:`ENGINE_CHECKS` maps each claim id to its check; :func:`model.seeds.check_claims` runs them.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from model.catalog import Catalog
from model.estimate import estimate
from model.results import Estimate
from model.scenario import CHINCHILLA_TOKENS_PER_PARAM, Scenario
from model.seeds.claims import SEED_CLAIMS, ClaimCheck, SeedClaim
from model.seeds.rule import (
    APPROXIMATE_TOLERANCE,
    SPEC_TOLERANCE,
    point,
    price_row,
    verdict,
    worst_verdict,
)
from model.units import DAY_S, GB, TERA, format_usd

__all__ = ["ENGINE_CHECKS", "REFERENCE_SERVING", "REFERENCE_TRAINING"]


REFERENCE_TRAINING: dict[str, object] = {"gpu": "h100-sxm", "cards": 1024, "precision": "bf16"}
"""The training-cost table's setup: Chinchilla's 20 tokens per parameter on 1,024 H100 SXM at the
catalog's price per GPU-hour, bf16 mixed precision with AdamW."""
REFERENCE_SERVING: dict[str, object] = {"gpu": "h100-sxm", "cards": 8, "precision": "bf16", "batch": "max"}
"""The self-hosted price rows' setup: one 8 x H100 SXM server at full load (the largest batch that
fits), the scenario's default 1,024-token prompts, 256-token outputs and 70 % utilisation."""
_YEAR_S = 365.0 * DAY_S
_PUBLISHED_TOKENS = {"llama-2-7b": 2e12, "llama-2-70b": 2e12}
"""Tokens the presets were trained on: Llama 2 paper (Touvron et al. 2023), Table 1: 2.0T."""


def _duration(seconds: float) -> str:
    if seconds < 2 * DAY_S:
        return f"{seconds / 3600:,.1f} hours"
    if seconds < 2 * _YEAR_S:
        return f"{seconds / DAY_S:,.0f} days"
    return f"{seconds / _YEAR_S:,.1f} years"


def _tokens(value: float) -> str:
    return f"{value / 1e12:,.3g}T" if value >= 1e12 else f"{value / 1e9:,.3g}B"


def _run(catalog: Catalog, **settings: object) -> Estimate:
    return estimate(Scenario(**settings), catalog)  # type: ignore[arg-type]


def _check_training_memory(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    model_id, gpu_id = claim.subjects
    base = {"model": model_id, "gpu": gpu_id, "cards": 1, "precision": "bf16"}
    full = _run(catalog, **base).training
    eight_bit = _run(catalog, **base, optimizer="adamw-8bit").training
    lora = _run(catalog, **base, finetune="lora").training
    memory = full.memory_per_gpu
    capacity = catalog.gpus[gpu_id].capacity_bytes / GB

    def fits(t: object) -> str:
        return "fits" if getattr(t, "fits", False) else "does not fit"

    return ClaimCheck(
        claim,
        f"{memory.total / GB:,.0f} GB on one card ({fits(full)} in {capacity:,.3g} GB)",
        memory.total / GB,
        worst_verdict(
            verdict(claim.figure("memory_gb"), point(memory.total / GB), APPROXIMATE_TOLERANCE),
            "consistent" if full.fits else "contradicts",
        ),
        f"{catalog.models[model_id].name}, bf16 mixed precision with AdamW (16 bytes per parameter), "
        f"{full.seq_len:,}-token sequences, micro-batch 1, {full.recompute} recomputation: weights "
        f"{memory.weights / GB:.0f} + gradients {memory.gradients / GB:.0f} + optimizer {memory.optimizer / GB:.0f} + "
        f"activations {memory.activations / GB:.0f} + other {memory.other / GB:.0f} GB. The claim holds with 8-bit "
        f"Adam ({eight_bit.memory_per_gpu.total / GB:.0f} GB, {fits(eight_bit)}) or LoRA "
        f"({lora.memory_per_gpu.total / GB:.0f} GB, {fits(lora)}).",
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
        f"GPT-3 175B on 300B tokens (Brown et al. 2020) on 1,024 × {catalog.gpus[gpu_id].short_name}, bf16; layout "
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
        f"{catalog.gpus[gpu_id].short_name}. {claim.context}",
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
        actual = (
            f" On the {_tokens(published)} tokens it was trained on (Touvron et al. 2023): {format_usd(as_trained)}."
        )
    name = r.model_name if claim.subjects else f"A dense {_tokens(params)}-parameter model (Llama-style shape)"
    tokens_low, tokens_high = (training.tokens * value / cost for value in claimed)
    return ClaimCheck(
        claim,
        f"{format_usd(cost)} (range {format_usd(low)}-{format_usd(high)})",
        cost,
        found,
        f"{name}: {CHINCHILLA_TOKENS_PER_PARAM:g} tokens per parameter ({_tokens(training.tokens)}, "
        f"Chinchilla) on {REFERENCE_TRAINING['cards']:,} × {r.gpu.short_name} at ${r.price_per_gpu_hour:.2f} "
        f"per GPU-hour ({r.gpu.cloud_price_date}): {_duration(training.time_s)}, MFU {training.mfu:.0%}. "
        f"At this rate the claim's range buys {_tokens(tokens_low)}-{_tokens(tokens_high)} tokens "
        f"({tokens_low / params:,.0f}-{tokens_high / params:,.0f} per parameter).{actual} {claim.context}".strip(),
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
        f"{r.model_name} on {s.cards} × {r.gpu.short_name} at ${price:.2f} per GPU-hour ({r.gpu.cloud_price_date}), "
        f"full load ({serving.batch:,} sequences × {serving.dp} replicas of tp {serving.tp}), {s.prompt_len:,}-token "
        f"prompts, {s.output_len}-token outputs, {s.utilization:.0%} utilisation; every GPU-second is charged to "
        "output tokens. "
        f"Prefill alone would cost ${prefill_only:.2g} per M input tokens. The claim's ${claimed[0]:g} matches "
        f"{s.utilization * cost / claimed[0]:.0%} utilisation, or ${price * claimed[0] / cost:.2f} per GPU-hour. "
        f"{claim.context}".strip(),
    )


def _check_cheaper(claim: SeedClaim, catalog: Catalog) -> ClaimCheck:
    api = price_row(catalog, claim.subjects[0])
    costs = [_serve(catalog, model_id).inference.cost_per_million_output_tokens_usd for model_id in claim.subjects[1:]]
    if api is None or None in costs:
        return ClaimCheck(claim, "n/a", math.nan, "partly", "A price is missing from the catalog.")
    large, small = (api.output_usd_per_million / (cost or math.nan) for cost in costs)
    own_table = next(c for c in SEED_CLAIMS if c.id == "self-hosted-70b").figure("output_usd_per_million")[0]
    return ClaimCheck(
        claim,
        f"{large:.1f}× (70B), {small:.0f}× (8B)",
        large,
        verdict(claim.figure("ratio"), point(large), APPROXIMATE_TOLERANCE),
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
            f" The {gpu.capacity_bytes / GB:,.0f} GB a card holds do not hold the {weights:,.0f} GB of weights "
            "either: the rule counts bytes read, not capacity."
        )
    return ClaimCheck(
        claim,
        f"{ideal:,.1f} ms ideal",
        ideal,
        verdict(claim.figure("ms"), point(ideal), APPROXIMATE_TOLERANCE),
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
        verdict(claim.figure("ratio"), point(ratio), APPROXIMATE_TOLERANCE),
        f"Both read the same bytes, so the ideal ratio is the bandwidth ratio; with efficiencies "
        f"{cpu.tpot_s / gpu.tpot_s:.1f}×.",
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
        worst_verdict(
            verdict(claim.figure("memory_gb"), point(total), SPEC_TOLERANCE),
            "consistent" if serving.fits else "contradicts",
        ),
        f"{result.resolved.model_name} in FP8 on {cards} × {gpu.short_name} (tp {serving.tp}): weights "
        f"{serving.memory_per_gpu.weights / GB:.0f} GB per card ({serving.memory_per_gpu.weights * cards / GB:.0f} GB "
        f"in all); up to {serving.max_batch:,} sequences of {result.resolved.scenario.prompt_len:,} + "
        f"{result.resolved.scenario.output_len} tokens fit in the rest.",
    )


ENGINE_CHECKS: dict[str, Callable[[SeedClaim, Catalog], ClaimCheck]] = {
    "vram-7b-training": _check_training_memory,
    "gpt3-34-days": _check_gpt3_days,
    "gpt3-350-years-cpu": _check_gpt3_cpu,
    "cost-7b": _check_training_cost,
    "cost-70b": _check_training_cost,
    "cost-1t": _check_training_cost,
    "self-hosted-70b": _check_self_hosted,
    "self-hosted-7b": _check_self_hosted,
    "self-hosted-10x": _check_cheaper,
    "rule-h20-9ms": _check_rule,
    "rule-cpu-578ms": _check_rule,
    "rule-64x": _check_gap,
    "h20-8-cards-r1": _check_h20_server,
}
"""The check of each claim that runs the engine, by claim id."""
