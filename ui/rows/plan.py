"""The Plan page's shaping: option rows for the table and the chart, and the sentences around them."""

from __future__ import annotations

from typing import Any

from model import Catalog, Estimate, Plan, PlanOption
from model.units import format_usd
from ui.format import duration

__all__ = ["load_label", "option_label", "option_rows", "plan_takeaway", "point_rows", "scenario_point"]


def option_label(option: PlanOption, catalog: Catalog) -> str:
    """Name an option: 'NVIDIA H100 SXM5 80GB × 512, bf16'."""
    return f"{catalog.gpus[option.gpu].short_name} × {option.cards:,}, {option.precision}"


def load_label(option: PlanOption, index: int) -> str:
    """A short button label that fits a fifth of the page: '#1 gaudi3 × 512'."""
    return f"#{index + 1} {option.gpu} × {option.cards:,}"


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
            "option": option_label(option, catalog),
            "layout": _layout(option),
            "$/GPU-hour": round(option.price_per_gpu_hour, 2),
        }
        if plan.goal == "train":
            row |= {"cost": format_usd(option.cost_usd), "time": duration(option.time_s)}
        else:
            row |= {
                "$ per hour": format_usd(option.cost_per_hour_usd),
                "tokens/s": round(option.decode_tokens_per_s or 0),
                "TPOT (ms)": round((option.tpot_s or 0) * 1e3, 1),
                "TTFT (ms)": round((option.ttft_s or 0) * 1e3),
            }
        row |= {"headroom": f"{option.headroom:,.2f}×"}
        rows.append(row)
    return rows


def point_rows(plan: Plan, front: tuple[PlanOption, ...], catalog: Catalog) -> list[dict[str, Any]]:
    """Return one chart point per option: x speed (days, or ms per token), y cost, on the front or not."""
    on_front = {id(option) for option in front}
    return [
        {
            "label": option_label(option, catalog),
            "x": (option.time_s or 0) / 86_400 if plan.goal == "train" else (option.tpot_s or 0) * 1e3,
            "usd": option.cost_usd if plan.goal == "train" else option.cost_per_hour_usd,
            "kind": "Pareto front" if id(option) in on_front else "option",
        }
        for option in plan.options
    ]


def scenario_point(result: Estimate, goal: str) -> list[dict[str, Any]]:
    """Return the sidebar's scenario as one chart point (none when it does not fit or has no price)."""
    r = result.resolved
    if goal == "train":
        t = result.training
        if not t.fits or t.cost_usd is None:
            return []
        return [{"label": "your scenario", "x": t.time_s / 86_400, "usd": t.cost_usd, "kind": "your scenario"}]
    i = result.inference
    if not i.fits or r.price_per_gpu_hour is None:
        return []
    return [
        {
            "label": "your scenario",
            "x": i.tpot_s * 1e3,
            "usd": r.scenario.cards * r.price_per_gpu_hour,
            "kind": "your scenario",
        }
    ]


def plan_takeaway(plan: Plan, catalog: Catalog) -> str:
    """Say the answer in one sentence: the cheapest option and what it costs, or that nothing meets the targets."""
    if not plan.options:
        return "**No GPU in the catalog meets these targets** within the card limit: see why below."
    best = plan.options[0]
    if plan.goal == "train":
        money = f"{format_usd(best.cost_usd)} in {duration(best.time_s)}"
    else:
        money = f"{format_usd(best.cost_per_hour_usd)} an hour for {best.decode_tokens_per_s:,.0f} tokens/s"
    return (
        f"Cheapest: **{option_label(best, catalog)}** ({_layout(best)}), {money}; "
        f"{len(plan.options)} GPUs can do it, {len(plan.excluded)} cannot."
    )
