"""The result of one estimate: training and inference figures, their ranges and the inputs used.

:func:`model.estimate.estimate` builds these immutable named tuples; :meth:`Estimate.to_dict`
turns one into plain dicts for JSON. ``model`` exports the four result types.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from model.inference import DecodeStep, InferenceMemory, Offload
from model.memory import Layout, TrainingMemory
from model.scenario import SCENARIO_FIELDS, Recompute, Resolved
from model.training import StepTime

__all__ = [
    "NOTES",
    "UNCERTAIN_SPREAD",
    "Estimate",
    "InferenceEstimate",
    "Message",
    "Note",
    "Range",
    "ServingCandidate",
    "TrainingCandidate",
    "TrainingEstimate",
]


UNCERTAIN_SPREAD = 0.05
"""A range narrower than this share of its figure is not worth showing (a chosen threshold)."""


class Range(NamedTuple):
    """The low and high ends of a figure across the efficiency range."""

    low: float
    high: float

    def spread(self, expected: float) -> float:
        """Return the range's width as a share of the expected figure (0 when that is 0)."""
        return (self.high - self.low) / abs(expected) if expected else 0.0


class TrainingCandidate(NamedTuple):
    """One training layout the search weighed: how it splits the cards, how long the run takes, what a card holds."""

    tp: int
    pp: int
    dp: int
    ep: int
    zero: int
    recompute: str
    recomputed_layers: int
    """Of each pipeline stage's layers, how many are recomputed (full recomputation)."""
    micro_batch: int
    vp: int
    global_batch: int
    time_s: float
    """Wall time of the whole run with this layout (expected efficiencies)."""
    memory_per_gpu: float
    """Bytes on the busiest card."""


class ServingCandidate(NamedTuple):
    """One serving replica the estimate weighed, at the batch it would serve."""

    tp: int
    pp: int
    dp: int
    batch: int
    tpot_s: float
    decode_tokens_per_s: float
    """Output tokens per second over every replica."""
    memory_per_gpu: float
    ep: int = 1
    """Cards of attention data parallelism with experts split over them (1: a tp x pp replica)."""
    fits: bool = True
    """Whether the replica holds its batch within the server's budget (model.inference.serving_fits)."""


class TrainingEstimate(NamedTuple):
    """Training the scenario's model on the scenario's cards (memory figures per card)."""

    total_flops: float
    time_s: float
    """Wall time of the whole run: steps plus failures, checkpoints and stalls."""
    gpu_hours: float
    cost_usd: float | None
    energy_kwh: float | None
    tokens_per_s_per_gpu: float
    """Steady-state training steps, per card in the layout (what benchmarks report)."""
    mfu: float
    """Model FLOPs utilisation of the steady-state steps (PaLM's definition, no recomputation)."""
    memory_per_gpu: TrainingMemory
    fits: bool
    """Whether the run can go: the busiest card holds it, and its format trains (not int8 or int4 weights)."""
    parallelism: Layout
    recompute: Recompute
    recomputed_layers: int
    """Of each pipeline stage's layers, how many run their forward again in backward (full
    recomputation; fewer than all when that is all the card needs)."""
    tokens: float
    seq_len: int
    global_batch: int
    micro_batch: int
    microbatches: int
    vp: int
    """Model chunks per pipeline stage (interleaved schedule; 1: plain 1F1B)."""
    steps: float
    step: StepTime
    precision: str
    """The format trained in: the scenario's, or bf16 when it names a weight-only serving format."""
    compute_precision: str
    regime: str
    state_bytes_per_param: float
    """Weights, gradients and optimizer state (master copy included) per trained parameter."""
    layout_candidates: tuple[TrainingCandidate, ...]
    """The chosen layout first, then the fastest runner-ups the search found."""
    layouts_timed: int = 0
    """How many layouts the search timed (the rest fell to its bounds)."""


class InferenceEstimate(NamedTuple):
    """Serving the scenario's model; throughput counts every replica, memory is per card."""

    memory_per_gpu: InferenceMemory
    fits: bool
    """Whether a replica holds its running batch (``batch``) within the server's budget."""
    max_batch: int
    batch: int
    """The sequences each replica runs: the scenario's batch, its share of the concurrency, the
    largest that fits for "max", or, when the concurrency is more than fits, the largest that fits."""
    ttft_s: float
    """Time to first token, the wait for a slot included (``queue_wait_s``)."""
    tpot_s: float
    tpot_roofline_s: float
    decode_step_s: float
    decode_tokens_per_s: float
    decode_tokens_per_s_per_user: float
    prefill_tokens_per_s: float
    bound: str
    cost_per_million_output_tokens_usd: float | None
    tp: int
    pp: int
    dp: int
    decode: DecodeStep
    compute_precision: str
    layout_candidates: tuple[ServingCandidate, ...]
    """The chosen replica first, then the other replicas that fit, best first."""
    ep: int = 1
    """Cards of attention data parallelism with the routed experts split over them (1: tp x pp)."""
    queued: int = 0
    """Sequences of the concurrency that wait for a slot, over all replicas (0: every one runs)."""
    queue_wait_s: float = 0.0
    """How long a sequence waits for a slot on average (:func:`model.inference.queue_wait`), part of ``ttft_s``."""
    job_s: float | None = None
    """A batch job's time (``Scenario.requests``), first prompt to last token, in waves of ``batch``
    per replica; ``decode_tokens_per_s`` is then the job's output over it (None: a steady load)."""
    waves: float = 0.0
    """A batch job's waves per replica: the full ones plus the share of a batch the last one runs."""
    offload: Offload = Offload("none", 0, 0)
    """How the replica is split between its cards and the host's memory (mode "none": the cards hold
    it all, or nothing runs), with what it needs and has (model.inference.offload)."""
    verdict: str = "fits"
    """Serving's verdict: "fits", "fits_with_offload" or "wont_run" (model.inference.serving_verdict)."""
    budget_per_gpu: float = 0.0
    """What the serving software lets itself use of each card, in bytes: its share of the card, or
    (TensorRT-LLM) what the card holds before its cache plus its share of the rest
    (:func:`model.inference.serving_capacity`); ``memory_per_gpu.total`` fits within it."""


NOTES: dict[str, str] = {
    "not_training_format": (
        "training is not run: {precision} is a weight format for serving, and no framework trains every weight in it"
        " (bf16, fp16, fp8 or fp32 do; LoRA and QLoRA train adapters on it)"
    ),
    "training_no_tensor_cores": "training: {gpu} has no {precision} tensor cores; products run in {key}",
    "inference_no_tensor_cores": "inference: {gpu} has no {precision} tensor cores; products run in {key}",
    "cards_idle": "training uses {used} of {cards} cards ({shape}); the rest sit idle",
    "gpus_per_node_capped": "gpus per node: {given} is more than the {cards} cards, which form one node",
    "global_batch_rounded": (
        "the global batch of {asked} sequences runs as {used}: each of the {dp} replicas takes whole micro-batches"
    ),
    "vp_partial_group": "interleaving {vp} chunks needs micro-batches in groups of {pp}, not {m} (Megatron refuses it)",
    "tp_across_nodes": "tensor parallelism of {tp} crosses nodes of {per_node}: its all-reduces go over {network}",
    "training_does_not_fit": "training does not fit: needs {needed} per card, has {capacity}",
    "context_too_long": "prompt + output = {context} tokens is longer than the model's {limit}-token context",
    "inference_does_not_fit_none": (
        "inference does not fit: needs {needed} per card, a server budgets {budget} of the card's {capacity}"
        " (not even one sequence fits)"
    ),
    "inference_does_not_fit_some": (
        "inference does not fit: needs {needed} per card, a server budgets {budget} of the card's {capacity}"
        " (at most {most} sequences fit)"
    ),
    "stack_implied": (
        "software not said: {precision} on {gpu} is estimated as {stack} runs it; name a stack to change that"
    ),
    "inference_job": (
        "a batch job of {requests} requests: each of the {replicas} replicas runs {running} at once, in {waves}"
        " waves, so the job takes {time} and a request waits {wait} on average before its first token"
    ),
    "inference_queued": (
        "{queued} of {concurrency} sequences wait for a slot: each replica runs {running} at once,"
        " and a sequence waits {wait} on average before its first token"
    ),
    "inference_slots": (
        "{stack}'s server runs {slots} at a time unless told (its default slots); a batch you set is its slot count"
    ),
    "inference_offloaded_layers": (
        "fits with offload: {on_card} of {layers} layers on the card, {host} in host memory, {rate} tokens/s per user"
    ),
    "inference_offloaded_experts": (
        "fits with offload: the routed experts of the first {cpu_moe} of {layers} layers in host memory ({host}),"
        " {rate} tokens/s per user"
    ),
    "inference_wont_run": (
        "won't run: needs {needed}, has {has} (the cards' budget {cards} and {host} of host memory)"
    ),
    "offload_shared_memory": "{gpu} computes from its own memory: there is no host memory to offload to",
    "offload_experts_dense": "{model} has no routed experts: whole layers go to host memory instead",
    "params_disagree": (
        "the shape given has {counted}B parameters, not the {given}B of params: "
        "every shape given is kept, so the estimate is for the shape"
    ),
    "no_price": "no price is known for {gpu}; give price_per_gpu_hour for costs",
    # Training against serving cost over time (model.analyses.economics).
    "costs_no_price": "no price is known for {gpu}, so self-hosted costs are not shown: type one",
    "costs_training_refused": "no training bill: {precision} is a weight format for serving, not trained in full",
    "costs_training_one_card": (
        "training does not fit on 1 card: it needs {needed} GB per card, the card has {capacity} GB"
    ),
    "costs_training": (
        "training does not fit on {cards} cards: it needs {needed} GB per card, the card has {capacity} GB"
    ),
    "costs_serving_one_card": "serving does not fit: a replica of 1 card cannot hold the weights and one sequence",
    "costs_serving": "serving does not fit: a replica of {cards} cards cannot hold the weights and one sequence",
}
"""Each warning an estimate can give: its code and English template (the CLI prints it; the
interface translates the template and fills in the same values)."""


@dataclass(frozen=True)
class Message:
    """A text the engine gives in English as a code of its table and the values, already formatted, that fill it.

    The CLI prints :attr:`text`; an interface in another language translates :attr:`template` and
    fills it with :attr:`fields`. Each kind of message names its own table (a subclass's ``TABLE``).
    """

    TABLE: ClassVar[Mapping[str, str]] = {}
    code: str
    values: Mapping[str, str] | tuple[tuple[str, str], ...] = ()

    @property
    def template(self) -> str:
        """The English text with its fields."""
        return self.TABLE[self.code]

    @property
    def fields(self) -> dict[str, str]:
        """The values by field name."""
        return dict(self.values)

    @property
    def text(self) -> str:
        """The English text, filled in."""
        return self.template.format(**self.fields)


class Note(Message):
    """One warning of an estimate: a code of :data:`NOTES`."""

    TABLE = NOTES


class Estimate(NamedTuple):
    """The result of :func:`estimate`: immutable, with ``to_dict`` for JSON."""

    resolved: Resolved
    training: TrainingEstimate
    inference: InferenceEstimate
    ranges: Mapping[str, Range]
    notes: tuple[Note, ...] = ()
    """The warnings as codes plus values, for an interface that speaks another language."""

    @property
    def warnings(self) -> tuple[str, ...]:
        """The notes as English sentences (the CLI and the JSON contract).

        Filled in when asked: the pages speak through the codes, so most estimates never need them.
        """
        return tuple(note.text for note in self.notes)

    @property
    def inputs(self) -> dict[str, Any]:
        """The scenario with every default filled in (built on demand: estimates stay cheap)."""
        r, scenario = self.resolved, self.resolved.scenario
        arch = r.arch
        inputs = {name: getattr(scenario, name) for name in SCENARIO_FIELDS}
        inputs.update(
            model_name=r.model_name,
            params=arch.stats.total_params,
            active_params=arch.stats.active_params,
            architecture={
                "layers": arch.layers,
                "hidden": arch.hidden,
                "heads": arch.heads,
                "kv_heads": arch.kv_heads,
                "head_dim": arch.effective_head_dim,
                "ffn": arch.ffn,
                "vocab": arch.vocab,
                "experts": arch.experts,
                "active_experts": arch.active_experts,
                "mlp": arch.mlp,
                "attention": arch.attention,
                "tied_embeddings": arch.tied_embeddings,
                "max_context": arch.max_context,
            },
            gpu_name=r.gpu.name,
            gpus_per_node=r.gpus_per_node,
            interconnect=r.scale_up.id,
            network=r.network.id,
            kv_precision=r.kv_precision,
            tokens=r.tokens,
            seq_len=r.seq_len,
            global_batch=self.training.global_batch,
            recompute=self.training.recompute,
            batch=self.inference.batch,
            price_per_gpu_hour=r.price_per_gpu_hour,
        )
        return inputs

    def uncertain_range(self, name: str) -> Range | None:
        """Return figure ``name``'s low-high range when the efficiencies leave it uncertain.

        None when the figure has no range (memory is counted, not rated) or when the range is
        narrower than :data:`UNCERTAIN_SPREAD` of the figure.
        """
        bounds = self.ranges.get(name)
        if bounds is None:
            return None
        part = self.training if hasattr(self.training, name) else self.inference
        expected = getattr(part, name, None)
        if not isinstance(expected, (int, float)) or bounds.spread(expected) < UNCERTAIN_SPREAD:
            return None
        return bounds

    def to_dict(self) -> dict[str, Any]:
        """Return plain nested dicts and numbers (bytes, seconds, FLOPs, dollars, kWh).

        A part that does not fit keeps its memory and layout (what was tried and how far off it
        is) but gives no time, rate or price: null, not a figure for a setup that cannot run.
        """
        training = _plain(self.training)
        training["parallelism"] = dict(self.training.parallelism._asdict())
        training["memory_per_gpu"].pop("adapters")  # a detail of the weights, not a part of the contract's
        inference = _plain(self.inference)
        inference["parallelism"] = {"tp": self.inference.tp, "pp": self.inference.pp, "dp": self.inference.dp}
        not_run: set[str] = set()
        if not self.training.fits:
            not_run |= _TRAINING_RUN_FIGURES
            training.update(dict.fromkeys(_TRAINING_RUN_FIGURES))
        if not self.inference.fits:
            not_run |= _SERVING_RUN_FIGURES
            inference.update(dict.fromkeys(_SERVING_RUN_FIGURES))
        capacity = self.resolved.gpu.capacity_bytes
        for candidate in training["layout_candidates"]:
            if candidate["memory_per_gpu"] > capacity:  # a runner-up that does not fit either
                candidate.update(dict.fromkeys(_CANDIDATE_RUN_FIGURES & candidate.keys()))
        for candidate in inference["layout_candidates"]:
            if not candidate["fits"]:
                candidate.update(dict.fromkeys(_CANDIDATE_RUN_FIGURES & candidate.keys()))
        return {
            "inputs": self.inputs,
            "training": training,
            "inference": inference,
            "ranges": {name: {"low": r.low, "high": r.high} for name, r in self.ranges.items() if name not in not_run},
            "warnings": list(self.warnings),
            "notes": [{"code": note.code, "values": note.fields} for note in self.notes],
        }


_TRAINING_RUN_FIGURES = frozenset(
    {"time_s", "gpu_hours", "cost_usd", "energy_kwh", "tokens_per_s_per_gpu", "mfu", "step"}
)
"""What a training run takes once it runs: unknown (null) for one that does not fit."""
_SERVING_RUN_FIGURES = frozenset(
    {
        "ttft_s", "tpot_s", "tpot_roofline_s", "decode_step_s", "decode_tokens_per_s",
        "decode_tokens_per_s_per_user", "prefill_tokens_per_s", "cost_per_million_output_tokens_usd", "decode",
        "queue_wait_s", "job_s", "waves",
    }
)  # fmt: skip
"""What serving gives once it runs: unknown (null) when the batch does not fit."""
_CANDIDATE_RUN_FIGURES = frozenset({"time_s", "tpot_s", "decode_tokens_per_s"})
"""A layout candidate's time and rate, null when it does not fit."""


def _plain(value: Any) -> Any:
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value
