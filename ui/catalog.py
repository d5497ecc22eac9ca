"""The catalog this visit sees: the built-in one plus the GPUs and models the user added."""

from __future__ import annotations

import streamlit as st

from model import Catalog, CatalogError, default_catalog, parse_user_catalog
from ui.i18n import tr

__all__ = ["USER_CATALOG_KEY", "add_user_rows", "session_catalog"]

USER_CATALOG_KEY = "user_catalog_yaml"
"""Session key of the YAML text of the rows the user added this visit."""


@st.cache_resource(max_entries=64, show_spinner=False)
def _merged(text: str) -> Catalog:
    return default_catalog().merged(parse_user_catalog(text, "your rows"))


def session_catalog() -> Catalog:
    """Return the built-in catalog merged with this visit's own rows (if any)."""
    text = st.session_state.get(USER_CATALOG_KEY)
    return _merged(text) if text else default_catalog()


def add_user_rows(text: str | bytes, name: str) -> tuple[bool, str]:
    """Validate ``text`` (a YAML document of gpus:/models: rows) and keep it for the visit.

    Returns:
        Whether it was accepted, and a message naming what was added or the row and field at fault.
        A rejected document changes nothing.
    """
    try:
        extra = parse_user_catalog(text, name)
    except CatalogError as error:
        return False, str(error)
    import yaml  # the rows are re-serialised so the visit keeps one document

    current = st.session_state.get(USER_CATALOG_KEY)
    merged = yaml.safe_load(current) if current else {"gpus": [], "models": []}
    added = yaml.safe_load(text if isinstance(text, str) else text.decode("utf-8"))
    for kind in ("gpus", "models"):
        existing = {row["id"]: row for row in merged.get(kind) or []}
        for row in added.get(kind) or []:
            existing[row["id"]] = row
        merged[kind] = list(existing.values())
    document = yaml.safe_dump(merged, sort_keys=False)
    try:
        _merged(document)
    except CatalogError as error:  # e.g. a new row clashing with an earlier one
        return False, str(error)
    st.session_state[USER_CATALOG_KEY] = document
    names = [*extra.gpus, *extra.models]
    return True, tr("added {names} for this visit", names=", ".join(names))
