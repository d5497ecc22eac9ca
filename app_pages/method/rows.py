"""Shape the Method page's content: formulas by group, assumptions and seed claims as table rows.

Pure functions: engine records in, plain strings and lists of dicts out, in the visit's language
(:func:`ui.i18n.tr`; the engine's templates are listed in :mod:`ui.i18n.engine_texts`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from model import SERVING_MEMORY_FRACTION, UNCERTAIN_SPREAD, serving_capacity
from model.catalog import DRIVER_RESERVED_BYTES, Gpu
from model.explain import FORMULA_GROUPS, FORMULAS, Assumption, Formula
from model.seeds import APPROXIMATE_TOLERANCE, PARTLY_FACTOR, SPEC_TOLERANCE, VERDICTS, ClaimCheck
from model.validation import ValidationReport
from ui.i18n import DEFAULT_LANGUAGE, current_language, tr, translatable

__all__ = [
    "VERDICT_LABELS",
    "accuracy_text",
    "assumption_rows",
    "claim_rows",
    "claims_by_topic",
    "claims_takeaway",
    "formula_heading",
    "formula_source",
    "formulas_by_group",
    "group_markdown",
    "range_method_text",
    "shared_rules",
    "verdict_rule",
]

VERDICT_LABELS: dict[str, str] = {
    "consistent": translatable("🟢 consistent"),
    "partly": translatable("🟡 partly"),
    "contradicts": translatable("🔴 contradicts"),
}
"""The verdict as the table shows it: the colour is the emoji, the same on every row."""


def _plain_markdown(text: str) -> str:
    """Escape what Markdown would read as maths or emphasis in prose ($ signs, asterisks)."""
    return text.replace("$", r"\$").replace("*", r"\*")


def formulas_by_group() -> list[tuple[str, list[Formula]]]:
    """Return the formulas grouped as :data:`model.explain.formulas.FORMULA_GROUPS` orders them."""
    return [(group, [f for f in FORMULAS if f.group == group]) for group in FORMULA_GROUPS]


def formula_heading(formula: Formula) -> str:
    """Return the Markdown line above a formula: its name and what it is used for."""
    used_for = _plain_markdown(tr(formula.used_for_template, **formula.fields))
    return tr("**{name}**: {used_for}.", name=tr(formula.name), used_for=used_for)


def formula_source(formula: Formula) -> str:
    """Return the caption below a formula: its source and the code that computes it."""
    return tr("Source: {source}. Code: `{code}`", source=_plain_markdown(formula.source), code=formula.code)


def group_markdown(formulas: Iterable[Formula]) -> str:
    """Return one Markdown block for a group of formulas: heading, display equation, source.

    One element per group instead of three per formula keeps the page's reruns light.
    """
    parts = [f"{formula_heading(f)}\n\n$$\n{f.latex}\n$$\n\n*{formula_source(f)}*" for f in formulas]
    return "\n\n---\n\n".join(parts)


def assumption_rows(items: Iterable[Assumption], kind: str = "scenario") -> list[dict[str, Any]]:
    """Return one table row per assumption of ``kind`` ("scenario", "efficiency" or "range")."""
    return [
        {
            tr("Assumption"): tr(item.name),
            tr("Value"): tr(item.value_template, **item.fields) if item.value_template else item.value,
            tr("Why, or where from"): tr(item.note_template, **item.fields) if item.note_template else item.note,
        }
        for item in items
        if item.kind == kind
    ]


def claim_rows(checks: Iterable[ClaimCheck]) -> list[dict[str, Any]]:
    """Return one table row per seed claim: verdict first, then the claim, the engine and why.

    In 中文 the claim is the seed's own sentence, and the last column names only where it is.
    """
    english = current_language() == DEFAULT_LANGUAGE
    return [
        {
            tr("Verdict"): tr(VERDICT_LABELS[check.verdict]),
            tr("Claim"): check.claim.gloss if english else check.claim.original,
            tr("Seed says"): tr(check.claim.claimed),
            tr("Engine"): check.engine,
            tr("Assumptions that reconcile or contradict"): check.assumptions,
            tr("原文 (original)"): f"{check.claim.original} ({check.claim.seed})" if english else check.claim.seed,
        }
        for check in checks
    ]


def claims_by_topic(checks: Iterable[ClaimCheck]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Return the claim rows grouped by topic, topics in the order the claims first name them."""
    grouped: dict[str, list[ClaimCheck]] = {}
    for check in checks:
        grouped.setdefault(check.claim.topic, []).append(check)
    return [(tr(topic), claim_rows(items)) for topic, items in grouped.items()]


def claims_takeaway(checks: Iterable[ClaimCheck]) -> str:
    """Say in one sentence how the seeds fare against the engine."""
    listed = list(checks)
    counts = Counter(check.verdict for check in listed)
    words = {
        "consistent": tr("{n} consistent", n=f"{counts['consistent']}"),
        "partly": tr("{n} partly right", n=f"{counts['partly']}"),
        "contradicts": tr("{n} contradicted", n=f"{counts['contradicts']}"),
    }
    parts = tr(", ").join(words[v] for v in VERDICTS if counts[v])
    return tr(
        "Of the seeds' {count} concrete claims, the engine finds {parts}. Where they differ, the "
        "assumptions column says which setup reconciles them.",
        count=f"{len(listed)}",
        parts=parts,
    )


def shared_rules(gpu: Gpu, desk_reserve_bytes: float) -> str:
    """Say the rules every page, the planner and the command line share, with this GPU's figures.

    Each rule has one home in the engine (named in the text's code spans); this is their one statement.
    ``desk_reserve_bytes`` is what llama.cpp's profile keeps free per card (data/stacks.yaml).
    """
    capacity = gpu.capacity_bytes
    budget = serving_capacity(capacity)
    return tr(
        "**One scenario, one answer.** Every page, the planner and the command line ask the engine the same "
        "questions, each answered by one rule:\n\n"
        "1. **Serving fits** when a card of the replica holds the weights, the runtime, one prefill chunk's "
        "activations and the KV cache of its batch within **{fraction} of the card**: {budget} GB of the "
        "{capacity} GB a {gpu} has. That is what vLLM (`gpu_memory_utilization`) and TensorRT-LLM budget by "
        "default; the other {reserve} GB is the server's reserve (CUDA graphs, the allocator's fragmentation). "
        "llama.cpp and Ollama allocate only what they need and keep {desk} GB free (its `--fit-target`): the budget "
        "is the scenario's software's. "
        "The largest batch is the most sequences within that budget; a batch above it gets no speed and no "
        "price.\n"
        "2. **Training fits** when the busiest card of the chosen layout holds weights, gradients, optimizer "
        "states and activations within the card's usable {capacity} GB (what the driver reports, less the "
        "{driver} GB it keeps).\n"
        "3. **Layouts.** A replica is tp × pp cards and dp replicas share the cards. What you fix is kept and the "
        "search fills the rest within the cards: tp × pp × dp is at most the cards, a fixed dp divides them, a "
        "fixed ep divides tp × dp. Fixed values that break these are refused with what would work; cards a "
        "layout cannot use are said to sit idle.\n"
        "4. **Fixes.** Each change offered to make a scenario fit (more cards, a smaller format, LoRA or QLoRA, "
        "a shorter context or sequence) is estimated first and shown with the memory per card it gives; none "
        "that does not fit is offered.\n"
        "5. **Traffic.** N output tokens per second need ⌈N ÷ (one replica's full-load rate × utilisation)⌉ "
        "replicas; the planner asks at utilisation 1 (the load its cards must carry), the cost over time at "
        "yours.\n"
        "6. **More cards never train slower:** when more replicas would only widen the bubble or the traffic, "
        "the search leaves cards idle and says so.\n"
        "7. **A format that does not train is refused:** every weight trained in int8 or int4 gets no time or "
        "price (LoRA and QLoRA on such a base do train).\n"
        "8. **Nothing that cannot run gets a number:** no time, speed or price for a setup that does not fit.",
        fraction=f"{SERVING_MEMORY_FRACTION:.0%}",
        budget=f"{budget / 1e9:,.1f}",
        capacity=f"{capacity / 1e9:,.1f}",
        reserve=f"{(capacity - budget) / 1e9:,.1f}",
        driver=f"{DRIVER_RESERVED_BYTES / 1e9:g}",
        desk=f"{desk_reserve_bytes / 1e9:,.1f}",
        gpu=gpu.short_name,
    )


def verdict_rule() -> str:
    """Say how a verdict is reached, from the engine's own tolerances."""
    return tr(
        "Verdict rule: a claim matches within {spec} (datasheet figures) or {approximate} (figures the seed gives "
        "as 'about'), or overlaps the engine's low–high range; within {factor}× of that it is partly right; "
        "beyond, contradicted.",
        spec=f"{SPEC_TOLERANCE:.0%}",
        approximate=f"{APPROXIMATE_TOLERANCE:.0%}",
        factor=f"{PARTLY_FACTOR:g}",
    )


def range_method_text(report: ValidationReport) -> str:
    """How the low–high ranges are made, and how often they held on the published runs."""
    memory = next(score for score in report.kinds if score.kind == "memory")
    return tr(
        "**How the low–high ranges are made.** The estimate is run three times: with the expected efficiencies "
        "and with every efficiency moved together to an optimistic and a pessimistic set (below). A time's low "
        "end comes from the optimistic set, a rate's from the pessimistic one. The sets' multipliers are set "
        "from the calibration: on the published runs the range holds the measured value in "
        "**{covered} of {ranged}** cases (Validation page). A headline shows its range when it is at least "
        "{spread} of the figure. Memory has none: it is counted, not rated, and no efficiency moves it; its "
        "published checks differ by a median {memory} (allocator and framework buffers the count leaves out).",
        covered=f"{report.overall.covered}",
        ranged=f"{report.overall.ranged}",
        spread=f"{UNCERTAIN_SPREAD:.0%}",
        memory=f"{memory.median_abs_error:.0%}",
    )


_KIND_WORDS = {
    "training_total": translatable("training total"),
    "training_throughput": translatable("training throughput"),
    "inference": translatable("inference"),
    "moe_serving": translatable("MoE serving"),
    "local": translatable("local runners"),
    "memory": translatable("memory"),
}


def _kind_words(kind: str) -> str:
    """Name a kind of measurement in running text ("training total")."""
    return tr(_KIND_WORDS[kind]) if kind in _KIND_WORDS else kind.replace("_", " ")


def accuracy_text(report: ValidationReport) -> str:
    """One paragraph: the engine's measured accuracy, pointing to the Validation page."""
    kinds = tr(", ").join(f"{_kind_words(score.kind)} {score.median_abs_error:.0%}" for score in report.kinds)
    worst = max(report.rows, key=lambda row: row.ratio)
    return tr(
        "**Measured accuracy**: against {entries} published training and serving runs the median error is "
        "{error} ({kinds}); the furthest off is {worst}, {ratio}× away. The Validation page shows every run, "
        "its source and the runs nearest this scenario.",
        entries=f"{report.overall.entries}",
        error=f"{report.overall.median_abs_error:.0%}",
        kinds=kinds,
        worst=worst.reference.id,
        ratio=f"{worst.ratio:.2f}",
    )
