"""The GPU comparison as table rows: units for people (GB, TFLOPS, days), a CSV, a takeaway.

Pure functions except :func:`gpu_table_columns`, which returns Streamlit column settings.
Missing figures stay ``None`` (a blank cell), never zero: a GPU without a price has no cost.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import streamlit as st

from model import Scenario
from model.analyses.compare import GpuComparison
from model.catalog import short_name as catalog_short_name
from model.units import DAY_S, GB, TERA, format_count
from ui.format import dollars, per_second, percent
from ui.i18n import tr, translatable

__all__ = [
    "FILTERS",
    "cards_text",
    "compare_caption",
    "compare_takeaway",
    "filter_comparisons",
    "gpu_table_columns",
    "gpu_table_rows",
]


def short_name(name: str) -> str:
    """The catalog's name without its detail, in the visit's language where it is a description, not a product."""
    return tr(catalog_short_name(name))


CURRENT_MARK = "▶ "
"""Put before the sidebar's GPU in the table."""
FILTERS: tuple[str, ...] = (
    translatable("All GPUs"),
    translatable("Serving fits"),
    translatable("Training fits"),
    translatable("With a price"),
)
"""The table's filters, named in English (the widget shows ``tr(name)``)."""


def _scaled(value: float | None, unit: float) -> float | None:
    return None if value is None else value / unit


def _gpu_cell(row: GpuComparison, current_gpu: str) -> str:
    name = short_name(row.name)
    return (CURRENT_MARK if row.gpu_id == current_gpu else "") + (
        tr("{gpu} (yours)", gpu=name) if row.user_supplied else name
    )


def gpu_table_rows(comparisons: Iterable[GpuComparison], current_gpu: str) -> list[dict[str, Any]]:
    """Return one table row per GPU in display units; the current GPU comes first, marked.

    Results come first, then the datasheet. Units: tokens/s, $ per million output tokens,
    days, $, GB, GB/s, TFLOPS and $ per GPU-hour.
    """
    ordered = sorted(comparisons, key=lambda row: row.gpu_id != current_gpu)  # stable: catalog order otherwise
    return [
        {
            "gpu": _gpu_cell(row, current_gpu),
            "serving_fits": row.serving_fits,
            "cards_needed": row.cards_needed,
            "tokens_per_s": row.serving_tokens_per_s,
            "usd_per_million": row.cost_per_million_output_tokens_usd,
            "training_fits": row.training_fits,
            "training_days": _scaled(row.training_time_s, DAY_S),
            "training_usd": row.training_cost_usd,
            "memory_gb": row.memory_bytes / GB,
            "bandwidth_gb_s": row.memory_bandwidth_bytes_per_s / GB,
            "bf16_tflops": _scaled(row.dense_bf16_flops_per_s, TERA),
            "usd_per_gpu_hour": row.price_per_gpu_hour,
            "vendor": row.vendor,
            "id": row.gpu_id,
        }
        for row in ordered
    ]


def filter_comparisons(comparisons: Sequence[GpuComparison], which: str) -> list[GpuComparison]:
    """Keep the GPUs a filter in :data:`FILTERS` names (an unknown filter keeps all)."""
    keep = {
        "Serving fits": lambda row: row.serving_fits,
        "Training fits": lambda row: row.training_fits,
        "With a price": lambda row: row.price_per_gpu_hour is not None,
    }.get(which)
    return [row for row in comparisons if keep is None or keep(row)]


def gpu_table_columns(cards: int) -> dict[str, Any]:
    """Return the table's column settings: labels with units, number formats and help."""
    column = st.column_config
    on = cards_text(cards)
    return {
        "gpu": column.TextColumn("GPU", pinned=True, help=tr("▶ marks the sidebar's GPU; (yours) one you added.")),
        "serving_fits": column.CheckboxColumn(
            tr("Serves"), help=tr("The weights and one sequence fit on {cards}.", cards=on)
        ),
        "cards_needed": column.NumberColumn(
            tr("Cards needed"),
            format="%d",
            help=tr("Fewest cards that serve one sequence; blank: no sensible group does."),
        ),
        "tokens_per_s": column.NumberColumn(
            tr("Tokens/s"), format="%,.0f", help=tr("Output tokens per second at full load on {cards}.", cards=on)
        ),
        "usd_per_million": column.NumberColumn(
            tr("$/M tokens"), format="$%.3f", help=tr("Dollars per million output tokens; blank: no price or no fit.")
        ),
        "training_fits": column.CheckboxColumn(tr("Trains"), help=tr("Training fits on {cards}.", cards=on)),
        "training_days": column.NumberColumn(
            tr("Training (days)"), format="%,.1f", help=tr("Wall-clock time on {cards}.", cards=on)
        ),
        "training_usd": column.NumberColumn(tr("Training ($)"), format="$%,.0f", help=tr("Blank: no price or no fit.")),
        "memory_gb": column.NumberColumn(tr("Memory (GB)"), format="%.0f", help=tr("Per card, decimal GB.")),
        "bandwidth_gb_s": column.NumberColumn(
            tr("Bandwidth (GB/s)"), format="%,.0f", help=tr("Memory bandwidth per card.")
        ),
        "bf16_tflops": column.NumberColumn(
            tr("bf16 (TFLOPS)"), format="%,.0f", help=tr("Dense datasheet peak, no sparsity; blank: no bf16 path.")
        ),
        "usd_per_gpu_hour": column.NumberColumn(
            tr("$/GPU-hour"), format="$%.2f", help=tr("On-demand cloud price used.")
        ),
    }


def cards_text(cards: int) -> str:
    """Say a card count: '1 card', '64 cards'."""
    return tr("1 card") if cards == 1 else tr("{n} cards", n=f"{cards:,}")


def compare_takeaway(comparisons: Sequence[GpuComparison], current_gpu: str, cards: int) -> str:
    """Say in one sentence how many GPUs serve the model, the cheapest per token and the fastest."""
    serving = [row for row in comparisons if row.serving_fits]
    current = next((row for row in comparisons if row.gpu_id == current_gpu), None)
    on = cards_text(cards)
    if not serving:
        parts = [tr("No GPU in the catalog serves this model on {cards}", cards=on)]
        if current is not None:
            parts.append(_current_clause(current))
        return tr("{parts}: see **Cards needed** for how many each takes.", parts=tr("; ").join(parts))
    priced = [row for row in serving if row.cost_per_million_output_tokens_usd is not None]
    fastest = max(serving, key=lambda row: row.serving_tokens_per_s or 0.0)
    parts = [
        tr(
            "{serving} of {total} GPUs serve this model on {cards}",
            serving=f"{len(serving):,}",
            total=f"{len(comparisons):,}",
            cards=on,
        )
    ]
    if priced:
        cheapest = min(priced, key=lambda row: row.cost_per_million_output_tokens_usd or 0.0)
        parts.append(
            tr(
                "the cheapest per million output tokens is **{gpu}** at {price}",
                gpu=short_name(cheapest.name),
                price=dollars(cheapest.cost_per_million_output_tokens_usd),
            )
        )
    parts.append(
        tr(
            "the fastest is **{gpu}** at {speed}",
            gpu=short_name(fastest.name),
            speed=per_second(fastest.serving_tokens_per_s),
        )
    )
    if current is not None and current is not fastest:
        parts.append(_current_clause(current))
    return tr("{sentence}.", sentence=tr("; ").join(parts))


def _current_clause(current: GpuComparison) -> str:
    name = short_name(current.name)
    if current.serving_fits:
        price = current.cost_per_million_output_tokens_usd
        speed = per_second(current.serving_tokens_per_s)
        if price is None:
            return tr("yours, {gpu}, gives {speed}", gpu=name, speed=speed)
        return tr("yours, {gpu}, gives {speed} at {price}", gpu=name, speed=speed, price=dollars(price))
    if current.cards_needed is None:
        return tr("yours, {gpu}, cannot serve it on any sensible number of cards", gpu=name)
    return tr("yours, {gpu}, needs {cards}", gpu=name, cards=cards_text(current.cards_needed))


def compare_caption(scenario: Scenario, training_tokens: float) -> str:
    """Say what workload the table assumes and that each GPU runs on its own terms."""
    return tr(
        "Serving: {prompt}-token prompts and {output} output tokens at full load "
        "(the largest batch that fits), {utilization} utilisation for the price per token. "
        "Training: {tokens} tokens. ▶ marks the sidebar's GPU with the sidebar's links; every "
        "other GPU uses its own links, node size, cloud price and parallel layout. Click a column header to sort.",
        prompt=f"{scenario.prompt_len:,}",
        output=f"{scenario.output_len:,}",
        utilization=percent(scenario.utilization),
        tokens=format_count(training_tokens),
    )
