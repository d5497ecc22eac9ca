"""The training layout search bound to a resolved scenario, timed under one efficiency set, and cached."""

from __future__ import annotations

from model.architecture import product_work
from model.batch import default_global_batch
from model.caches import BoundedMemo
from model.efficiency import Efficiencies, achievable_bandwidth, efficiency_variants, matmul_efficiency
from model.layouts.serving import forget_serving_choices
from model.layouts.training import Knobs, TrainingPlan, TrainingSearch, search_training_layout
from model.memory import (
    Layout,
    TrainingMemory,
    TrainingRegime,
    TrainingStates,
    combined_memory,
    runtime_bytes,
    training_activations,
    training_states,
)
from model.results import TrainingCandidate
from model.scenario import Recompute, Resolved
from model.training import (
    StepTime,
    TrainingWork,
    attention_core_rate,
    elementwise_bytes,
    matmul_passes,
    selective_products_redone,
    step_time,
    training_work,
    wall_time,
)

__all__ = ["forget_searches", "plan_training"]

_SEARCHES: BoundedMemo[tuple[object, ...], TrainingSearch] = BoundedMemo(512)
"""Searches remembered per process: the pages and sweeps ask for the same training many times."""


_Sizes = tuple[
    dict[Layout, TrainingStates],
    dict[tuple[int, int, int, int, Recompute, int, int], float],
    dict[tuple[Layout, int, int, int, Recompute, int], TrainingWork],
]
_SIZES: BoundedMemo[tuple[object, ...], _Sizes] = BoundedMemo(64)


def _sizes_for(key: tuple[object, ...]) -> _Sizes:
    """Return the states, activations and step counts already worked out for one model, regime and run."""
    found = _SIZES.get(key)
    return found if found is not None else _SIZES.put(key, ({}, {}, {}))


def forget_searches() -> None:
    """Empty the training and serving layout caches (benchmarks time a search from scratch)."""
    _SEARCHES.clear()
    _SIZES.clear()
    forget_serving_choices()


def plan_training(
    r: Resolved, regime: TrainingRegime, eff: Efficiencies, *, key: str, peak: float, share: float | None, lora: bool
) -> TrainingSearch:
    """Search the training layouts of ``r`` (the user's fixed knobs kept), timed under ``eff``.

    Cached by the inputs the search reads, so a page that changes only the serving settings, or a
    sweep that estimates the same training again, does not search again.
    """
    s, arch = r.scenario, r.arch
    knobs = Knobs(s.tp, s.pp, s.dp, s.ep, s.zero, r.recompute, s.micro_batch, s.vp, s.global_batch, s.recompute_layers)
    runtime = runtime_bytes(r.gpu.host_link)
    cache_key = (
        arch, regime, knobs, s.cards, r.gpus_per_node, r.gpu, r.scale_up, r.network, r.seq_len, r.tokens,
        r.precision, s.finetune, s.flash_attention, key, eff, lora, runtime,
    )  # fmt: skip
    found = _SEARCHES.get(cache_key)
    if found is not None:
        return found
    # A layout's states serve all its micro-batches and modes; activations, all ZeRO stages and ep.
    # Neither depends on the cards or the links, so sweeps over those share them between searches.
    states, held, works = _sizes_for((arch, regime, r.seq_len, s.flash_attention, r.tokens, r.precision, s.finetune))

    sized: dict[tuple[Layout, Recompute, int, int, int, int], TrainingMemory] = {}

    def memory_of(
        layout: Layout, mode: Recompute, redone: int, micro_batch: int, microbatches: int, vp: int
    ) -> TrainingMemory:
        # The search asks again for a quarter of the shapes it sized (fitting, then the fewest layers recomputed).
        asked = (layout, mode, redone, micro_batch, microbatches, vp)
        found = sized.get(asked)
        if found is not None:
            return found
        if layout not in states:
            states[layout] = training_states(arch, regime, layout)
        shape = (layout.tp, layout.pp, micro_batch, min(layout.pp, microbatches), mode, redone, vp)
        if shape not in held:
            held[shape] = training_activations(
                arch, regime, tp=layout.tp, pp=layout.pp, seq_len=r.seq_len, micro_batch=micro_batch,
                in_flight=shape[3], recompute=mode, flash_attention=s.flash_attention, vp=vp, recomputed_layers=redone,
            )  # fmt: skip
        found = sized[asked] = combined_memory(states[layout], held[shape], runtime)
        return found

    def timer(
        layout: Layout, mode: Recompute, redone: int, micro_batch: int, batch: int, microbatches: int
    ) -> tuple[TrainingWork, StepTime]:
        counted = (layout, micro_batch, batch, microbatches, mode, redone)
        work = works.get(counted)
        if work is None:
            work = works[counted] = training_work(
                r, regime, layout, micro_batch=micro_batch, global_batch=batch, microbatches=microbatches,
                recompute=mode, recomputed_layers=redone,
            )  # fmt: skip
        return work, step_time(
            r, work, layout, microbatches=microbatches, compute_key=key, peak=peak, ceiling_share=share, eff=eff,
            lora=lora,
        )  # fmt: skip

    # One pass of the layers' products and of the LM head's, by (tp, ep, micro-batch): pp does not
    # change them. Recomputation is counted on the layers only (selective never reruns the head),
    # which keeps the bound below every mode's step.
    floors: dict[tuple[int, int, int], tuple[float, float]] = {}
    # A token's attention cores (three passes at least) and element-wise traffic take the same time
    # on any layout: step_time's own terms, so the bound stays below every step.
    attention_forward = arch.stats.attention_flops_per_token_per_key * r.seq_len / 2.0
    per_token_bytes = elementwise_bytes(
        arch.stats.activation_bytes_per_token_layer * regime.activation_scale, arch.layers, 1.0, 1
    )
    fixed = 3.0 * attention_forward / attention_core_rate(r, key, peak, eff) + (
        per_token_bytes * eff.elementwise_traffic_factor / achievable_bandwidth(r.gpu, eff)
    )

    def compute_floor(tp: int, ep: int, micro_batch: int, redone_share: float) -> float:
        one_pass = floors.get((tp, ep, micro_batch))
        if one_pass is None:
            one_pass = floors[tp, ep, micro_batch] = _matmul_pass_floor(
                r, tp, ep, micro_batch=micro_batch, compute_key=key, peak=peak, ceiling_share=share, eff=eff
            )
        layers, head = one_pass
        return matmul_passes(lora, redone_share) * layers + matmul_passes(lora, 0.0) * head + fixed

    plans, timed = search_training_layout(
        arch, knobs, cards=s.cards, gpus_per_node=r.gpus_per_node, capacity_bytes=r.gpu.capacity_bytes,
        seq_len=r.seq_len, batch_sequences=s.global_batch or default_global_batch(arch, r.tokens, s.cards, r.seq_len),
        selective_redone=selective_products_redone(flash_attention=s.flash_attention), compute_floor=compute_floor,
        memory_of=memory_of, timer=timer, stretch=lambda used: wall_time(1.0, 1.0, used, eff),
    )  # fmt: skip
    best = plans[0]
    assert best.work is not None  # every plan the search returns is timed
    range_steps = (
        ()
        if s.mfu is not None
        else tuple(
            step_time(
                r, best.work, best.layout, microbatches=best.microbatches, compute_key=key, peak=peak,
                ceiling_share=share, eff=end, lora=lora, vp=best.vp,
            )
            for end in efficiency_variants(eff)[1:]
        )
    )  # fmt: skip
    search = TrainingSearch(best, tuple(_candidate(r, plan, eff) for plan in plans), timed, range_steps)
    return _SEARCHES.put(cache_key, search)


def _candidate(r: Resolved, plan: TrainingPlan, eff: Efficiencies) -> TrainingCandidate:
    """Report one plan: its layout, the whole run's wall time with it, its busiest card's bytes."""
    assert plan.step is not None  # every plan the search returns is timed
    layout = plan.layout
    time_s = wall_time(
        plan.step.total, r.tokens / (plan.global_batch * r.seq_len), layout.tp * layout.pp * layout.dp, eff
    )
    return TrainingCandidate(
        *layout,
        plan.recompute,
        plan.recomputed_layers,
        plan.micro_batch,
        plan.vp,
        plan.global_batch,
        time_s,
        plan.memory.total,
    )


def _matmul_pass_floor(
    r: Resolved,
    tp: int,
    ep: int,
    *,
    micro_batch: int,
    compute_key: str,
    peak: float,
    ceiling_share: float | None,
    eff: Efficiencies,
) -> tuple[float, float]:
    """Return the seconds one card would spend on one pass of one token's layer products, and of its LM head.

    The same products at the same shape-dependent efficiencies as :func:`model.training.step_time`,
    without attention cores, element-wise work, communication or bubble: times :func:`matmul_passes`
    and divided by the cards a layout uses, a lower bound on its step time per token.
    """
    stats = r.arch.stats
    attention_work, mlp_work, head_work = product_work(r.arch, micro_batch * r.seq_len, tp, ep)
    attention = 2.0 * stats.attention_params / matmul_efficiency(eff, compute_key, attention_work, ceiling_share)
    head = 2.0 * stats.head_params / matmul_efficiency(eff, compute_key, head_work, ceiling_share)
    mlp_flops = 2.0 * (stats.matmul_params_active - stats.attention_params - stats.head_params)
    mlp = mlp_flops / matmul_efficiency(eff, compute_key, mlp_work, ceiling_share)
    rate = peak * eff.training_matmul_vs_ceiling
    return (attention + mlp) / rate, head / rate
