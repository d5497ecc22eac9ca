"""The chart theme every page's builders share (colours, data helpers) and the renderer that shows them.

Chart builders live with their page (app_pages/<page>/charts.py; the memory chart, which two pages
show, in ui/memory_chart.py): pure functions, plain data in, ``alt.LayerChart`` out. Builders take
their data as keyword arguments (lists of row dicts, or ``alt.NamedData`` placeholders) and put it
on each layer, never at the top level. :func:`show_chart` builds each chart's spec once per set of
static options and language, then only swaps the rows in on every rerun: building an Altair chart
costs ~10 ms, swapping rows ~0.1 ms, which keeps a slider move instant.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import altair as alt

# Altair's to_dict looks numpy and pandas up in sys.modules without importing them. On a fresh
# server one session's page can be importing them (Streamlit loads pandas lazily) while another
# builds a chart and finds a half-initialised numpy ("has no attribute 'ndarray'"). Importing both
# here, whole, before any chart is built closes that race (tests/ui/test_chart_imports.py).
import numpy  # noqa: F401
import pandas  # noqa: F401
import streamlit as st

from model.caches import once
from ui.i18n import DEFAULT_LANGUAGE, current_language, tr, translatable, use_language
from ui.layout_rows import STEP_PARTS

__all__ = [
    "COMPONENT_COLORS",
    "PART_COLORS",
    "TEXT_PX",
    "Rows",
    "component_color_scale",
    "data_of",
    "part_color_scale",
    "presenting",
    "show_chart",
]

Rows = Sequence[Mapping[str, Any]]
ChartData = Rows | alt.NamedData

COMPONENT_COLORS: dict[str, str] = {
    translatable("weights"): "#4C78A8",
    translatable("adapters"): "#B279A2",
    translatable("gradients"): "#F58518",
    translatable("optimizer"): "#E45756",
    translatable("activations"): "#72B7B2",
    "KV cache": "#54A24B",
    translatable("other"): "#BAB0AC",
}
"""One colour per memory component, the same on every page (chart rows carry ``tr(name)``)."""


def component_color_scale() -> alt.Scale:
    """Return the fixed colour scale of memory components, named in the visit's language."""
    return alt.Scale(domain=[tr(name) for name in COMPONENT_COLORS], range=list(COMPONENT_COLORS.values()))


PART_COLORS = alt.Scale(  # one colour per part of a training step, on every chart of one
    domain=[label for _, label in STEP_PARTS],
    range=["#4C78A8", "#F58518", "#B279A2", "#72B7B2", "#9D755D", "#BAB0AC", "#E45756", "#EECA3B"],
)
"""The step parts' colours, the parts named in English (the keys: see :func:`part_color_scale`)."""


def part_color_scale() -> alt.Scale:
    """Return the step parts' colour scale, the parts named in the visit's language as the rows name them."""
    return alt.Scale(domain=[tr(part) for part in PART_COLORS.domain], range=PART_COLORS.range)


def data_of(rows: ChartData) -> alt.Data | alt.NamedData:
    """Wrap rows as inline chart data (a NamedData placeholder passes through)."""
    if isinstance(rows, alt.NamedData):
        return rows
    return alt.Data(values=[dict(row) for row in rows])


TEXT_PX: dict[bool, int] = {False: 14, True: 16}
"""The smallest chart text (axis labels and titles, legends, value labels), by presentation mode:
14 px reads on a laptop, 16 px from the back of a meeting room at 1280 x 720 (issue 31)."""
_FONT_KEYS = ("fontSize", "labelFontSize", "titleFontSize")


def _legible(node: Any, least: int) -> Any:
    """Return the spec with every font size raised to at least ``least`` px (larger ones kept)."""
    if isinstance(node, dict):
        return {
            key: max(value, least) if key in _FONT_KEYS and isinstance(value, int | float) else _legible(value, least)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_legible(item, least) for item in node]
    return node


def _text_config(least: int) -> dict[str, Any]:
    """Vega-Lite defaults for text the builders leave unsized: axes, legends, titles and text marks."""
    axis = {"labelFontSize": least, "titleFontSize": least, "titleLimit": 0, "labelLimit": 0}
    return {
        "axis": axis,
        "legend": {"labelFontSize": least, "titleFontSize": least, "labelLimit": 0, "titleLimit": 0},
        "header": {"labelFontSize": least, "titleFontSize": least},
        "title": {"fontSize": least + 2},
        "text": {"fontSize": least},
    }


def presenting() -> bool:
    """Return whether the visit is in presentation mode (the sidebar's toggle, ``present=1`` in the link)."""
    return bool(st.session_state.get("present", False))


@once(maxsize=256)  # sessions opening the same link at once build each chart once
def _template(
    builder: Callable[..., alt.TopLevelMixin],
    names: tuple[str, ...],
    static: tuple[tuple[str, Any], ...],
    language: str = DEFAULT_LANGUAGE,
    least_px: int = TEXT_PX[False],
) -> dict[str, Any]:
    placeholders = {name: alt.NamedData(name=name) for name in names}
    with use_language(language):  # the builder's titles in the visit's language, one template per language
        spec: dict[str, Any] = builder(**placeholders, **dict(static)).to_dict(validate=False)
    spec.pop("datasets", None)
    # One text-size rule for every chart: no text under the mode's least size, whatever a builder set.
    spec = _legible(spec, least_px)
    config = spec.setdefault("config", {})
    for group, values in _text_config(least_px).items():
        config[group] = {**values, **_legible(config.get(group, {}), least_px)}
    if "data" in spec:
        # Altair hoists data the layers share; push it back down so it stays JSON.
        if "layer" not in spec:
            raise ValueError(f"{builder.__name__} must return a layered chart")
        shared = spec.pop("data")
        spec["layer"] = [layer if "data" in layer else {**layer, "data": shared} for layer in spec["layer"]]
    return spec


def _fill(node: Any, rows: Mapping[str, Rows]) -> Any:
    if isinstance(node, dict):
        data = node.get("data")
        if isinstance(data, dict) and data.get("name") in rows:
            node = {**node, "data": {"values": list(rows[data["name"]])}}
        return {key: _fill(value, rows) if key != "data" else value for key, value in node.items()}
    if isinstance(node, list):
        return [_fill(item, rows) for item in node]
    return node


def show_chart(builder: Callable[..., alt.TopLevelMixin], *, height: int | None = None, **arguments: Any) -> None:
    """Render ``builder``'s chart: data arguments are row lists or tuples (a view model's), the rest static options.

    Data nested in layers stays JSON in the spec; Streamlit only converts top-level data.
    """
    data = {name: value for name, value in arguments.items() if isinstance(value, list | tuple)}
    static = tuple(sorted((name, value) for name, value in arguments.items() if name not in data))
    least = TEXT_PX[presenting()]
    spec = _fill(_template(builder, tuple(sorted(data)), static, current_language(), least), data)
    if height is not None:
        spec["height"] = height
    st.vega_lite_chart(None, spec, width="stretch")
