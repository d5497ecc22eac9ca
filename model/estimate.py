"""One estimate: training and inference for a scenario, with ranges and plain-language warnings.

The result types (:class:`Estimate`, :class:`TrainingEstimate`, :class:`InferenceEstimate`,
:class:`Range`) live in :mod:`model.results`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from types import MappingProxyType

from model.caches import BoundedMemo
from model.catalog import Catalog, default_catalog
from model.efficiency import EXPECTED, Efficiencies, efficiency_variants, matmul_ceiling_share
from model.inference import (
    DecodeStep,
    Offload,
    held_bytes,
    host_budget,
    offload_needs,
    serving_capacity,
    serving_fits,
    serving_verdict,
)
from model.layouts.plan import plan_training
from model.layouts.serving import plan_serving, serving_load
from model.memory import TrainingRegime, training_regime
from model.precision import UNTRAINABLE_PRECISIONS, compute_precision
from model.results import Estimate, InferenceEstimate, Note, Range, TrainingEstimate
from model.scenario import Resolved, Scenario, engine_sets_batch, offered_concurrency, resolve, trains_adapters
from model.stacks import serving_efficiencies, serving_stack, training_efficiencies, training_knobs
from model.training import StepTime, wall_time
from model.units import HOUR_S, format_duration, format_gb

__all__ = [
    "PARAMS_TOLERANCE",
    "estimate",
    "forget_estimates",
    "training_precision",
    "training_refused",
    "training_regime_of",
    "training_resolved",
]

PARAMS_TOLERANCE = 0.02
"""A parameter count and a shape that disagree by more than this are reported (the catalog's own
presets are within 2 % of their official counts)."""


def training_precision(r: Resolved) -> str:
    """Return the format the scenario's training is sized in: bf16 for a refused run in a serving format.

    LoRA and QLoRA keep a quantised frozen base and train their adapters in 16-bit. Pre-training
    or fully fine-tuning every weight in a serving format is refused (:func:`training_refused`); its
    memory is then the bf16 run's, what the refusal's fix would need.
    """
    return "bf16" if training_refused(r) else r.precision


def training_regime_of(r: Resolved) -> TrainingRegime:
    """Return what each parameter costs the scenario's training (bytes of weights, gradients, optimizer states)."""
    s = r.scenario
    return training_regime(r.arch, training_precision(r), s.optimizer, s.finetune, s.lora_rank, s.master_weights)


def training_refused(r: Resolved) -> bool:
    """Return whether the training asked for cannot run: every weight trained in a serving format.

    Adapters always train: on a base kept in its weight-only format where PEFT can (bitsandbytes,
    GPTQ, AWQ), on NF4 under QLoRA, else on the base dequantised to 16-bit, as transformers loads a
    GGUF or MXFP4 checkpoint to fine-tune it (:func:`model.memory.adapter_base_format`).
    """
    return not trains_adapters(r.scenario.finetune) and r.precision in UNTRAINABLE_PRECISIONS


_new_range = tuple.__new__
"""Range's tuple constructor called directly: every estimate builds a dozen ranges, and the
named tuple's Python-level __new__ costs more than the comparisons that find their ends."""


def _ranges(**figures: Sequence[float | None]) -> dict[str, Range]:
    """Return each known figure's low and high over the three efficiency sets (unknown ones left out)."""
    ranges = {}
    for name, (a, b, c) in figures.items():
        if a is None or b is None or c is None:
            continue
        # Plain comparisons: this runs for every figure of every estimate, and min()/max() cost more.
        low, high = (a, b) if a < b else (b, a)
        ranges[name] = _new_range(Range, (c if c < low else low, c if c > high else high))
    return ranges


def training_resolved(r: Resolved) -> Resolved:
    """Return ``r`` with the training knobs its stack sets where the user left them free.

    :func:`model.stacks.training_knobs` says which: torchtune shards with FSDP and checkpoints every
    layer, PEFT's Trainer has no tensor or pipeline parallelism, ...; typical and Megatron-LM set
    none, leaving the layout search free.
    """
    s = r.scenario
    knobs = {name: value for name, value in training_knobs(r.stack, s.cards).items() if getattr(s, name) is None}
    if s.recompute_layers is not None:  # layers recomputed in full: the user chose the mode
        knobs.pop("recompute", None)
    if not knobs:
        return r
    filled = replace(s, **knobs)  # type: ignore[arg-type]  # tp, pp, zero, recompute as data/stacks.yaml checks them
    return r._replace(scenario=filled, recompute="full" if filled.recompute_layers is not None else filled.recompute)


def _training(
    r: Resolved, variants: Sequence[Efficiencies], notes: list[Note]
) -> tuple[TrainingEstimate, dict[str, Range]]:
    r = training_resolved(r)
    s, gpu = r.scenario, r.gpu
    precision = training_precision(r)
    refused = training_refused(r)
    if refused:
        notes.append(Note("not_training_format", {"precision": r.precision}))
    key, note = compute_precision(gpu, precision)
    if note:
        notes.append(Note("training_no_tensor_cores", {"gpu": gpu.name, "precision": precision, "key": key}))
    regime = training_regime_of(r)
    peak = gpu.dense_flops_per_s[key]  # dense, not 2:4 sparse
    share = matmul_ceiling_share(gpu, key)
    lora = trains_adapters(s.finetune)
    search = plan_training(r, regime, variants[0], key=key, peak=peak, share=share, lora=lora)
    plan = search.best
    layout = plan.layout
    used = layout.tp * layout.pp * layout.dp
    if used < s.cards:  # never more: the scenario's check and the search keep a layout within its cards
        shape = f"tp {layout.tp} x pp {layout.pp} x dp {layout.dp}"
        notes.append(Note("cards_idle", {"shape": shape, "used": str(used), "cards": str(s.cards)}))
    if s.global_batch is not None and plan.global_batch != s.global_batch:
        rounded = {"asked": f"{s.global_batch:,}", "used": f"{plan.global_batch:,}", "dp": str(layout.dp)}
        notes.append(Note("global_batch_rounded", rounded))
    if plan.vp > 1 and plan.microbatches % layout.pp:  # only a fixed --vp gets here: the search keeps whole groups
        notes.append(Note("vp_partial_group", {"vp": str(plan.vp), "pp": str(layout.pp), "m": str(plan.microbatches)}))
    if layout.tp > r.gpus_per_node:
        crossing = {"tp": str(layout.tp), "per_node": str(r.gpus_per_node), "network": r.network.name}
        notes.append(Note("tp_across_nodes", crossing))
    if not plan.fits and not refused:
        sizes = {"needed": format_gb(plan.memory.total), "capacity": format_gb(gpu.capacity_bytes)}
        notes.append(Note("training_does_not_fit", sizes))
    assert plan.work is not None  # the search counted the chosen layout's step already
    work = plan.work
    model_flops = work.model_flops_per_token * r.tokens
    if s.mfu is not None:
        seconds = model_flops / (used * peak * s.mfu) / work.steps
        steps = [StepTime(seconds, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, seconds)] * len(variants)
        # A fixed MFU pins the steps; the run's losses are then the expected ones, so the range
        # collapses to the figure: the user has removed the uncertainty the range stands for.
        losses = [variants[0]] * len(variants)
    else:
        assert plan.step is not None  # the search timed the best layout under every efficiency set
        steps, losses = [plan.step, *search.range_steps], list(variants)
    times = [wall_time(step.total, work.steps, used, eff) for step, eff in zip(steps, losses, strict=True)]
    time_s = times[0]
    gpu_hours = [t * s.cards / HOUR_S for t in times]
    price = r.price_per_gpu_hour
    costs = [h * price if price is not None else None for h in gpu_hours]
    energies = [h * gpu.tdp_w / 1000.0 if gpu.tdp_w else None for h in gpu_hours]
    # Throughput and MFU are steady-state step figures, as benchmarks and papers report them;
    # wall time and GPU-hours add what a whole run loses (failures, checkpoints, stalls).
    step_seconds = [step.total * work.steps for step in steps]
    mfus = [model_flops / (t * used * peak) for t in step_seconds]
    rates = [r.tokens / t / used for t in step_seconds]
    result = TrainingEstimate(
        total_flops=work.hardware_flops_per_token * r.tokens,
        time_s=time_s,
        gpu_hours=gpu_hours[0],
        cost_usd=costs[0],
        energy_kwh=energies[0],
        tokens_per_s_per_gpu=rates[0],
        mfu=mfus[0],
        memory_per_gpu=plan.memory,
        fits=plan.fits and not refused,
        parallelism=layout,
        recompute=plan.recompute,
        recomputed_layers=plan.recomputed_layers,
        tokens=r.tokens,
        seq_len=r.seq_len,
        global_batch=plan.global_batch,
        micro_batch=plan.micro_batch,
        microbatches=plan.microbatches,
        vp=plan.vp,
        steps=work.steps,
        step=steps[0],
        precision=precision,
        compute_precision=key,
        regime=regime.label,
        state_bytes_per_param=regime.weight_bytes + regime.grad_bytes + regime.optimizer_bytes,
        layout_candidates=search.ranked,
        layouts_timed=search.timed,
    )
    ranges = _ranges(
        time_s=times,
        gpu_hours=gpu_hours,
        cost_usd=costs,
        energy_kwh=energies,
        tokens_per_s_per_gpu=rates,
        mfu=mfus,
    )
    return result, ranges


def _inference(
    r: Resolved, variants: Sequence[Efficiencies], notes: list[Note]
) -> tuple[InferenceEstimate, dict[str, Range]]:
    s, gpu, arch = r.scenario, r.gpu, r.arch
    key, note = compute_precision(gpu, r.precision)
    if note:
        notes.append(Note("inference_no_tensor_cores", {"gpu": gpu.name, "precision": r.precision, "key": key}))
    context = s.prompt_len + s.output_len
    if context > arch.max_context:
        notes.append(Note("context_too_long", {"context": f"{context:,}", "limit": f"{arch.max_context:,}"}))
    choice = plan_serving(r, key, variants[0])
    plan, largest, memory, batch = choice.plan, choice.largest, choice.memory, choice.batch
    most = largest[plan.key]
    fits = serving_fits(memory, gpu.capacity_bytes, r.serving_budget)
    budget = serving_capacity(gpu.capacity_bytes, r.serving_budget, held_bytes(memory))
    split = choice.offload or _unsplit(r, memory.total, budget, (plan.tp, plan.pp, plan.ep), batch)
    if not fits:
        sizes = {
            "needed": format_gb(memory.total),
            "budget": format_gb(budget),
            "capacity": format_gb(gpu.capacity_bytes),
        }
        if most == 0:
            notes.append(Note("inference_does_not_fit_none", sizes))
        else:
            notes.append(Note("inference_does_not_fit_some", {**sizes, "most": str(most)}))
    loaded = choice.expected[plan.key][1]
    if s.requests is not None and fits and loaded.job_s is not None:
        job = {
            "requests": f"{s.requests:,}",
            "replicas": f"{plan.dp:,}",
            "waves": f"{loaded.waves:.3g}",
            "running": f"{batch:,}",
            "time": format_duration(loaded.job_s),
            "wait": format_duration(loaded.queue_wait_s),
        }
        notes.append(Note("inference_job", job))
    elif plan.waiting:
        queue = {
            "queued": f"{plan.waiting:,}",
            "concurrency": f"{offered_concurrency(s) or 0:,}",
            "running": f"{batch:,}",
            "wait": format_duration(loaded.queue_wait_s),
        }
        notes.append(Note("inference_queued", queue))
    slots = r.serving_slots
    if fits and slots is not None and batch == slots and engine_sets_batch(s):
        notes.append(Note("inference_slots", {"stack": serving_stack(r.stack).name, "slots": f"{slots:,}"}))
    first = choice.expected[plan.key][1]
    price = r.price_per_gpu_hour
    served = [first, *choice.range_served]
    steps: list[DecodeStep] = [one.step for one in served]
    costs: list[float | None] = [
        price * s.cards / HOUR_S / (one.tokens_per_s * s.utilization) * 1e6 if price is not None else None
        for one in served
    ]
    figures: dict[str, Sequence[float | None]] = {
        "ttft_s": [one.ttft_s for one in served],
        "tpot_s": [one.tpot_s for one in served],
        "decode_tokens_per_s": [one.tokens_per_s for one in served],
        "decode_tokens_per_s_per_user": [1.0 / one.tpot_s for one in served],
        "prefill_tokens_per_s": [one.prefill_tokens_per_s for one in served],
        "cost_per_million_output_tokens_usd": costs,
        # Only a queue has a wait worth a range; without one it is 0 under every efficiency set.
        "queue_wait_s": [one.queue_wait_s for one in served] if plan.waiting or s.requests else [None, None, None],
        "job_s": [one.job_s for one in served],
    }
    first = served[0]
    step = steps[0]
    notes.extend(_offload_notes(r, split, fits, 1.0 / first.tpot_s))
    result = InferenceEstimate(
        memory_per_gpu=memory,
        fits=fits,
        max_batch=most,
        batch=batch,
        ttft_s=first.ttft_s,
        tpot_s=first.tpot_s,
        tpot_roofline_s=choice.roofline_tpot_s,
        decode_step_s=step.total,
        decode_tokens_per_s=first.tokens_per_s,
        decode_tokens_per_s_per_user=1.0 / first.tpot_s,
        prefill_tokens_per_s=first.prefill_tokens_per_s,
        bound=first.bound,
        cost_per_million_output_tokens_usd=costs[0],
        tp=plan.tp,
        pp=plan.pp,
        dp=plan.dp,
        ep=plan.ep,
        decode=step,
        compute_precision=key,
        layout_candidates=choice.candidates,
        queued=plan.waiting,
        queue_wait_s=first.queue_wait_s,
        job_s=first.job_s,
        waves=first.waves,
        offload=split,
        verdict=serving_verdict(fits, split),
        budget_per_gpu=budget,
    )
    return result, _ranges(**figures)


def _unsplit(r: Resolved, card_total: float, budget: float, replica: tuple[int, int, int], batch: int) -> Offload:
    """Return the no-offload entry: the replica's cards hold it all (or nothing runs), with what it needs and has.

    With host memory, what the cards and the host need together (model.inference.offload_needs);
    without, the replica's cards' memory against their budgets.
    """
    tp, pp, ep = replica
    capacity = r.gpu.capacity_bytes
    if r.host is not None:
        return offload_needs(r, serving_load(r), tp=tp, pp=pp, batch=batch, capacity_bytes=capacity)
    cards, layers = tp * pp * ep, r.arch.layers
    return Offload(
        "none",
        layers,
        layers,
        needed_bytes=card_total * cards,
        has_bytes=budget * cards,
    )


def _offload_notes(r: Resolved, split: Offload, fits: bool, tokens_per_s: float) -> list[Note]:
    """Say where serving put what its cards could not hold, or why it did not (codes and values)."""
    s = r.scenario
    notes = []
    if s.host_memory_gb is not None and r.gpu.shares_host_memory:
        notes.append(Note("offload_shared_memory", {"gpu": r.gpu.short_name}))
    if s.offload == "experts" and r.host is not None and not r.arch.is_moe:
        notes.append(Note("offload_experts_dense", {"model": r.model_name}))
    rate = f"{tokens_per_s:,.3g}"
    if split.mode == "layers":
        values = {"on_card": str(split.layers_on_card), "layers": str(split.layers)}
        values["host"] = format_gb(split.host_bytes)
        notes.append(Note("inference_offloaded_layers", {**values, "rate": rate}))
    elif split.mode == "experts":
        values = {"cpu_moe": str(split.cpu_moe_layers), "layers": str(split.layers)}
        values["host"] = format_gb(split.host_bytes)
        notes.append(Note("inference_offloaded_experts", {**values, "rate": rate}))
    elif not fits and r.host is not None:
        cards = format_gb(split.has_bytes - host_budget(r.host))
        values = {"needed": format_gb(split.needed_bytes), "has": format_gb(split.has_bytes), "cards": cards}
        notes.append(Note("inference_wont_run", {**values, "host": format_gb(host_budget(r.host))}))
    return notes


_ESTIMATES: BoundedMemo[tuple[Scenario, Catalog, Efficiencies], Estimate] = BoundedMemo(512)
"""Estimates already made, by scenario, catalog (by identity: a visit's own rows make another) and
efficiency set. A page's analyses ask for the same scenario more than once in one rerun (the
Overview's verdict, its pair and its CPU comparison each estimate the one-user scenario), and a
rerun with a setting seen before asks again; an estimate is immutable, so each is made once."""


def forget_estimates() -> None:
    """Forget every estimate made (tests and benchmarks that count or time cold estimates)."""
    _ESTIMATES.clear()


def estimate(scenario: Scenario, catalog: Catalog | None = None, *, efficiencies: Efficiencies = EXPECTED) -> Estimate:
    """Estimate training and serving for ``scenario`` (made once per scenario, catalog and efficiency set).

    Args:
        scenario: what to estimate.
        catalog: the catalog to resolve ids in (the built-in one by default).
        efficiencies: the expected efficiency set, before the scenario's stack and platform apply
            their constants (:mod:`model.stacks`); the range's ends are moved from the result. Only a
            calibration passes another one.

    Raises:
        ScenarioError: an input is invalid (unknown id, out of range); "does not fit" is a
            result, reported in ``fits`` and ``warnings``.
    """
    key = (scenario, catalog if catalog is not None else default_catalog(), efficiencies)
    found = _ESTIMATES.get(key)
    return found if found is not None else _ESTIMATES.put(key, _estimate(scenario, key[1], efficiencies))


def _estimate(scenario: Scenario, catalog: Catalog, efficiencies: Efficiencies) -> Estimate:
    r = resolve(scenario, catalog)
    notes: list[Note] = []
    counted = r.arch.stats.total_params
    if scenario.params and abs(counted / scenario.params - 1.0) > PARAMS_TOLERANCE:
        given = {"counted": f"{counted / 1e9:,.3g}", "given": f"{scenario.params / 1e9:,.3g}"}
        notes.append(Note("params_disagree", given))
    if scenario.gpus_per_node is not None and scenario.gpus_per_node > scenario.cards:
        capped = {"given": f"{scenario.gpus_per_node:,}", "cards": f"{scenario.cards:,}"}
        notes.append(Note("gpus_per_node_capped", capped))
    if r.price_per_gpu_hour is None:
        notes.append(Note("no_price", {"gpu": r.gpu.name}))
    if scenario.stack != r.stack.id:
        notes.append(Note("stack_implied", {"stack": r.stack.name, "precision": r.precision, "gpu": r.gpu.name}))
    trained = efficiency_variants(training_efficiencies(r.stack, r.platform, efficiencies))
    served = efficiency_variants(serving_efficiencies(r.stack, r.platform, efficiencies))
    training, training_ranges = _training(r, trained, notes)
    inference, inference_ranges = _inference(r, served, notes)
    ranges = {**training_ranges, **inference_ranges}
    return Estimate(r, training, inference, MappingProxyType(ranges), tuple(notes))
