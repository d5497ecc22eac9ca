"""The Plan page's shaping: option rows for the table and the chart, and the sentences around them."""

from __future__ import annotations

from typing import Any

from model import Catalog, Estimate, Plan, PlanOption
from model.units import format_usd
from ui.format import compact_gpu_name, duration
from ui.i18n import tr

__all__ = [
    "excluded_lines",
    "load_label",
    "option_label",
    "option_rows",
    "plan_takeaway",
    "point_rows",
    "scenario_point",
    "serving_targets",
]


def serving_targets(tokens_per_s: float, tpot_ms: float, ttft_ms: float) -> tuple[float, float, float | None]:
    """Turn the page's serving targets into the planner's: (tokens/s, seconds per token, seconds to first token).

    The page asks for milliseconds; a time to first token of 0 means none.
    """
    return tokens_per_s, tpot_ms / 1e3, ttft_ms / 1e3 if ttft_ms else None


def option_label(option: PlanOption, catalog: Catalog) -> str:
    """Name an option: 'NVIDIA H100 SXM5 80GB × 512, bf16'."""
    return f"{catalog.gpus[option.gpu].short_name} × {option.cards:,}, {option.precision}"


def load_label(option: PlanOption, index: int, catalog: Catalog) -> str:
    """A short button label that fits a fifth of the page: '#1 512 × Gaudi 3', the card's name, not its id."""
    return f"#{index + 1} {option.cards:,} × {compact_gpu_name(catalog.gpus[option.gpu])}"


def _layout(option: PlanOption) -> str:
    layout = option.layout
    text = f"tp {layout['tp']} × pp {layout['pp']} × dp {layout['dp']}"
    if layout["ep"] > 1:
        text += f" × ep {layout['ep']}"
    return text + (f", ZeRO {layout['zero']}" if option.batch is None else f", batch {option.batch}")


def option_rows(plan: Plan, catalog: Catalog, limit: int = 12) -> list[dict[str, Any]]:
    """Return the cheapest options as table rows, in the units the page shows."""
    rows = []
    for option in plan.options[:limit]:
        row: dict[str, Any] = {
            tr("option"): option_label(option, catalog),
            tr("layout"): _layout(option),
            tr("$/GPU-hour"): round(option.price_per_gpu_hour, 2),
        }
        if plan.goal == "train":
            row |= {tr("cost"): format_usd(option.cost_usd), tr("time"): duration(option.time_s)}
        else:
            row |= {
                tr("$ per hour"): format_usd(option.cost_per_hour_usd),
                tr("$ per M tokens"): format_usd(option.cost_per_million_output_tokens_usd),
                tr("replicas"): option.layout["dp"],
                "tokens/s": round(option.decode_tokens_per_s or 0),
                "TPOT (ms)": round((option.tpot_s or 0) * 1e3, 1),
                "TTFT (ms)": round((option.ttft_s or 0) * 1e3),
            }
        row |= {tr("headroom"): f"{option.headroom:,.2f}×"}
        rows.append(row)
    return rows


def point_rows(plan: Plan, front: tuple[PlanOption, ...], catalog: Catalog) -> list[dict[str, Any]]:
    """Return a chart point per option and faster variant: x speed (days, or ms per token), y cost, front or not.

    Serving options sit just under the latency target (each fills its replicas' batch up to it); their
    variants at smaller batches show what a quicker answer for each user costs.
    """
    on_front = {id(option) for option in front}
    return [
        {
            "label": option_label(option, catalog)
            if option.batch is None
            else tr("{option}, batch {batch}", option=option_label(option, catalog), batch=f"{option.batch:,}"),
            "x": (option.time_s or 0) / 86_400 if plan.goal == "train" else (option.tpot_s or 0) * 1e3,
            "usd": option.cost_usd if plan.goal == "train" else option.cost_per_hour_usd,
            "kind": tr("Pareto front") if id(option) in on_front else tr("option"),
        }
        for option in (*plan.options, *plan.faster)
    ]


def scenario_point(result: Estimate, goal: str) -> list[dict[str, Any]]:
    """Return the sidebar's scenario as one chart point (none when it does not fit or has no price)."""
    r = result.resolved
    if goal == "train":
        t = result.training
        if not t.fits or t.cost_usd is None:
            return []
        mine = tr("your scenario")
        return [{"label": mine, "x": t.time_s / 86_400, "usd": t.cost_usd, "kind": mine}]
    i = result.inference
    if not i.fits or r.price_per_gpu_hour is None:
        return []
    mine = tr("your scenario")
    return [{"label": mine, "x": i.tpot_s * 1e3, "usd": r.scenario.cards * r.price_per_gpu_hour, "kind": mine}]


def plan_takeaway(plan: Plan, catalog: Catalog) -> str:
    """Say the answer in one sentence: the cheapest option and what it costs, or that nothing meets the targets."""
    if not plan.options:
        return tr("**No GPU in the catalog meets these targets** within the card limit: see why below.")
    best = plan.options[0]
    if plan.goal == "train":
        money = tr("{cost} in {time}", cost=format_usd(best.cost_usd), time=duration(best.time_s))
    else:
        money = tr(
            "{cost} an hour for {speed} tokens/s",
            cost=format_usd(best.cost_per_hour_usd),
            speed=f"{best.decode_tokens_per_s:,.0f}",
        )
    return tr(
        "Cheapest: **{option}** ({layout}), {money}; {able} GPUs can do it, {unable} cannot.",
        option=option_label(best, catalog),
        layout=_layout(best),
        money=money,
        able=f"{len(plan.options):,}",
        unable=f"{len(plan.excluded):,}",
    )


def excluded_lines(plan: Plan, catalog: Catalog) -> str:
    """Return a markdown list of the GPUs that cannot meet the targets, each with why."""
    separator = tr("; ")
    return "\n".join(
        tr(
            "- **{name}**: {text}",
            name=catalog.gpus[gpu].short_name,
            text=separator.join(tr(reason.template, **reason.fields) for reason in reasons),
        )
        for gpu, reasons in plan.reasons.items()
    )
