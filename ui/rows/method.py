"""Shape the Method page's content: formulas by group, assumptions and seed claims as table rows.

Pure functions: engine records in, plain strings and lists of dicts out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from model.explain import FORMULA_GROUPS, FORMULAS, Assumption, Formula
from model.results import UNCERTAIN_SPREAD
from model.seeds import APPROXIMATE_TOLERANCE, PARTLY_FACTOR, SPEC_TOLERANCE, VERDICTS, ClaimCheck
from model.validation import ValidationReport

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
    "verdict_rule",
]

VERDICT_LABELS: dict[str, str] = {
    "consistent": "🟢 consistent",
    "partly": "🟡 partly",
    "contradicts": "🔴 contradicts",
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
    return f"**{formula.name}**: {_plain_markdown(formula.used_for)}."


def formula_source(formula: Formula) -> str:
    """Return the caption below a formula: its source and the code that computes it."""
    return f"Source: {_plain_markdown(formula.source)}. Code: `{formula.code}`"


def group_markdown(formulas: Iterable[Formula]) -> str:
    """Return one Markdown block for a group of formulas: heading, display equation, source.

    One element per group instead of three per formula keeps the page's reruns light.
    """
    parts = [f"{formula_heading(f)}\n\n$$\n{f.latex}\n$$\n\n*{formula_source(f)}*" for f in formulas]
    return "\n\n---\n\n".join(parts)


def assumption_rows(items: Iterable[Assumption], kind: str = "scenario") -> list[dict[str, Any]]:
    """Return one table row per assumption of ``kind`` ("scenario", "efficiency" or "range")."""
    return [
        {"Assumption": item.name, "Value": item.value, "Why, or where from": item.note}
        for item in items
        if item.kind == kind
    ]


def claim_rows(checks: Iterable[ClaimCheck]) -> list[dict[str, Any]]:
    """Return one table row per seed claim: verdict first, then the claim, the engine and why."""
    return [
        {
            "Verdict": VERDICT_LABELS[check.verdict],
            "Claim": check.claim.gloss,
            "Seed says": check.claim.claimed,
            "Engine": check.engine,
            "Assumptions that reconcile or contradict": check.assumptions,
            "原文 (original)": f"{check.claim.original} ({check.claim.seed})",
        }
        for check in checks
    ]


def claims_by_topic(checks: Iterable[ClaimCheck]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Return the claim rows grouped by topic, topics in the order the claims first name them."""
    grouped: dict[str, list[ClaimCheck]] = {}
    for check in checks:
        grouped.setdefault(check.claim.topic, []).append(check)
    return [(topic, claim_rows(items)) for topic, items in grouped.items()]


def claims_takeaway(checks: Iterable[ClaimCheck]) -> str:
    """Say in one sentence how the seeds fare against the engine."""
    listed = list(checks)
    counts = Counter(check.verdict for check in listed)
    words = {"consistent": "consistent", "partly": "partly right", "contradicts": "contradicted"}
    parts = ", ".join(f"{counts[v]} {words[v]}" for v in VERDICTS if counts[v])
    return (
        f"Of the seeds' {len(listed)} concrete claims, the engine finds {parts}. Where they differ, the "
        "assumptions column says which setup reconciles them."
    )


def verdict_rule() -> str:
    """Say how a verdict is reached, from the engine's own tolerances."""
    return (
        f"Verdict rule: a claim matches within {SPEC_TOLERANCE:.0%} (datasheet figures) or "
        f"{APPROXIMATE_TOLERANCE:.0%} (figures the seed gives as 'about'), or overlaps the engine's low–high range; "
        f"within {PARTLY_FACTOR:g}× of that it is partly right; beyond, contradicted."
    )


def range_method_text(report: ValidationReport) -> str:
    """How the low–high ranges are made, and how often they held on the published runs."""
    memory = next(score for score in report.kinds if score.kind == "memory")
    return (
        "**How the low–high ranges are made.** The estimate is run three times: with the expected efficiencies "
        "and with every efficiency moved together to an optimistic and a pessimistic set (below). A time's low "
        "end comes from the optimistic set, a rate's from the pessimistic one. The sets' multipliers are set "
        "from the calibration: on the published runs the range holds the measured value in "
        f"**{report.overall.covered} of {report.overall.ranged}** cases (Validation page). A headline shows its "
        f"range when it is at least {UNCERTAIN_SPREAD:.0%} of the figure. Memory has none: it is counted, not "
        f"rated, and no efficiency moves it; its published checks differ by a median {memory.median_abs_error:.0%} "
        "(allocator and framework buffers the count leaves out)."
    )


def accuracy_text(report: ValidationReport) -> str:
    """One paragraph: the engine's measured accuracy, pointing to the Validation page."""
    kinds = ", ".join(f"{score.kind.replace('_', ' ')} {score.median_abs_error:.0%}" for score in report.kinds)
    worst = max(report.rows, key=lambda row: row.ratio)
    return (
        f"**Measured accuracy**: against {report.overall.entries} published training and serving runs the median "
        f"error is {report.overall.median_abs_error:.0%} ({kinds}); the furthest off is {worst.reference.id}, "
        f"{worst.ratio:.2f}× away. The Validation page shows every run, its source and the runs nearest this "
        "scenario."
    )
