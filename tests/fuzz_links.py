"""A shared link's first run without a browser: the app's own path, checked (issue 14).

:func:`check_link` runs what a visitor's first request runs, in Streamlit's bare mode (no server,
no widgets): :func:`ui.sidebar.init_state` on the link (packed rows and saved scenarios first, then
every control), the scenario :func:`ui.sidebar.current_scenario` builds, the engine's estimate for
it, and the engine calls the pages make with their own controls (Tokens per second, VRAM, Costs,
Plan). It returns the problems found, one line each; none means the link passed:

- nothing raises but a :class:`model.ScenarioError` where the page catches one (it names its field);
- every warning names its control (the label, in the visit's language) and what the control
  allows, or the unknown key it ignored; every refused value gets one;
- every control whose value was valid keeps it;
- the address the app then writes (:func:`ui.sidebar.wanted_query`) opens the same visit, warning-free.

An AppTest run costs 0.3-1 s; this costs a few milliseconds, so 10,000 links take minutes.
"""

from __future__ import annotations

import logging
import math
import random
import traceback
import types
from collections.abc import Mapping
from typing import Any
from unittest import mock

import streamlit as st

from app_pages.costs.rows import chosen_api_price
from app_pages.tokens.decode import speculative_settings
from app_pages.vram.rows import vram_settings
from model import PRECISIONS, ScenarioError, estimate, plan_serving, plan_training
from model.analyses.economics import cost_over_time
from model.analyses.serving import batch_sweep, knee_batch, largest_batch_within_latency
from model.pricing import Owning
from tests.fuzzing import _GOOD_GPU, _GOOD_MODEL, _HOSTILE, _mutated_row, shared_link
from ui.catalog import USER_CATALOG_KEY, session_catalog
from ui.controls import CONTROLS, MAX_VALUE_LENGTH, STREAMLIT_KEYS, TRAINING_FORMATS, NotAllowedError
from ui.i18n import LANGUAGE_KEY, LANGUAGES, language_from_locale, tr, use_language
from ui.linked import LINKED_KEYS, ROWS_KEY, SAVED_LINK_KEY, pack
from ui.saved import SAVED_KEY
from ui.sidebar import current_scenario, init_state, wanted_query

__all__ = ["check_link", "first_run", "linked_link", "quiet", "run_links"]


def quiet() -> None:
    """Silence Streamlit's bare-mode warning on every session_state access (an AppTest run resets it)."""
    for name in [name for name in logging.root.manager.loggerDict if name.startswith("streamlit")]:
        logging.getLogger(name).setLevel(logging.ERROR)


_SCENARIO = {
    "model": "llama-3.1-8b",
    "gpu": "h100-sxm",
    "cards": 8,
    "precision": "bf16",
}
_SAVED_VALUES: list[Any] = [None, -1, 0, 1e308, float("nan"), "x" * 500, "h9000", [], {}, True, 10**30, "<b>"]


def _saved_document(rng: random.Random) -> str:
    """Return the JSON a ``saved=`` value carries: good scenarios, mutated ones, or the wrong shape."""
    import json

    entries: list[Any] = []
    for _ in range(rng.randint(0, 6)):
        scenario: Any = dict(_SCENARIO)
        if rng.random() < 0.6:
            field = rng.choice([*_SCENARIO, "batch", "tokens", "tp", "zero", "prompt_len", "no_such_field"])
            scenario[field] = rng.choice(_SAVED_VALUES)
        label: Any = rng.choice(["mine", "", "🦙" * 200, "<script>x</script>", 5, None])
        entry: Any = {"label": label, "scenario": scenario}
        if rng.random() < 0.1:
            entry = rng.choice([[], "text", 3, {"label": "x"}, {"scenario": scenario}, {"label": "x", "scenario": []}])
        entries.append(entry)
    document: Any = entries if rng.random() < 0.9 else rng.choice([{}, "x", 1, None])
    return json.dumps(document, allow_nan=True)


def _rows_document(rng: random.Random) -> str:
    """Return the YAML a ``rows=`` value carries: good rows (the link then names them), or mutated ones."""
    import yaml

    gpu, model = dict(_GOOD_GPU), dict(_GOOD_MODEL)
    if rng.random() < 0.5:
        return yaml.safe_dump({"gpus": [gpu], "models": [model]}, sort_keys=False)
    document = {"gpus": [_mutated_row(rng, gpu)], "models": [_mutated_row(rng, model)]}
    try:
        return yaml.safe_dump(document, allow_unicode=True, sort_keys=False)
    except (ValueError, OverflowError, yaml.YAMLError):
        return repr(document)


def linked_link(seed: int) -> dict[str, Any]:
    """Return a :func:`tests.fuzzing.shared_link` that also carries packed rows and saved scenarios half the time.

    With good rows the link's model or GPU is often one of them (``fuzz-model``, ``fuzz-gpu``).
    """
    rng = random.Random(seed * 104_729 + 7)
    query = shared_link(seed)
    if rng.random() < 0.3:
        query[ROWS_KEY] = pack(_rows_document(rng))
        if rng.random() < 0.5:
            query["model" if rng.random() < 0.5 else "gpu"] = rng.choice(["fuzz-model", "fuzz-gpu"])
    if rng.random() < 0.2:
        query[SAVED_LINK_KEY] = pack(_saved_document(rng))
    if rng.random() < 0.05:
        query[rng.choice(list(CONTROLS))] = rng.choice(_HOSTILE) + "\n" * rng.randint(1, 3)
    return query


class _Query:
    """``st.query_params`` for a bare run: the link's keys, each with all its values."""

    def __init__(self, query: Mapping[str, Any]) -> None:
        self.query = {key: value if isinstance(value, list) else [value] for key, value in query.items()}

    def __iter__(self) -> Any:
        return iter(self.query)

    def get_all(self, key: str) -> list[str]:
        return list(self.query[key])


def first_run(query: Mapping[str, Any], locale: str) -> str:
    """Run :func:`ui.sidebar.init_state` on a fresh session for ``query``; return the visit's language."""
    quiet()
    st.session_state.clear()
    asked = (_Query(query).query.get(LANGUAGE_KEY) or [""])[-1]
    language = asked if asked in LANGUAGES else language_from_locale(locale)
    context = types.SimpleNamespace(locale=locale)
    patched = mock.patch.object(st, "query_params", _Query(query)), mock.patch.object(st, "context", context)
    with patched[0], patched[1], use_language(language):  # a bare run has no session language: tr() is told
        init_state()
    return language


def _control_problems(query: Mapping[str, Any], warnings: list[str], state: Any) -> list[str]:
    """Check every control of the link: refused values warned about (label, what is allowed), valid ones kept."""
    problems = []
    for key, given in query.items():
        texts = given if isinstance(given, list) else [given]
        if key in STREAMLIT_KEYS or key in LINKED_KEYS or not texts:
            continue
        control = CONTROLS.get(key)
        if control is None:
            if not any(repr(key[:30]) in warning for warning in warnings):
                problems.append(f"no warning names the unknown key {key[:30]!r}")
            continue
        label = tr(control.label)
        mine = [warning for warning in warnings if warning.startswith((label + ":", label + "："))]
        if len(texts) > 1 and not any(str(len(texts)) in warning for warning in mine):
            problems.append(f"{key}: given {len(texts)} times, no warning says so: {mine}")
        text = texts[-1].strip()
        if len(text) > MAX_VALUE_LENGTH:
            if not any(f"{MAX_VALUE_LENGTH}" in warning for warning in mine):
                problems.append(f"{key}: the too-long warning does not say the limit: {mine}")
            continue
        try:
            value = control.parse(text)
        except NotAllowedError as error:
            if not any(str(error) in warning for warning in mine):
                problems.append(f"{key}: no warning names {label!r} with what is allowed ({error}): {mine}")
            continue
        except ValueError as error:
            problems.append(f"{key}={text[:40]!r}: refused without saying what is allowed ({error})")
            continue
        wider = key == "tp" and any(warning.startswith(f"{label}: {value} ") for warning in mine)
        if not _same(state[key], value) and not wider:  # a tp wider than the link's cards is refused, and said
            problems.append(f"{key}={text[:40]!r}: valid, but the visit holds {state[key]!r}, not {value!r}")
    return problems


def _same(mine: Any, theirs: Any) -> bool:
    if isinstance(mine, float) and isinstance(theirs, float):
        return math.isclose(mine, theirs, rel_tol=1e-5)
    return bool(mine == theirs)


def _estimated(scenario: Any, catalog: Any) -> Any:
    """The page's estimate_or_stop: a ScenarioError stops the page with its message (None here)."""
    try:
        return estimate(scenario, catalog)
    except ScenarioError as error:
        if not str(error).startswith(f"{error.field}: "):
            raise AssertionError(f"a ScenarioError that does not start with its field: {error}") from error
        return None


def _page_calls(state: Any, plan: bool) -> None:
    """Make the engine calls the pages make with their own controls, as each page makes them.

    Each page first estimates its scenario and stops on a ScenarioError, showing it; after that
    only the Plan page catches one, so anything else raised is a traceback on the page.
    """
    catalog = session_catalog()
    scenario = current_scenario(batch=state["batch"], **speculative_settings(state))  # app_pages/tokens/page.py
    if _estimated(scenario, catalog) is not None:
        batch_sweep(scenario, catalog, replica_for="scenario")
        batch_sweep(scenario, catalog, [state["batch"]], replica_for="scenario")
        knee_batch(scenario, catalog, replica_for="scenario")
        largest_batch_within_latency(scenario, catalog, state["target"] / 1e3, replica_for="scenario")
    _estimated(current_scenario(**vram_settings(state)), catalog)  # app_pages/vram/page.py
    scenario = current_scenario()  # app_pages/costs/page.py
    result = _estimated(scenario, catalog)
    if result is not None:
        api = chosen_api_price(catalog, state["api"], scenario.model, result.resolved.arch.stats.total_params)
        cost_over_time(scenario, catalog, state["traffic"], state["months"], api)
        if plan:
            try:
                _plan(state, scenario, catalog)
            except ScenarioError as error:  # "These targets cannot be planned: ..."
                if not str(error).startswith(f"{error.field}: "):
                    raise AssertionError(f"a ScenarioError that does not start with its field: {error}") from error


def _plan(state: Any, scenario: Any, catalog: Any) -> None:
    """The Plan page's search, as app_pages/plan/page.py calls it."""
    goal = state["plan_goal"]
    offered = PRECISIONS if goal == "serve" else TRAINING_FORMATS
    formats = tuple(p for p in state["plan_prec"] if p in offered) or (scenario.precision,)
    price = state["price"] if state["pricing"] == "rent" else None
    owning = Owning(state["years"], state["kwh"], state["pue"]) if state["pricing"] == "own" else None
    if goal == "serve":
        ttft = state["plan_ttft"] / 1e3 if state["plan_ttft"] else None
        plan_serving(
            scenario, state["plan_tps"], tpot_s=state["plan_tpot"] / 1e3, ttft_s=ttft,
            precisions=formats, price_per_gpu_hour=price, owning=owning, catalog=catalog,
        )  # fmt: skip
    else:
        plan_training(
            scenario, days=state["plan_days"], budget_usd=state["plan_budget"] or None, precisions=formats,
            price_per_gpu_hour=price, owning=owning, catalog=catalog,
        )  # fmt: skip


def _snapshot(state: Any) -> dict[str, Any]:
    saved = [(entry["label"], entry["scenario"]) for entry in state.get(SAVED_KEY, [])]
    return {**{key: state[key] for key in CONTROLS}, USER_CATALOG_KEY: state.get(USER_CATALOG_KEY), SAVED_KEY: saved}


def check_link(query: Mapping[str, Any], plan: bool = False, locale: str = "en-US") -> list[str]:
    """Return the problems the app's first run shows for ``query`` (none: it passed).

    Every page's engine calls are made with the link's values; the Plan page's search (0.1-1 s) only with ``plan``.
    """
    try:
        language = first_run(query, locale)
    except Exception as error:
        return [f"the first run raised {type(error).__name__}: {error}".strip()[:300], traceback.format_exc(limit=-3)]
    state = st.session_state
    with use_language(language):
        warnings = list(state.get("_url_warnings", []))
        problems = _control_problems(query, warnings, state)
        try:
            _page_calls(state, plan)
        except Exception as error:
            problems += [f"a page raised {type(error).__name__}: {error}"[:300], traceback.format_exc(limit=-3)]
        before = _snapshot(state)
        written = wanted_query()
    try:
        first_run(written, locale)
    except Exception as error:
        return [*problems, f"the app's own address raised {type(error).__name__}: {error}"[:300]]
    after = _snapshot(st.session_state)
    if st.session_state.get("_url_warnings"):
        problems.append(f"the app's own address {written} warns: {st.session_state['_url_warnings']}")
    lost = [key for key in before if not _same(before[key], after[key])]
    if lost:
        problems.append(f"the app's own address loses {', '.join(lost)}: {written}")
    return problems


def run_links(seeds: range, plan_every: int = 8) -> tuple[int, dict[int, list[str]]]:
    """Check the links of ``seeds`` (one in two in a Chinese browser); return the count and the failures.

    The Plan page's search runs for one link in ``plan_every``.
    """
    failures = {}
    for seed in seeds:
        problems = check_link(linked_link(seed), seed % plan_every == 0, "zh-CN" if seed % 2 else "en-US")
        if problems:
            failures[seed] = problems
    return len(seeds), failures
