"""Tables as downloads: rows of dicts to CSV text through pandas, and the button that offers them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import pandas as pd
import streamlit as st

from ui.i18n import current_language, use_language

__all__ = ["csv_button", "csv_text"]


def csv_text(rows: Sequence[Mapping[str, Any]]) -> str:
    """Return rows as CSV text: a column per key seen (in first-seen order), blank cells for None.

    Object columns keep each value as written (a count stays 8, not 8.0, beside a missing one).
    """
    if not rows:
        return ""
    return pd.DataFrame(list(rows), dtype=object).to_csv(index=False, lineterminator="\n")


def csv_button(
    label: str,
    rows: Callable[[], Sequence[Mapping[str, Any]]],
    file_name: str,
    key: str,
    width: Literal["content", "stretch"] = "content",
) -> None:
    """Offer a table as a CSV download; the rows are built only when the button is pressed.

    Streamlit builds them after the run, outside the visit's language: it is bound here.
    """
    language = current_language()

    def text() -> str:
        with use_language(language):
            return csv_text(rows())

    st.download_button(
        label,
        data=text,
        file_name=file_name,
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
        key=key,
        width=width,
    )
