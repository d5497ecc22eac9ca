"""Tables as downloads: rows of dicts to CSV text, and the button that offers them."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import streamlit as st

__all__ = ["csv_button", "rows_to_csv"]


def rows_to_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    """Return rows as CSV text: a column per key seen (in first-seen order), blank cells for None."""
    if not rows:
        return ""
    names = list(dict.fromkeys(name for row in rows for name in row))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=names, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def csv_button(label: str, rows: Callable[[], Sequence[Mapping[str, Any]]], file_name: str, key: str) -> None:
    """Offer a table as a CSV download; the rows are built only when the button is pressed."""
    st.download_button(
        label,
        data=lambda: rows_to_csv(rows()),
        file_name=file_name,
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
        key=key,
    )
