"""Score the engine against published measurements: predicted, measured, error, per kind.

Error is signed and relative: predicted / measured - 1. A kind's score is the median of its
absolute errors; "within 2x" means max(predicted / measured, measured / predicted) <= 2.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from model.analyses.serving import largest_batch_within_latency
from model.catalog import Catalog, default_catalog
from model.efficiency import EXPECTED, Efficiencies
from model.estimate import estimate
from model.memory import FRAGMENTATION, RUNTIME_BYTES
from model.results import Estimate
from model.scenario import resolve
from model.stacks import TYPICAL
from model.units import DAY_S, GB, GIB, TERA
from model.validation.reference import CLASSES, KINDS, SERVING_KINDS, TRAINING_KINDS, Reference, load_references

__all__ = [
    "KindScore",
    "Prediction",
    "ValidationReport",
    "ValidationRow",
    "validate",
]


class ValidationRow(NamedTuple):
    """One measurement beside the engine's prediction of it."""

    reference: Reference
    predicted: float
    params: float
    """Total parameters of the model the measurement's scenario resolves to."""
    gpu: str
    """The catalog id of its GPU."""
    cards: int
    precision: str
    low: float | None = None
    """The prediction's low end under the optimistic/pessimistic efficiencies (None: no range)."""
    high: float | None = None
    typed: float | None = None
    """The prediction from only what a user would type (:attr:`Reference.typed`); None: not a
    training run with a stated card count."""
    unsaid: float | None = None
    """The prediction with the software left unsaid (stack "typical", or what the inputs imply): what a
    user gets who does not name the stack; None where the measurement names none (it is the prediction)."""

    @property
    def covered(self) -> bool | None:
        """Whether the measured value lies within the predicted range (None: no range)."""
        if self.low is None or self.high is None:
            return None
        return self.low <= self.reference.value <= self.high

    @property
    def error(self) -> float:
        """Signed relative error: predicted / measured - 1 (positive when the engine overshoots)."""
        return self.predicted / self.reference.value - 1.0

    @property
    def typed_error(self) -> float | None:
        """The signed relative error of the prediction as a user would ask for it."""
        return None if self.typed is None else self.typed / self.reference.value - 1.0

    @property
    def unsaid_error(self) -> float:
        """The signed relative error with the software left unsaid (the plain error where none is named)."""
        return (self.predicted if self.unsaid is None else self.unsaid) / self.reference.value - 1.0

    @property
    def ratio(self) -> float:
        """How many times off, whichever way (1 is exact)."""
        measured = self.reference.value
        return max(self.predicted / measured, measured / self.predicted)


class KindScore(NamedTuple):
    """The scores of one kind of measurement (or of all)."""

    kind: str
    entries: int
    median_abs_error: float
    worst_abs_error: float
    worst_id: str
    ranged: int = 0
    """Entries whose prediction has a low-high range."""
    covered: int = 0
    """Of those, the ones whose measured value lies inside it."""


class ValidationReport(NamedTuple):
    """Every mapped measurement with its error, the ones that cannot be mapped, and the scores."""

    rows: tuple[ValidationRow, ...]
    unmapped: tuple[Reference, ...]
    kinds: tuple[KindScore, ...]
    overall: KindScore
    typed_kinds: tuple[KindScore, ...] = ()
    """The training kinds scored on the predictions as a user would ask (layout left to the engine)."""
    classes: tuple[KindScore, ...] = ()
    """The classes of run that cut across the kinds (:data:`~model.validation.reference.CLASSES`)."""
    stacks: tuple[KindScore, ...] = ()
    """The software each measurement names (``stack.name``), then the runs that name none ("not labelled")."""
    unsaid: tuple[KindScore, ...] = ()
    """Every kind, class and all together, each run predicted with its software left unsaid."""

    def to_dict(self) -> dict[str, Any]:
        """Return the report as plain data (for --json)."""
        return {
            "rows": [
                {
                    "id": row.reference.id,
                    "kind": row.reference.kind,
                    "metric": row.reference.metric,
                    "unit": row.reference.unit,
                    "measured": row.reference.value,
                    "predicted": row.predicted,
                    "error": row.error,
                    "ratio": row.ratio,
                    "low": row.low,
                    "high": row.high,
                    "in_range": row.covered,
                    "typed_predicted": row.typed,
                    "typed_error": row.typed_error,
                    "unsaid_predicted": row.unsaid,
                    "unsaid_error": row.unsaid_error,
                    "params": row.params,
                    "gpu": row.gpu,
                    "cards": row.cards,
                    "precision": row.precision,
                    "source": row.reference.source_title,
                    "url": row.reference.source_url,
                    "assumptions": row.reference.assumptions,
                    "source_id": row.reference.source,
                    "stack": row.reference.stack,
                    "stack_version": row.reference.stack_version,
                    "scenario_stack": row.reference.scenario.stack if row.reference.scenario else None,
                    "classes": list(row.reference.classes),
                }
                for row in self.rows
            ],
            "unmapped": [{"id": r.id, "kind": r.kind, "reason": r.unmapped} for r in self.unmapped],
            "kinds": [score._asdict() for score in self.kinds],
            "overall": self.overall._asdict(),
            "typed_kinds": [score._asdict() for score in self.typed_kinds],
            "classes": [score._asdict() for score in self.classes],
            "stacks": [score._asdict() for score in self.stacks],
            "unsaid": [score._asdict() for score in self.unsaid],
        }


def _attention_flops_standard(result: Estimate) -> float:
    """Training attention FLOPs per token as MFU papers count them: 12 x layers x d_attn x seq.

    Chowdhery et al. 2022 (PaLM) appendix B: 6N + 12LHQT per token, the quadratic term counted
    whole (not halved for the causal mask).
    """
    arch = result.resolved.arch
    per_key_forward = arch.stats.attention_flops_per_token_per_key  # 4 x layers x d_attn
    return 3.0 * per_key_forward * result.training.seq_len


def _peak_16bit(result: Estimate) -> float:
    flops = result.resolved.gpu.dense_flops_per_s
    return flops.get("bf16") or flops.get("fp16") or next(iter(flops.values()))


def _mfu_palm(result: Estimate) -> float:
    per_token = 6.0 * result.resolved.arch.stats.matmul_params_active + _attention_flops_standard(result)
    return result.training.tokens_per_s_per_gpu * per_token / _peak_16bit(result)


def _hfu_megatron(result: Estimate) -> float:
    """Narayanan et al. 2021 eq. 3: 96 B s l h^2 (1 + s/6h + V/16lh) FLOPs per step (recompute included)."""
    arch, seq = result.resolved.arch, result.training.seq_len
    layers, h, v = arch.layers, arch.hidden, arch.vocab
    per_token = 96.0 * layers * h * h * (1.0 + seq / (6.0 * h) + v / (16.0 * layers * h))
    return result.training.tokens_per_s_per_gpu * per_token / _peak_16bit(result)


def _mfu_megatron(result: Estimate) -> float:
    """Korthikanti et al. 2022 app. A: 72 B s l h^2 (1 + s/6h + V/12lh), eq. 3 without the recomputed forward."""
    return 0.75 * _hfu_megatron(result)


def _hardware_tflops(result: Estimate) -> float:
    """FLOP/s each GPU executes, recomputation included (the engine's own FLOP count)."""
    per_token = result.training.total_flops / result.training.tokens
    return result.training.tokens_per_s_per_gpu * per_token / TERA


def _seconds_per_step(result: Estimate) -> float:
    """One optimizer step's wall time: the global batch's tokens over every card's training throughput."""
    training = result.training
    step_tokens = training.global_batch * training.seq_len
    return step_tokens / (training.tokens_per_s_per_gpu * result.resolved.scenario.cards)


def _training_allocated(result: Estimate) -> float:
    memory = result.training.memory_per_gpu
    states = memory.weights + memory.gradients + memory.optimizer + memory.activations
    return memory.total - RUNTIME_BYTES - FRAGMENTATION * states


def _inference_allocated(result: Estimate) -> float:
    memory = result.inference.memory_per_gpu
    return memory.weights + memory.kv_cache + memory.activations


_PREDICTORS: dict[str, Callable[[Estimate], float]] = {
    "gpu_hours": lambda e: e.training.gpu_hours,
    "days": lambda e: e.training.time_s / DAY_S,
    "tokens_per_s_per_gpu": lambda e: e.training.tokens_per_s_per_gpu,
    "seconds_per_step": _seconds_per_step,
    "mfu_palm": _mfu_palm,
    "hfu_megatron": _hfu_megatron,
    "mfu_megatron": _mfu_megatron,
    "hardware_tflops": _hardware_tflops,
    "megatron_tflops": lambda e: _hfu_megatron(e) * _peak_16bit(e) / TERA,
    "total_tokens_per_s": lambda e: e.inference.decode_tokens_per_s,
    "user_tokens_per_s": lambda e: e.inference.decode_tokens_per_s_per_user,
    "prefill_tokens_per_s": lambda e: e.inference.prefill_tokens_per_s,
    "inference_allocated_gib": lambda e: _inference_allocated(e) / GIB,
    "training_allocated_gib": lambda e: _training_allocated(e) / GIB,
    "training_allocated_gb": lambda e: _training_allocated(e) / GB,
    "training_reserved_gib": lambda e: (e.training.memory_per_gpu.total - RUNTIME_BYTES) / GIB,
}


# Each prediction is proportional (or, in _INVERSE, inversely proportional) to one of the estimate's
# ranged figures: its low-high range scales with that figure's (memory and latency-bound figures
# have no efficiency range).
_RANGED_BY: dict[str, tuple[str, str]] = {
    "gpu_hours": ("training", "gpu_hours"),
    "days": ("training", "time_s"),
    "tokens_per_s_per_gpu": ("training", "tokens_per_s_per_gpu"),
    "seconds_per_step": ("training", "tokens_per_s_per_gpu"),
    "mfu_palm": ("training", "tokens_per_s_per_gpu"),
    "hfu_megatron": ("training", "tokens_per_s_per_gpu"),
    "mfu_megatron": ("training", "tokens_per_s_per_gpu"),
    "hardware_tflops": ("training", "tokens_per_s_per_gpu"),
    "megatron_tflops": ("training", "tokens_per_s_per_gpu"),
    "total_tokens_per_s": ("inference", "decode_tokens_per_s"),
    "user_tokens_per_s": ("inference", "decode_tokens_per_s_per_user"),
    "prefill_tokens_per_s": ("inference", "prefill_tokens_per_s"),
}
_INVERSE = frozenset({"seconds_per_step"})


class Prediction(NamedTuple):
    """The engine's figure for a measurement, with its low-high range where it has one."""

    value: float
    low: float | None
    high: float | None


def predict(reference: Reference, catalog: Catalog, efficiencies: Efficiencies = EXPECTED) -> Prediction:
    """Return the engine's value for what ``reference`` measured, in its unit, with its range."""
    assert reference.scenario is not None
    if reference.predict == "latency_bound_tokens_per_s":
        assert reference.tpot_limit_s is not None
        fit = largest_batch_within_latency(
            reference.scenario, catalog, reference.tpot_limit_s, efficiencies=efficiencies
        )
        return Prediction(fit.tokens_per_s or 0.0, None, None)
    result = estimate(reference.scenario, catalog, efficiencies=efficiencies)
    value = _PREDICTORS[reference.predict](result)
    ranged = _RANGED_BY.get(reference.predict)
    if ranged is None or ranged[1] not in result.ranges:
        return Prediction(value, None, None)
    part, name = ranged
    expected = getattr(getattr(result, part), name)
    bounds = result.ranges[name]
    if reference.predict in _INVERSE:
        scaled = sorted((value * expected / bounds.low, value * expected / bounds.high))
    else:
        scaled = sorted((value * bounds.low / expected, value * bounds.high / expected))
    return Prediction(value, scaled[0], scaled[1])


def _score(kind: str, rows: Iterable[ValidationRow], typed: bool = False, unsaid: bool = False) -> KindScore:
    """Score ``rows``: the median and worst |error|, and how many ranges hold the measured value.

    ``typed``: the predictions as a user types the run; ``unsaid``: with its software left unsaid.
    """
    signed = [(row.typed_error if typed else row.unsaid_error if unsaid else row.error, row) for row in rows]
    errors = [(abs(error), row) for error, row in signed if error is not None]
    if not errors:
        return KindScore(kind, 0, 0.0, 0.0, "")
    worst, worst_row = max(errors, key=lambda pair: pair[0])
    median = statistics.median(error for error, _ in errors)
    ranged = [] if typed or unsaid else [row.covered for _, row in errors if row.covered is not None]
    return KindScore(kind, len(errors), median, worst, worst_row.reference.id, len(ranged), sum(ranged))


def validate(
    catalog: Catalog | None = None, efficiencies: Efficiencies = EXPECTED, *, unsaid: bool = False
) -> ValidationReport:
    """Estimate every mappable measurement and score the errors per kind and overall.

    ``efficiencies`` replaces the expected efficiency set (the calibration's trials); the default
    scores the engine as it ships. ``unsaid=True`` also predicts each run that names its software with
    it left unsaid (``python -m model validate``; the app shows no such figure and skips the work).
    """
    catalog = catalog or default_catalog()
    rows: list[ValidationRow] = []
    unmapped: list[Reference] = []
    for reference in load_references():
        if reference.scenario is None:
            unmapped.append(reference)
            continue
        predicted = predict(reference, catalog, efficiencies)
        typed = None
        if reference.typed is not None:
            typed = predict(dataclasses.replace(reference, scenario=reference.typed), catalog, efficiencies).value
        plain_value = None
        if unsaid and reference.scenario.stack != TYPICAL.id:
            plain = dataclasses.replace(reference.scenario, stack=TYPICAL.id)
            plain_value = predict(dataclasses.replace(reference, scenario=plain), catalog, efficiencies).value
        r = resolve(reference.scenario, catalog)
        rows.append(
            ValidationRow(
                reference,
                predicted.value,
                low=predicted.low,
                high=predicted.high,
                typed=typed,
                unsaid=plain_value,
                params=r.arch.stats.total_params,
                gpu=r.gpu.id,
                cards=r.scenario.cards,
                precision=r.precision,
            )
        )
    kinds = tuple(_score(kind, (r for r in rows if r.reference.kind == kind)) for kind in KINDS)
    typed_kinds = tuple(
        _score(kind, (r for r in rows if r.reference.kind == kind), typed=True)
        for kind in TRAINING_KINDS + SERVING_KINDS
    )
    classes = tuple(_score(name, (r for r in rows if name in r.reference.classes)) for name in CLASSES)
    names = sorted({r.reference.stack for r in rows if r.reference.stack})
    stacks = (
        *(_score(name, (r for r in rows if r.reference.stack == name)) for name in names),
        _score("not labelled", (r for r in rows if not r.reference.stack)),
    )
    overall = _score("overall", rows)
    unsaid_scores = (
        ()
        if not unsaid
        else (
            *(_score(kind, (r for r in rows if r.reference.kind == kind), unsaid=True) for kind in KINDS),
            *(
                _score(f"class {name}", (r for r in rows if name in r.reference.classes), unsaid=True)
                for name in CLASSES
            ),
            _score("overall", rows, unsaid=True),
        )
    )
    return ValidationReport(tuple(rows), tuple(unmapped), kinds, overall, typed_kinds, classes, stacks, unsaid_scores)
