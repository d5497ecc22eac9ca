"""One estimate: training and inference for a scenario, with ranges and plain-language warnings.

The result types (:class:`Estimate`, :class:`TrainingEstimate`, :class:`InferenceEstimate`,
:class:`Range`) live in :mod:`model.results` and are re-exported here.
"""

from __future__ import annotations

from collections.abc import Sequence

from model.catalog import Catalog
from model.efficiency import EXPECTED, OPTIMISTIC, PESSIMISTIC, Efficiencies
from model.hardware import compute_precision, matmul_ceiling_share, peak_flops
from model.inference import DecodeStep, ideal_decode_step, loaded_serving, serving_context, serving_rates
from model.memory import RUNTIME_BYTES, inference_memory, max_batch_that_fits, training_regime
from model.parallelism import choose_inference_layout, choose_training_layout
from model.results import Estimate, InferenceEstimate, Range, TrainingEstimate
from model.scenario import Resolved, Scenario, resolve
from model.training import StepTime, step_time, training_work, wall_time
from model.units import GB, HOUR_S

__all__ = ["Estimate", "InferenceEstimate", "Range", "TrainingEstimate", "estimate", "runtime_bytes"]


_VARIANTS: tuple[Efficiencies, ...] = (EXPECTED, OPTIMISTIC, PESSIMISTIC)


def _bytes(value: float) -> str:
    return f"{value / GB:,.1f} GB"


def runtime_bytes(r: Resolved) -> float:
    """An accelerator attached to a host carries a runtime context; a bare CPU server does not."""
    return RUNTIME_BYTES if r.gpu.host_link else 0.0


def _ranges(**figures: Sequence[float | None]) -> dict[str, Range]:
    """Return each known figure's low and high over the three efficiency sets (unknown ones left out)."""
    ranges = {}
    for name, (a, b, c) in figures.items():
        if a is None or b is None or c is None:
            continue
        # Plain comparisons: this runs for every figure of every estimate, and min()/max() cost more.
        low, high = (a, b) if a < b else (b, a)
        ranges[name] = Range(c if c < low else low, c if c > high else high)
    return ranges


def _training(r: Resolved, warnings: list[str]) -> tuple[TrainingEstimate, dict[str, Range]]:
    s, gpu, arch = r.scenario, r.gpu, r.arch
    precision = r.precision
    if s.finetune not in ("lora", "qlora") and precision in ("int8", "int4"):
        warnings.append(f"training in {precision} is not a training format; estimated as bf16 mixed precision")
        precision = "bf16"
    key, note = compute_precision(gpu, precision)
    if note:
        warnings.append(f"training: {note}")
    regime = training_regime(arch, precision, s.optimizer, s.finetune, s.lora_rank, s.master_weights)
    runtime = runtime_bytes(r)
    plan = choose_training_layout(
        arch,
        regime,
        cards=s.cards,
        gpus_per_node=r.gpus_per_node,
        capacity_bytes=gpu.memory_bytes,
        seq_len=r.seq_len,
        global_tokens=r.global_batch_tokens,
        micro_batch=s.micro_batch,
        recompute=r.recompute,
        flash_attention=s.flash_attention,
        tp=s.tp,
        pp=s.pp,
        dp=s.dp,
        ep=s.ep,
        zero=s.zero,
        runtime_bytes=runtime,
    )
    layout = plan.layout
    used = layout.tp * layout.pp * layout.dp
    if used != s.cards:
        shape = f"tp {layout.tp} x pp {layout.pp} x dp {layout.dp}"
        if used > s.cards:
            warnings.append(f"the layout {shape} needs {used} cards; the scenario has {s.cards}")
        else:
            warnings.append(f"training uses {used} of {s.cards} cards ({shape}); the rest sit idle")
    if layout.tp > r.gpus_per_node:
        warnings.append(
            f"tensor parallelism of {layout.tp} crosses nodes of {r.gpus_per_node}: "
            f"its all-reduces go over {r.network.name}"
        )
    if not plan.fits:
        warnings.append(
            f"training does not fit: needs {_bytes(plan.memory.total)} per card, has {_bytes(gpu.memory_bytes)}"
        )
    work = training_work(
        r, regime, layout, global_batch=plan.global_batch, microbatches=plan.microbatches, recompute=plan.recompute
    )
    peak = peak_flops(gpu, key)
    share = matmul_ceiling_share(gpu, key)
    lora = s.finetune in ("lora", "qlora")
    model_flops = work.model_flops_per_token * r.tokens
    times: list[float] = []
    steps: list[StepTime] = []
    for eff in _VARIANTS:
        if s.mfu is not None:
            seconds = model_flops / (used * peak * s.mfu) / work.steps
            step = StepTime(seconds, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, seconds)
        else:
            step = step_time(
                r,
                work,
                layout,
                microbatches=plan.microbatches,
                compute_key=key,
                peak=peak,
                ceiling_share=share,
                eff=eff,
                lora=lora,
            )
        steps.append(step)
        times.append(wall_time(step.total, work.steps, used, eff))
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
        fits=plan.fits,
        parallelism=layout,
        recompute=plan.recompute,
        tokens=r.tokens,
        seq_len=r.seq_len,
        global_batch=plan.global_batch,
        micro_batch=s.micro_batch,
        microbatches=plan.microbatches,
        steps=work.steps,
        step=steps[0],
        compute_precision=key,
        regime=regime.label,
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


def _inference(r: Resolved, warnings: list[str]) -> tuple[InferenceEstimate, dict[str, Range]]:
    s, gpu, arch = r.scenario, r.gpu, r.arch
    key, note = compute_precision(gpu, r.precision)
    if note:
        warnings.append(f"inference: {note}")
    context = float(s.prompt_len + s.output_len)
    if context > arch.max_context:
        warnings.append(
            f"prompt + output = {context:,.0f} tokens is longer than the model's {arch.max_context:,}-token context"
        )
    runtime = runtime_bytes(r)
    wanted = 1 if s.batch == "max" else int(s.batch)
    plan = choose_inference_layout(
        arch,
        cards=s.cards,
        gpus_per_node=r.gpus_per_node,
        capacity_bytes=gpu.memory_bytes,
        precision=r.precision,
        kv_precision=r.kv_precision,
        batch=wanted,
        context=context,
        prompt_len=s.prompt_len,
        tp=s.tp,
        pp=s.pp,
        runtime_bytes=runtime,
    )
    most = max_batch_that_fits(
        arch,
        gpu.memory_bytes,
        precision=r.precision,
        kv_precision=r.kv_precision,
        context=context,
        prompt_len=s.prompt_len,
        tp=plan.tp,
        pp=plan.pp,
        runtime_bytes=runtime,
    )
    batch = max(1, most) if s.batch == "max" else wanted
    memory = (
        plan.memory
        if batch == wanted
        else inference_memory(
            arch,
            precision=r.precision,
            kv_precision=r.kv_precision,
            batch=batch,
            context=context,
            prompt_len=s.prompt_len,
            tp=plan.tp,
            pp=plan.pp,
            runtime_bytes=runtime,
        )
    )
    fits = memory.total <= gpu.memory_bytes
    if not fits:
        limit = "not even one sequence fits" if most == 0 else f"at most {most} sequences fit"
        warnings.append(
            f"inference does not fit: needs {_bytes(memory.total)} per card, has {_bytes(gpu.memory_bytes)} ({limit})"
        )
    ctx = serving_context(
        r,
        tp=plan.tp,
        pp=plan.pp,
        compute_key=key,
        peak=peak_flops(gpu, key),
        ceiling_share=matmul_ceiling_share(gpu, key),
    )
    ideal = ideal_decode_step(r, ctx, batch)
    price = r.price_per_gpu_hour
    served = [loaded_serving(r, ctx, serving_rates(r, ctx, eff), batch, plan.dp) for eff in _VARIANTS]
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
    }
    first = served[0]
    step = steps[0]
    result = InferenceEstimate(
        memory_per_gpu=memory,
        fits=fits,
        max_batch=most,
        batch=batch,
        ttft_s=first.ttft_s,
        tpot_s=first.tpot_s,
        tpot_roofline_s=ideal,
        decode_step_s=step.total,
        decode_tokens_per_s=first.tokens_per_s,
        decode_tokens_per_s_per_user=1.0 / first.tpot_s,
        prefill_tokens_per_s=first.prefill_tokens_per_s,
        bound=first.bound,
        cost_per_million_output_tokens_usd=costs[0],
        tp=plan.tp,
        pp=plan.pp,
        dp=plan.dp,
        decode=step,
        compute_precision=key,
    )
    return result, _ranges(**figures)


def estimate(scenario: Scenario, catalog: Catalog | None = None) -> Estimate:
    """Estimate training and serving for ``scenario``.

    Raises:
        ScenarioError: an input is invalid (unknown id, out of range); "does not fit" is a
            result, reported in ``fits`` and ``warnings``.
    """
    r = resolve(scenario, catalog)
    warnings: list[str] = []
    if r.price_per_gpu_hour is None:
        warnings.append(f"no cloud price is known for {r.gpu.name}; give price_per_gpu_hour for costs")
    training, training_ranges = _training(r, warnings)
    inference, inference_ranges = _inference(r, warnings)
    return Estimate(r, training, inference, {**training_ranges, **inference_ranges}, tuple(warnings))
