"""Score the engine against published measurements: predicted, measured, error, per kind.

Error is signed and relative: predicted / measured - 1. A kind's score is the median of its
absolute errors; "within 2x" means max(predicted / measured, measured / predicted) <= 2.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from model.analyses.serving import largest_batch_within_latency
from model.catalog import Catalog, default_catalog
from model.efficiency import EXPECTED, Efficiencies
from model.estimate import estimate
from model.memory import FRAGMENTATION, RUNTIME_BYTES
from model.results import Estimate
from model.scenario import Scenario, resolve
from model.units import DAY_S, GB, GIB, TERA
from model.validation.reference import KINDS, Reference, load_references

__all__ = [
    "BandPoint",
    "KindScore",
    "Nearby",
    "Prediction",
    "ValidationReport",
    "ValidationRow",
    "error_band",
    "format_report",
    "nearest",
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
                    "params": row.params,
                    "gpu": row.gpu,
                    "cards": row.cards,
                    "precision": row.precision,
                    "source": row.reference.source_title,
                    "url": row.reference.source_url,
                    "assumptions": row.reference.assumptions,
                }
                for row in self.rows
            ],
            "unmapped": [{"id": r.id, "kind": r.kind, "reason": r.unmapped} for r in self.unmapped],
            "kinds": [score._asdict() for score in self.kinds],
            "overall": self.overall._asdict(),
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


def _hardware_tflops(result: Estimate) -> float:
    """FLOP/s each GPU executes, recomputation included (the engine's own FLOP count)."""
    per_token = result.training.total_flops / result.training.tokens
    return result.training.tokens_per_s_per_gpu * per_token / TERA


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
    "mfu_palm": _mfu_palm,
    "hfu_megatron": _hfu_megatron,
    "hardware_tflops": _hardware_tflops,
    "total_tokens_per_s": lambda e: e.inference.decode_tokens_per_s,
    "user_tokens_per_s": lambda e: e.inference.decode_tokens_per_s_per_user,
    "inference_allocated_gib": lambda e: _inference_allocated(e) / GIB,
    "training_allocated_gib": lambda e: _training_allocated(e) / GIB,
    "training_allocated_gb": lambda e: _training_allocated(e) / GB,
    "training_reserved_gib": lambda e: (e.training.memory_per_gpu.total - RUNTIME_BYTES) / GIB,
}


# Each prediction is proportional to one of the estimate's ranged figures: its low-high range
# scales with that figure's (memory and latency-bound figures have no efficiency range).
_RANGED_BY: dict[str, tuple[str, str]] = {
    "gpu_hours": ("training", "gpu_hours"),
    "days": ("training", "time_s"),
    "tokens_per_s_per_gpu": ("training", "tokens_per_s_per_gpu"),
    "mfu_palm": ("training", "tokens_per_s_per_gpu"),
    "hfu_megatron": ("training", "tokens_per_s_per_gpu"),
    "hardware_tflops": ("training", "tokens_per_s_per_gpu"),
    "total_tokens_per_s": ("inference", "decode_tokens_per_s"),
    "user_tokens_per_s": ("inference", "decode_tokens_per_s_per_user"),
}


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
    scaled = sorted((value * bounds.low / expected, value * bounds.high / expected))
    return Prediction(value, scaled[0], scaled[1])


def _score(kind: str, rows: Iterable[ValidationRow]) -> KindScore:
    chosen = list(rows)
    if not chosen:
        return KindScore(kind, 0, 0.0, 0.0, "")
    worst = max(chosen, key=lambda row: abs(row.error))
    median = statistics.median(abs(r.error) for r in chosen)
    ranged = [row.covered for row in chosen if row.covered is not None]
    return KindScore(kind, len(chosen), median, abs(worst.error), worst.reference.id, len(ranged), sum(ranged))


def validate(catalog: Catalog | None = None, efficiencies: Efficiencies = EXPECTED) -> ValidationReport:
    """Estimate every mappable measurement and score the errors per kind and overall.

    ``efficiencies`` replaces the expected efficiency set (the calibration's trials); the default
    scores the engine as it ships.
    """
    catalog = catalog or default_catalog()
    rows: list[ValidationRow] = []
    unmapped: list[Reference] = []
    for reference in load_references():
        if reference.scenario is None:
            unmapped.append(reference)
            continue
        predicted = predict(reference, catalog, efficiencies)
        r = resolve(reference.scenario, catalog)
        rows.append(
            ValidationRow(
                reference,
                predicted.value,
                low=predicted.low,
                high=predicted.high,
                params=r.arch.stats.total_params,
                gpu=r.gpu.id,
                cards=r.scenario.cards,
                precision=r.precision,
            )
        )
    kinds = tuple(_score(kind, (r for r in rows if r.reference.kind == kind)) for kind in KINDS)
    return ValidationReport(tuple(rows), tuple(unmapped), kinds, _score("overall", rows))


def format_report(report: ValidationReport) -> str:
    """Render the report as a plain-text table and summary."""
    lines = [f"{'measurement':46} {'kind':19} {'measured':>12} {'predicted':>12} {'error':>8}  unit"]
    for row in sorted(report.rows, key=lambda r: (KINDS.index(r.reference.kind), r.reference.id)):
        ref = row.reference
        figures = f"{ref.value:12,.4g} {row.predicted:12,.4g} {row.error:+8.1%}"
        lines.append(f"{ref.id[:46]:46} {ref.kind:19} {figures}  {ref.unit[:28]}")
    lines.append("")
    lines.extend(f"not mapped: {ref.id} ({ref.kind}): {ref.unmapped}" for ref in report.unmapped)
    lines.append("")
    lines.append(f"{'kind':19} {'count':>5} {'median |error|':>15} {'worst |error|':>14} {'in range':>9}  worst")
    for score in (*report.kinds, report.overall):
        errors = f"{score.median_abs_error:15.1%} {score.worst_abs_error:14.1%}"
        inside = f"{score.covered}/{score.ranged}" if score.ranged else "-"
        lines.append(f"{score.kind:19} {score.entries:5} {errors} {inside:>9}  {score.worst_id}")
    worst_ratio = max((row.ratio for row in report.rows), default=1.0)
    lines.append(f"largest factor off: {worst_ratio:.2f}x")
    return "\n".join(lines)


class BandPoint(NamedTuple):
    """A point of the y = x line and of the band around it, in the measurements' own units."""

    measured: float
    low: float
    high: float


def error_band(report: ValidationReport, share: float = 0.25) -> tuple[BandPoint, BandPoint]:
    """Return the ends of the y = x line and of the +-``share`` band across the report's values.

    On log-log axes y = (1 +- share) x are straight lines, so two points (a factor of 2 beyond the
    smallest and largest value, predicted or measured) draw them.
    """
    values = [v for row in report.rows for v in (row.reference.value, row.predicted)] or [1.0]
    first, last = min(values) / 2.0, max(values) * 2.0
    return (
        BandPoint(first, first * (1.0 - share), first * (1.0 + share)),
        BandPoint(last, last * (1.0 - share), last * (1.0 + share)),
    )


class Nearby(NamedTuple):
    """A measurement near a scenario, and how far (0 is the same model, GPU, cards and precision)."""

    row: ValidationRow
    distance: float


def nearest(
    report: ValidationReport, scenario: Scenario, catalog: Catalog | None = None, count: int = 5
) -> list[Nearby]:
    """Return the ``count`` measurements most like ``scenario``, nearest first.

    A derived definition with chosen weights: distance = |log10 of the parameter ratio| (a
    decade of model size counts 1) + 0.5 for a different GPU + 0.25 x |log10 of the card-count
    ratio| + 0.25 for a different precision. It answers "which published figures speak to this
    scenario", not a statistical neighbourhood.

    Raises:
        ScenarioError: the scenario is invalid.
    """
    r = resolve(scenario, catalog or default_catalog())
    params = r.arch.stats.total_params

    def distance(row: ValidationRow) -> float:
        return (
            abs(math.log10(row.params / params))
            + (0.0 if row.gpu == r.gpu.id else 0.5)
            + 0.25 * abs(math.log10(row.cards / r.scenario.cards))
            + (0.0 if row.precision == r.precision else 0.25)
        )

    ranked = sorted((Nearby(row, distance(row)) for row in report.rows), key=lambda near: near.distance)
    return ranked[:count]
