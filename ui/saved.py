"""Saved scenarios: keep up to four scenarios for the visit and show them side by side.

A saved scenario is its :class:`model.Scenario` as a plain dict plus a label, kept in the
session state (so it survives page switches); figures are recomputed when shown, never stored.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from model import Catalog, Scenario, ScenarioError
from model.analyses.compare import ScenarioFigures, scenario_figures
from ui.format import bytes_gb, dollars, duration, milliseconds, per_second
from ui.i18n import tr
from ui.tables import csv_button
from ui.text import escape_markdown

__all__ = [
    "MAX_SAVED",
    "SAVED_KEY",
    "comparison_rows",
    "figure_cells",
    "remove_saved",
    "render_save_form",
    "render_saved",
    "restore_saved",
    "save_scenario",
    "saved_json",
    "saved_records",
    "saved_scenarios",
    "scenario_label",
]

SAVED_KEY = "saved_scenarios"
"""Session key of the list of saved scenarios: ``{"id", "label", "scenario"}`` dicts."""
MAX_SAVED = 4
"""Saving a fifth scenario drops the oldest."""
_MESSAGE_KEY = "_saved_message"
_LABEL_KEY = "save_label"
_COUNTER_KEY = "_saved_counter"


def saved_scenarios() -> list[dict[str, Any]]:
    """Return this visit's saved scenarios, oldest first."""
    return list(st.session_state.get(SAVED_KEY, []))


def scenario_label(figures: ScenarioFigures) -> str:
    """Name a scenario by what it runs: 'Llama 3.1 8B · 8 × NVIDIA H100 SXM5 80GB · bf16'."""
    return f"{figures.model_name} · {figures.cards:,} × {figures.gpu_name} · {figures.precision}"


def save_scenario(scenario: Scenario, label: str) -> str:
    """Keep ``scenario`` under ``label`` for the visit and say what happened.

    The same scenario is not saved twice; a fifth one pushes out the oldest.
    """
    entries = saved_scenarios()
    snapshot = scenario.to_dict()
    for entry in entries:
        if entry["scenario"] == snapshot:
            return tr("This scenario is already saved as “{label}”.", label=entry["label"])
    message = tr("Saved “{label}”.", label=label)
    if len(entries) >= MAX_SAVED:
        dropped = entries.pop(0)
        message = tr(
            "Saved “{label}”. At most {most} are kept: dropped the oldest, “{dropped}”.",
            label=label,
            most=MAX_SAVED,
            dropped=dropped["label"],
        )
    number = st.session_state.get(_COUNTER_KEY, 0) + 1
    st.session_state[_COUNTER_KEY] = number
    entries.append({"id": number, "label": label, "scenario": snapshot})
    st.session_state[SAVED_KEY] = entries
    return message


def restore_saved(entries: list[dict[str, Any]]) -> None:
    """Replace the visit's saved scenarios with ``entries`` (from a shared link, each already checked)."""
    st.session_state[SAVED_KEY] = entries[:MAX_SAVED]
    st.session_state[_COUNTER_KEY] = max((entry["id"] for entry in entries), default=0)


def remove_saved(entry_id: int) -> None:
    """Forget the saved scenario with this id."""
    st.session_state[SAVED_KEY] = [entry for entry in saved_scenarios() if entry["id"] != entry_id]


def _figures(entry: dict[str, Any], catalog: Catalog) -> ScenarioFigures | str:
    """Return the entry's figures, or why it cannot be estimated any more (the engine's words)."""
    try:
        return scenario_figures(Scenario(**entry["scenario"]), catalog)
    except (ScenarioError, TypeError) as error:
        return str(error)


def _fits(fits: bool) -> str:
    return tr("fits") if fits else tr("does not fit")


def _change(value: float | None, base: float | None) -> str:
    """Return the change from the first saved scenario as ' (+25%)', or '' when it has no meaning."""
    if value is None or base is None or base == 0 or value == base:
        return ""
    return f" ({value / base - 1:+.0%})"


def figure_cells(figures: ScenarioFigures, base: ScenarioFigures | None = None) -> list[tuple[str, str]]:
    """Return (figure, formatted value) pairs; with ``base``, each number says its change from it."""

    def versus(name: str) -> str:
        return _change(getattr(figures, name), getattr(base, name)) if base is not None else ""

    def memory(nbytes: float | None, fits: bool) -> str:
        return tr("{memory}, {fits}", memory=bytes_gb(nbytes), fits=_fits(fits))

    return [
        (tr("Model"), figures.model_name),
        (tr("GPU × cards"), f"{figures.cards:,} × {figures.gpu_name}"),
        (tr("Precision"), figures.precision),
        (tr("Training time"), duration(figures.training_time_s) + versus("training_time_s")),
        (tr("Training cost"), dollars(figures.training_cost_usd) + versus("training_cost_usd")),
        (
            tr("Memory per card, training"),
            memory(figures.training_memory_per_gpu_bytes, figures.training_fits),
        ),
        (
            tr("Memory per card, serving (full load)"),
            memory(figures.serving_memory_per_gpu_bytes, figures.serving_fits),
        ),
        (tr("Time per token, one user"), milliseconds(figures.tpot_s) + versus("tpot_s")),
        (tr("Tokens/s at full load"), per_second(figures.serving_tokens_per_s) + versus("serving_tokens_per_s")),
        (
            tr("$ per million output tokens"),
            dollars(figures.cost_per_million_output_tokens_usd) + versus("cost_per_million_output_tokens_usd"),
        ),
    ]


def comparison_rows(labelled: list[tuple[str, ScenarioFigures | str]]) -> list[dict[str, str]]:
    """Return the side-by-side table: one row per figure, one column per scenario (numbered labels).

    The first scenario is the base: every other column says how far each number is from it.
    A scenario that cannot be estimated shows its reason in the first row.
    """
    base = next((figures for _, figures in labelled if not isinstance(figures, str)), None)
    columns: dict[str, dict[str, str]] = {}
    for number, (label, figures) in enumerate(labelled, start=1):
        name = f"{number} · {label}"
        if isinstance(figures, str):
            columns[name] = {tr("Model"): figures}
        else:
            columns[name] = dict(figure_cells(figures, None if figures is base else base))
    names = list(dict.fromkeys(figure for cells in columns.values() for figure in cells))
    figure = tr("Figure")
    return [{figure: row, **{name: cells.get(row, "") for name, cells in columns.items()}} for row in names]


def _shown(figures: ScenarioFigures | str) -> ScenarioFigures | str:
    """Return the figures, or the sentence the side-by-side table shows when there are none."""
    if isinstance(figures, str):
        return tr("This scenario cannot be estimated: {error}", error=figures)
    return figures


def _record(entry: dict[str, Any], figures: ScenarioFigures | str) -> dict[str, Any]:
    record: dict[str, Any] = {"label": entry["label"]}
    if isinstance(figures, str):
        record["error"] = f"This scenario cannot be estimated: {figures}"  # downloads stay English, like the CLI
    else:
        record.update(figures._asdict())
    return record


def saved_json(entries: list[dict[str, Any]], catalog: Catalog) -> str:
    """Return the saved scenarios and their figures as JSON (SI units: bytes, seconds, dollars)."""
    items = [{**_record(entry, _figures(entry, catalog)), "scenario": entry["scenario"]} for entry in entries]
    return json.dumps(items, indent=2)


def saved_records(entries: list[dict[str, Any]], catalog: Catalog) -> list[dict[str, Any]]:
    """Return one flat record per saved scenario: its label, its settings and its figures (SI units)."""
    return [_record(entry, _figures(entry, catalog)) for entry in entries]


def _save_from_form(scenario: Scenario, default_label: str) -> None:
    label = str(st.session_state.get(_LABEL_KEY) or "").strip()[:80] or default_label
    st.session_state[_MESSAGE_KEY] = save_scenario(scenario, label)


def render_save_form(scenario: Scenario, catalog: Catalog) -> None:
    """Draw a label field and the "Save this scenario" button (typing does not rerun the app)."""
    figures = _figures({"scenario": scenario.to_dict()}, catalog)
    default_label = scenario_label(figures) if not isinstance(figures, str) else tr("Scenario")
    with st.form("save_scenario_form", border=False, clear_on_submit=True):
        left, right = st.columns([3, 1], vertical_alignment="bottom")
        left.text_input(tr("Label (optional)"), key=_LABEL_KEY, placeholder=default_label, max_chars=80)
        right.form_submit_button(
            tr("Save this scenario"),
            icon=":material/bookmark_add:",
            on_click=_save_from_form,
            args=(scenario, default_label),
            width="stretch",
        )
    message = st.session_state.pop(_MESSAGE_KEY, None)
    if message:
        st.info(escape_markdown(message), icon=":material/bookmark:")


def render_saved(catalog: Catalog) -> None:
    """Show the saved scenarios side by side, each with a remove button, and the downloads."""
    entries = saved_scenarios()
    if not entries:
        st.caption(tr("Nothing saved yet: save two to {most} scenarios to see them side by side.", most=MAX_SAVED))
        return
    if len(entries) == 1:
        st.caption(tr("Save another scenario (change the sidebar, then save) to compare them side by side."))
    else:
        st.caption(tr("Changes in brackets are from scenario 1."))
    labelled = [(entry["label"], _shown(_figures(entry, catalog))) for entry in entries]
    st.table(comparison_rows(labelled), hide_index=True)
    for number, (column, entry) in enumerate(zip(st.columns(MAX_SAVED), entries, strict=False), start=1):
        column.button(
            tr("Remove {number}", number=number),
            key=f"remove_saved_{entry['id']}",
            help=tr("Forget “{label}”.", label=entry["label"]),
            on_click=remove_saved,
            args=(entry["id"],),
            icon=":material/delete:",
            width="stretch",
        )
    left, right, _ = st.columns([1, 1, 2])
    with left:
        csv_button(
            tr("Comparison (CSV)"),
            lambda: saved_records(entries, catalog),
            "saved_scenarios.csv",
            "saved_csv",
            "stretch",
        )
    right.download_button(
        tr("Comparison (JSON)"),
        data=lambda: saved_json(entries, catalog),
        file_name="saved_scenarios.json",
        mime="application/json",
        on_click="ignore",
        icon=":material/download:",
        width="stretch",
    )
