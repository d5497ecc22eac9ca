"""Declared widget defaults that match the session, so a late-mounting widget shows the right value.

Why: a browser can send a rerun before every widget of the last run has mounted (a slow laptop
or phone, a click on the page list right after a shared link opens). The widgets it has not
mounted are missing from that rerun, the server assumes the browser already shows their value,
and the browser then mounts them at their *declared* default (the first option, no precision)
and sends that back on the next rerun: the scenario silently becomes 1 card of the first model.
Declaring each keyed widget's default as its current session value makes such a mount show, and
send back, what the user chose. Streamlit logs a harmless duplicate-default warning for this on
a visit's first run; ``global.disableWidgetStateDuplicationWarning`` silences it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

__all__ = ["held_index", "held_value"]


def held_value(key: str, options: Sequence[Any] | None = None, fallback: Any = None) -> Any:
    """Return the session's value for ``key`` to declare as the widget's default.

    Args:
        key: the widget's key.
        options: the widget's options, if it has any: a value no longer among them gives
            ``fallback`` (or the first option), as Streamlit would reset it anyway.
        fallback: the default when the session holds nothing yet (a page-only widget's first run).
    """
    value = st.session_state.get(key, fallback)
    if options is not None and value not in options:
        return fallback if fallback is not None else (options[0] if options else None)
    return value


def held_index(key: str, options: Sequence[Any]) -> int:
    """Return the position of the session's value for ``key`` in ``options`` (0 when absent)."""
    value = st.session_state.get(key)
    return list(options).index(value) if value in options else 0
