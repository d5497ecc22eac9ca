"""The catalog this visit sees: the built-in one plus the GPUs and models the user added."""

from __future__ import annotations

import streamlit as st

from model import Catalog, CatalogError, HfError, HfModel, default_catalog, fetch_hf_model, parse_user_catalog
from model.catalog import SAFE_LOADER
from ui.i18n import tr

__all__ = ["HF_KEY", "USER_CATALOG_KEY", "add_user_rows", "fetched_model", "session_catalog"]

HF_KEY = "hf"
"""Session key and link parameter of the Hugging Face model id (``?hf=Qwen/Qwen3-14B``)."""

USER_CATALOG_KEY = "user_catalog_yaml"
"""Session key of the YAML text of the rows the user added this visit."""
NAMED = 5
"""The ids an upload's message names; more are counted."""


@st.cache_resource(max_entries=64, show_spinner=False)
def _merged(text: str) -> Catalog:
    return default_catalog().merged(parse_user_catalog(text, "your rows"))


@st.cache_resource(max_entries=64, show_spinner=False)
def _with_fetched(text: str, repo: str) -> Catalog:
    # One catalog object per (rows, id) for every rerun and session: the engine's caches compare
    # catalogs by identity, so they keep their answers.
    return _base(text).merged(fetch_hf_model(repo).catalog)


def _base(text: str) -> Catalog:
    return _merged(text) if text else default_catalog()


def session_catalog() -> Catalog:
    """Return the built-in catalog merged with this visit's own rows and the model fetched by its Hub id (if any).

    A fetch that fails leaves the catalog without it; the sidebar says why (:func:`fetched_model`).
    """
    text = st.session_state.get(USER_CATALOG_KEY) or ""
    fetched = fetched_model()
    return _with_fetched(text, fetched.repo_id) if isinstance(fetched, HfModel) else _base(text)


def fetched_model() -> HfModel | HfError | None:
    """Return the model the sidebar's Hugging Face id names, why it could not be fetched, or None (no id)."""
    repo = str(st.session_state.get(HF_KEY) or "").strip()
    if not repo:
        return None
    try:
        return fetch_hf_model(repo)  # kept per process by the engine, failures for a while too
    except HfError as error:
        return error


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
    merged = yaml.load(current, Loader=SAFE_LOADER) if current else {"gpus": [], "models": []}
    added = yaml.load(text if isinstance(text, str) else text.decode("utf-8"), Loader=SAFE_LOADER)
    for kind in ("gpus", "models"):
        existing = {row["id"]: row for row in merged.get(kind) or []}
        for row in added.get(kind) or []:
            existing[row["id"]] = row
        merged[kind] = list(existing.values())
    document = yaml.safe_dump(merged, sort_keys=False)
    try:
        _merged(document)
    except CatalogError as error:  # with the earlier rows: more than 500 of a kind, or past the size cap
        problem = str(error).removeprefix("your rows")
        return False, tr("{name}, with the rows added before{problem}", name=name, problem=problem)
    st.session_state[USER_CATALOG_KEY] = document
    names = [*extra.gpus, *extra.models]
    if len(names) > NAMED:
        more = tr("{names} and {n} more", names=", ".join(names[:NAMED]), n=f"{len(names) - NAMED:,}")
        return True, tr("added {names} for this visit", names=more)
    return True, tr("added {names} for this visit", names=", ".join(names))
