"""Every page in 中文: no exception, and no English left in what a viewer reads first.

Walks each page through AppTest with ``lang=zh`` and reads titles, headers, metric labels, widget
labels, tabs, expanders, table headers and every chart's title, axis and legend titles. A word of
three or more Latin letters is English left behind unless it is a name (a model, GPU or link of
the catalog) or a term engineers write in English in Chinese text too (the glossary's list).
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from streamlit.testing.v1 import AppTest

from model import default_catalog
from tests.app.conftest import PAGES, open_page

ROOT = Path(__file__).resolve().parents[2]
WORD = re.compile(r"[A-Za-z][A-Za-z']{2,}")
VEGA_VALUES = {"left", "right", "center", "top", "bottom", "middle"}
"""Text a chart's data may carry for its own layout (a label's alignment), never shown."""
UNITS = {"GiB", "TiB", "GB/s", "TB/s", "kWh", "USD", "TFLOP", "PFLOP", "GFLOP", "TOPS", "SXM", "SXM5", "NVL", "MHz"}


@cache
def allowed_words() -> frozenset[str]:
    """Words that may stay Latin in the 中文 view: kept terms, units and the catalog's names."""
    glossary = yaml.safe_load((ROOT / "ui" / "i18n" / "glossary.yaml").read_text(encoding="utf-8"))
    catalog = default_catalog()
    names = [
        *glossary["kept_in_english"],
        *UNITS,
        *VEGA_VALUES,
        *(m.name for m in catalog.models.values()),
        *(g.name for g in catalog.gpus.values()),
        *(g.short_name for g in catalog.gpus.values()),
        *(link.name for link in catalog.interconnects.values()),
        *(link.name for link in catalog.networks.values()),
        *(f"{price.provider} {price.model}" for price in catalog.prices),
    ]
    return frozenset(word.lower() for name in names for word in WORD.findall(str(name)))


def english_words(text: str) -> list[str]:
    """Return the Latin words in ``text`` that are neither names nor kept terms."""
    text = re.sub(r"https?://\S+|`[^`]*`", " ", text)  # addresses and code stay as written
    return [word for word in WORD.findall(text) if word.lower() not in allowed_words()]


def chart_texts(spec: Any) -> list[str]:
    """Return a Vega-Lite spec's titles: the chart's, its axes' and its legends'."""
    found: list[str] = []
    if isinstance(spec, dict):
        for key, value in spec.items():
            if key == "title" and isinstance(value, str | list):
                found += [value] if isinstance(value, str) else [str(part) for part in value]
            elif key == "title" and isinstance(value, dict) and isinstance(value.get("text"), str):
                found.append(value["text"])
            else:
                found += chart_texts(value)
    elif isinstance(spec, list):
        for item in spec:
            found += chart_texts(item)
    return found


def visible_texts(at: AppTest) -> list[tuple[str, str]]:
    """Return (where, text) for each title, label and header the page shows."""
    texts: list[tuple[str, str]] = []
    for kind in ("title", "header", "subheader"):
        texts += [(kind, element.value) for element in getattr(at, kind)]
    texts += [("metric", metric.label) for metric in at.metric]
    for kind in ("selectbox", "select_slider", "slider", "number_input", "text_input", "radio", "toggle",
                 "checkbox", "segmented_control", "button", "multiselect", "text_area"):  # fmt: skip
        texts += [(kind, str(widget.label)) for widget in getattr(at, kind) if widget.label]
    texts += [("tab", tab.label) for tab in at.tabs]
    texts += [("expander", expander.label) for expander in at.expander]
    for frame in at.dataframe:
        # A column_config label replaces the column's name on screen; column_order hides the rest.
        config = json.loads(frame.proto.columns or "{}")
        shown = list(frame.proto.column_order) or [str(column) for column in frame.value.columns]
        texts += [("table header", (config.get(column) or {}).get("label") or column) for column in shown]
    for chart in at.get("vega_lite_chart"):
        texts += [("chart", text) for text in chart_texts(json.loads(chart.proto.spec))]
        texts += [("chart data", text) for text in chart_words(chart.proto)]
        texts += [("chart data", text) for text in inline_words(json.loads(chart.proto.spec))]
    return texts


def inline_words(spec: Any) -> list[str]:
    """Return the text cells of data written into a spec (layers carry their own rows)."""
    words: set[str] = set()
    if isinstance(spec, dict):
        for key, value in spec.items():
            if key == "values" and isinstance(value, list):
                words |= {str(v) for row in value if isinstance(row, dict) for v in row.values() if isinstance(v, str)}
            else:
                words |= set(inline_words(value))
    elif isinstance(spec, list):
        for item in spec:
            words |= set(inline_words(item))
    return sorted(words)


def chart_words(proto: Any) -> list[str]:
    """Return the text cells of a chart's data: legend entries, axis categories, tooltip words."""
    import pyarrow as pa

    words: list[str] = []
    for named in proto.datasets:
        table = pa.ipc.open_stream(named.data.data).read_all()
        for column in table.columns:
            if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
                words += sorted({str(value) for value in column.to_pylist() if value})
    return words


QUOTED_DATA = {"validation"}
"""Pages whose chart data quote published measurements (ids, source titles, quotes, units): data."""


@pytest.mark.parametrize("page", sorted(PAGES))
def test_the_chinese_view_of_each_page_has_no_english_left(page):
    at = open_page(page, lang="zh")
    shown = [(where, text) for where, text in visible_texts(at) if not (page in QUOTED_DATA and where == "chart data")]
    left = [(where, text, english_words(text)) for where, text in shown]
    left = [item for item in left if item[2]]
    assert not left, "\n".join(f"{where}: {text!r} -> {words}" for where, text, words in left)


def test_switching_language_keeps_the_scenario_and_the_page():
    at = open_page("vram", model="llama-3.1-70b", cards="64")
    at.segmented_control(key="lang").set_value("zh").run()
    assert not at.exception
    assert at.query_params["lang"] == ["zh"] or at.query_params["lang"] == "zh"
    assert at.selectbox(key="model").value == "llama-3.1-70b"
    assert at.select_slider(key="cards").value == 64
    assert any("显存" in title.value for title in at.title), [title.value for title in at.title]
