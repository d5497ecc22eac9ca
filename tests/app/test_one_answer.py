"""One scenario, one answer: every page shows the engine's figures for a shared link (issue 29, item 7).

Each link opens on every page in English and 中文. The engine's answer is derived the way the page derives
its scenario (the link's first run in a bare session, then :func:`ui.sidebar.current_scenario` with the page's
own settings), formatted with the page's own format functions in the visit's language, and compared with
what the page shows: the goal's verdict and the fixes it names, the largest batch, and each headline figure.
:func:`test_the_command_line_prints_the_engines_answer` ties ``estimate(scenario).to_dict()`` to
``python -m model estimate ... --json``.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import re
from typing import Any, NamedTuple

import pandas as pd
import pytest
import streamlit as st

from app_pages.costs.rows import chosen_api_price, money, short_duration
from app_pages.tokens.decode import speculative_settings
from app_pages.vram.rows import vram_settings
from model import Scenario, default_catalog, estimate
from model.analyses.compare import compare_gpus
from model.analyses.economics import DAYS_PER_MONTH, cost_over_time
from model.analyses.verdict import Verdict, goal_verdict
from model.cli import main as command_line
from model.commands.flags import finite
from model.layouts.serving import replicas_needed
from model.scenario import with_batch
from model.units import DAY_S, HOUR_S, format_usd
from tests.app.conftest import PAGES, metric_values, open_page
from tests.fuzz_links import first_run
from ui.format import NOT_RUN, bytes_gb, compact_gpu_name, duration, milliseconds, per_second, percent
from ui.i18n import tr, use_language
from ui.layout_rows import replica_text
from ui.sidebar import current_scenario
from ui.verdict import fix_with_memory, verdict_headline

CATALOG = default_catalog()
LANGUAGES = ("en", "zh")
LINKS: dict[str, dict[str, str]] = {
    # Issue 29: three answers (fits on the Overview, batch 0 on Tokens, 7 sequences on VRAM); none now.
    "70b-int4-2x4090-serve": {"goal": "serve", "model": "llama-3.1-70b", "precision": "int4", "gpu": "rtx-4090",
                              "cards": "2"},
    # Issue 29: a typed tp completed with cards that do not exist; the layout stays on the 64 cards.
    "70b-64xh100-tp8-pretrain": {"goal": "pretrain", "model": "llama-3.1-70b", "gpu": "h100-sxm", "cards": "64",
                                 "tp": "8"},
    # Issue 29: 12.1 ms per token in the metrics beside 9.2 ms on one H20 in the chart.
    "r1-fp8-8xh20-serve": {"goal": "serve", "model": "deepseek-r1", "precision": "fp8", "gpu": "h20", "cards": "8"},
    "8b-qlora-1x4090": {"goal": "finetune", "finetune": "qlora", "model": "llama-3.1-8b", "precision": "int4",
                        "gpu": "rtx-4090", "cards": "1"},
    "405b-16384xh100-pretrain": {"goal": "pretrain", "model": "llama-3.1-405b", "gpu": "h100-sxm",
                                 "cards": "16384"},
    # A linked batch beyond the largest that fits: the Tokens page shows the largest, the VRAM page the misfit.
    "8b-1xh100-batch4096-serve": {"goal": "serve", "model": "llama-3.1-8b", "gpu": "h100-sxm", "cards": "1",
                                  "batch": "4096"},
}  # fmt: skip
LAYOUT = re.compile(r"tp (\d+) × pp (\d+) × dp (\d+)")
"""A training layout as the pages name it (ui.layout_rows.training_layout_text)."""
SERVING_REPLICA = re.compile(r"tp (\d+) × pp (\d+)(?! × dp)")
"""A serving replica as the pages name it (model.layouts.serving.replica_name), not a training layout."""


class Link(NamedTuple):
    """A link's scenarios as each page builds them, and the page controls the engine calls take."""

    goal: str
    base: Scenario
    """current_scenario(): the Overview, Costs, Compare, Plan, GPU anatomy, Method and Validation pages."""
    vram: Scenario
    """current_scenario(**vram_settings(state)): the VRAM page."""
    tokens: Scenario
    """The Tokens page's scenario at its batch, clamped to the largest that fits as the page clamps it."""
    state: dict[str, Any]


@functools.cache
def link_of(name: str) -> Link:
    """Load ``name`` into a bare session as a visitor's first run does; build each page's scenario from it."""
    first_run(LINKS[name], "en-US")
    state = st.session_state
    with use_language("en"):
        base = current_scenario()
        vram = current_scenario(**vram_settings(state))
        tokens = current_scenario(batch=state["batch"], **speculative_settings(state))
        largest = estimate(tokens, CATALOG).inference.max_batch
        if 1 <= largest < state["batch"]:  # app_pages/tokens/page.py shows the largest batch that fits
            tokens = current_scenario(batch=largest, **speculative_settings(state))
        kept = {key: state[key] for key in ("goal", "traffic", "months", "api", "batch")}
    return Link(kept["goal"], base, vram, tokens, kept)


def engine(scenario: Scenario) -> dict[str, Any]:
    """The engine's figures for ``scenario``: ``estimate(scenario).to_dict()``, the object ``--json`` prints."""
    return estimate(scenario, CATALOG).to_dict()


def gpu_name(scenario: Scenario) -> str:
    """The scenario's GPU as the pages name it."""
    return CATALOG.gpus[scenario.gpu].short_name


def figure(value: float | None, form: Any) -> str:
    """A figure as a page shows it: formatted, or the dash a page shows for what cannot run."""
    return NOT_RUN if value is None else form(value)


def metric(at: Any, label: str) -> Any:
    """The metric labelled ``label`` (in the visit's language: call inside use_language)."""
    shown = [m for m in at.metric if m.label == tr(label)]
    assert len(shown) == 1, f"{tr(label)!r} among {[m.label for m in at.metric]}"
    return shown[0]


def chart_rows(at: Any) -> list[list[dict[str, Any]]]:
    """Every chart's data rows (over all its layers), chart by chart."""
    charts = []
    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        layers = spec.get("layer", [spec])
        charts.append([row for layer in layers for row in layer.get("data", {}).get("values", [])])
    return charts


def assert_verdict_box(at: Any, verdict: Verdict, scenario: Scenario) -> None:
    """The page leads with the goal's verdict: green when the engine says it runs, red with its fixes when not."""
    headline = verdict_headline(verdict, gpu_name(scenario), scenario.precision)
    boxes = [box.value for box in (at.success if verdict.runs else at.error)]
    assert boxes == [headline], f"the page's {'success' if verdict.runs else 'error'} boxes: {boxes}"
    assert not (at.error if verdict.runs else at.success), "a verdict box of the other colour"
    for fix in verdict.fixes:
        assert fix_with_memory(fix) in boxes[0]
    # Every '**fix** (memory per card)' the box names, in the visit's language: the engine's, and no other.
    form = re.escape(tr("**{fix}** ({memory} per card)"))
    named = re.findall(form.replace(r"\{fix\}", "[^*]+").replace(r"\{memory\}", "[0-9.,]+ GB"), boxes[0])
    assert len(named) == len(verdict.fixes), f"the box names {named}, the engine checked {verdict.fixes}"


def assert_engine_verdict_agrees(verdict: Verdict, scenario: Scenario) -> None:
    """The verdict is the estimate's own answer: serving fits at batch 1, training in the layout chosen."""
    if verdict.goal == "serve":
        assert verdict.runs == engine(with_batch(scenario, 1))["inference"]["fits"]
    elif verdict.refusal is None:
        assert verdict.runs == engine(scenario)["training"]["fits"]


def assert_layout_is_the_engines(texts: list[str], training: dict[str, Any], scenario: Scenario) -> None:
    """The first training layout a page names is the engine's; it keeps a fixed tp and stays within the cards."""
    layouts = [match.groups() for text in texts for match in LAYOUT.finditer(text)]
    chosen = training["parallelism"]
    expected = tuple(str(chosen[dim]) for dim in ("tp", "pp", "dp"))
    assert layouts and layouts[0] == expected, f"the page names {layouts[:3]}, the engine chose {expected}"
    assert chosen["tp"] * chosen["pp"] * chosen["dp"] <= scenario.cards
    assert scenario.tp is None or chosen["tp"] == scenario.tp


def assert_replica_is_the_engines(texts: list[str], inference: dict[str, Any]) -> None:
    """Every serving replica the texts name is the one the engine chose for that scenario (and one is named)."""
    named = {match.groups() for text in texts for match in SERVING_REPLICA.finditer(text)}
    if inference["ep"] > 1:  # attention data parallelism is named in words
        assert not named and any(replica_text(1, 1, inference["ep"]) in text for text in texts)
    else:
        assert named == {(str(inference["tp"]), str(inference["pp"]))}, f"named {named}, the engine chose {inference}"


def page_texts(at: Any) -> list[str]:
    """The page's sentences: its Markdown, captions and the help of its metrics."""
    return [*(block.value for block in at.markdown), *(c.value for c in at.caption), *(m.help or "" for m in at.metric)]


def check_overview(at: Any, link: Link) -> None:
    scenario = link.base
    # The Overview serves one user and a full load (model.analyses.compare.serving_pair), and trains.
    one, full, trained = engine(with_batch(scenario, 1)), engine(with_batch(scenario, "max")), engine(scenario)
    training_goal = "pretrain" if link.goal == "serve" else link.goal
    serving, training = goal_verdict(scenario, "serve", CATALOG), goal_verdict(scenario, training_goal, CATALOG)
    primary, secondary = (serving, training) if link.goal == "serve" else (training, serving)
    assert_verdict_box(at, primary, scenario)
    assert verdict_headline(secondary, gpu_name(scenario), scenario.precision) in [m.value for m in at.markdown]
    for verdict in (serving, training):
        assert_engine_verdict_agrees(verdict, scenario)
    title = at.title[0].value
    assert one["inputs"]["model_name"] in title and f"{scenario.cards:,}" in title and gpu_name(scenario) in title
    single, loaded, steps = one["inference"], full["inference"], trained["training"]
    shown = metric_values(at)
    expected = {
        tr("Per token, 1 user"): figure(single["tpot_s"], milliseconds),
        tr("Tokens/s, 1 user"): figure(single["decode_tokens_per_s_per_user"], lambda v: f"{v:,.0f}"),
        tr("Tokens/s, full load"): figure(loaded["decode_tokens_per_s"], lambda v: f"{v:,.0f}"),
        tr("$ per M output tokens"): figure(loaded["cost_per_million_output_tokens_usd"], format_usd),
        tr("Memory per card"): NOT_RUN if training.refusal else bytes_gb(steps["memory_per_gpu"]["total"]),
        tr("Training time"): figure(steps["time_s"], duration),
        tr("Training cost"): figure(steps["cost_usd"], format_usd),
        tr("Model FLOPs utilisation"): figure(steps["mfu"], percent),
    }
    assert {label: shown.get(label) for label in expected} == expected
    assert (single["tpot_s"] is None) == (not serving.runs) and (steps["time_s"] is None) == (not training.runs)
    if training.runs:
        assert_layout_is_the_engines([metric(at, "Memory per card").help], steps, scenario)
    # The "Why GPUs" chart: one user's token on the engine's replica, at the metric's figure, or no GPU bar.
    cpu = tr("Server CPU")
    why = [rows for rows in chart_rows(at) if any(row.get("label") == cpu for row in rows)]
    assert len(why) == (1 if serving.runs else 0)
    laptop = tr("M3 Pro laptop")  # the seeds' laptop, beside the cards when it holds the model
    bars = {(row["label"], round(row["ms"], 6)) for rows in why for row in rows if row["label"] not in (cpu, laptop)}
    if serving.runs:
        # app_pages.overview.rows: the chart names the card without its vendor's word
        cards = f"{single['tp'] * single['pp'] * single['ep']:,} × {compact_gpu_name(CATALOG.gpus[scenario.gpu])}"
        assert bars == {(cards, round(single["tpot_s"] * 1e3, 6)), (cards, round(single["tpot_roofline_s"] * 1e3, 6))}
        assert_replica_is_the_engines([metric(at, "Per token, 1 user").help], single)
        assert_replica_is_the_engines([metric(at, "Tokens/s, full load").help], loaded)


def check_costs(at: Any, link: Link) -> None:
    scenario = link.base
    result, full = engine(scenario), engine(with_batch(scenario, "max"))
    assert result["inputs"]["model_name"] in at.title[0].value
    params = CATALOG.models[scenario.model].architecture.stats.total_params
    api = chosen_api_price(CATALOG, link.state["api"], scenario.model, params)
    costs = cost_over_time(scenario, CATALOG, link.state["traffic"], link.state["months"], api)
    training = result["training"]
    assert metric(at, "Training").value == money(training["cost_usd"])
    assert metric(at, "Training time").value == figure(training["time_s"], short_duration)
    serving = metric(at, "Serving / month")
    loaded = full["inference"]
    if loaded["fits"]:
        # The traffic takes whole replicas of the engine's full-load replica, each at its rate and utilisation,
        # billed around the clock (cost_over_time: one bill and the cards it pays for).
        replicas = replicas_needed(
            link.state["traffic"] / DAY_S, loaded["decode_tokens_per_s"] / loaded["dp"], scenario.utilization
        )
        cards = replicas * loaded["tp"] * loaded["pp"] * loaded["ep"]
        monthly = cards * result["inputs"]["price_per_gpu_hour"] * DAYS_PER_MONTH * DAY_S / HOUR_S
        assert (costs.replicas, costs.serving_cards) == (replicas, cards)
        assert serving.value == money(costs.serving_usd_per_month) == money(monthly) != NOT_RUN
        assert serving.delta == tr("{n} cards", n=f"{cards:,}")
    else:  # no serving bill for a setup that cannot serve
        assert costs.serving_usd_per_month is None and serving.value == NOT_RUN and not serving.delta


def check_vram(at: Any, link: Link) -> None:
    scenario = link.vram
    result = engine(scenario)
    verdict = goal_verdict(scenario, link.goal, CATALOG)
    assert_verdict_box(at, verdict, scenario)
    assert_engine_verdict_agrees(verdict, scenario)
    title = at.title[0].value
    assert result["inputs"]["model_name"] in title and f"{scenario.cards:,}" in title
    training, inference = result["training"], result["inference"]
    memory = metric(at, "Training memory per card")
    assert (memory.value, memory.delta) == (bytes_gb(training["memory_per_gpu"]["total"]), fits_word(training))
    memory = metric(at, "Inference memory per card")
    assert (memory.value, memory.delta) == (bytes_gb(inference["memory_per_gpu"]["total"]), fits_word(inference))
    largest = inference["max_batch"]
    sequences = tr("{n} seqs", n=f"{largest:,}") if largest > 1 else tr("{n} seq", n=f"{largest:,}")
    assert metric(at, "Largest batch").value == (sequences if largest >= 1 else tr("none fits"))
    chosen = at.dataframe[0].value.iloc[0]  # the training layouts weighed, the chosen first
    assert_layout_is_the_engines([block.value for block in at.markdown], training, scenario)
    assert_layout_is_the_engines([chosen[tr("Layout")]], training, scenario)
    assert chosen[tr("Time to train")] == figure(training["time_s"], duration)
    assert_replica_is_the_engines(page_texts(at), inference)


def fits_word(part: dict[str, Any]) -> str:
    """The VRAM page's word under a memory figure: 'fits' or 'does not fit' (app_pages.vram.rows.fit_word)."""
    return tr("fits") if part["fits"] else tr("does not fit")


def check_tokens(at: Any, link: Link) -> None:
    scenario = link.tokens
    serving = engine(scenario)["inference"]
    verdict = goal_verdict(scenario, "serve", CATALOG)
    assert_engine_verdict_agrees(verdict, scenario)
    if verdict.runs:  # the page shows the serving verdict only when one sequence does not fit
        assert not at.success and not at.error
    else:
        assert_verdict_box(at, verdict, scenario)
    title = at.title[0].value
    assert engine(scenario)["inputs"]["model_name"] in title and f"{scenario.cards:,}" in title
    rate = functools.partial(per_second, unit="")
    expected = {
        tr("Largest batch"): f"{serving['max_batch']:,}",
        tr("Time to first token"): figure(serving["ttft_s"], duration),
        tr("Time per output token"): figure(serving["tpot_s"], functools.partial(milliseconds, digits=2)),
        tr("Tokens/s per user"): figure(serving["decode_tokens_per_s_per_user"], lambda v: rate(v).strip()),
        tr("Tokens/s in total"): figure(serving["decode_tokens_per_s"], lambda v: rate(v).strip()),
    }
    shown = metric_values(at)
    assert {label: shown.get(label) for label in expected} == expected
    if serving["fits"]:
        assert at.select_slider(key="batch").value == scenario.batch
    notes = [note.value for note in at.info]
    if scenario.batch < link.state["batch"]:  # the link's batch does not fit: the page says which it shows
        assert len(notes) == 1 and f"{link.state['batch']:,}" in notes[0] and f"{scenario.batch:,}" in notes[0]
    else:
        assert not notes
    assert_replica_is_the_engines(page_texts(at), serving)  # the takeaway and the caption: the estimate's replica


def check_compare(at: Any, link: Link) -> None:
    scenario = link.base
    title = at.title[0].value
    assert engine(scenario)["inputs"]["model_name"] in title and f"{scenario.cards:,}" in title
    mine = next(row for row in compare_gpus(scenario, CATALOG) if row.gpu_id == scenario.gpu)
    shown = at.dataframe[0].value.iloc[0]  # the sidebar's GPU comes first, marked
    assert shown["id"] == scenario.gpu and shown["gpu"].startswith("▶ ")
    pairs = {
        "serving_fits": mine.serving_fits,
        "training_fits": mine.training_fits,
        "cards_needed": mine.cards_needed,
        "tokens_per_s": mine.serving_tokens_per_s,
        "usd_per_million": mine.cost_per_million_output_tokens_usd,
        "training_days": None if mine.training_time_s is None else mine.training_time_s / DAY_S,
        "training_usd": mine.training_cost_usd,
    }
    assert {key: cell(shown[key]) for key in pairs} == pairs
    # compare_gpus' row for the scenario's own GPU is the engine's estimate of the scenario (at full load).
    trained, loaded = engine(scenario)["training"], engine(with_batch(scenario, "max"))["inference"]
    served = (loaded["fits"], loaded["decode_tokens_per_s"], loaded["cost_per_million_output_tokens_usd"])
    assert (mine.serving_fits, mine.serving_tokens_per_s, mine.cost_per_million_output_tokens_usd) == served
    assert (mine.training_fits, mine.training_time_s, mine.training_cost_usd) == (
        trained["fits"], trained["time_s"], trained["cost_usd"]
    )  # fmt: skip
    cards = [fix.value for fix in goal_verdict(scenario, "serve", CATALOG).fixes if fix.knob == "cards"]
    if cards:  # the verdict's fewest cards and the table's "Cards needed" are one answer
        assert mine.cards_needed == cards[0]


def cell(value: Any) -> Any:
    """A table cell as a plain value: a blank (NaN, None) is None, numpy numbers become Python ones."""
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return None
    return value.item() if hasattr(value, "item") else value


def check_plan(at: Any, link: Link) -> None:
    scenario = link.base
    result = engine(scenario)
    assert result["inputs"]["model_name"] in at.title[0].value
    mine = tr("your scenario")
    points = [row for rows in chart_rows(at) for row in rows if row.get("kind") == mine]
    inference = result["inference"]  # the page plans serving unless the link says otherwise
    if inference["fits"]:
        price = result["inputs"]["price_per_gpu_hour"]
        assert [(round(p["x"], 9), p["usd"]) for p in points] == [
            (round(inference["tpot_s"] * 1e3, 9), scenario.cards * price)
        ]
    else:
        assert points == []


def check_anatomy(at: Any, link: Link) -> None:
    scenario = link.base
    assert gpu_name(scenario) in at.title[0].value
    weights = bytes_gb(engine(scenario)["inference"]["memory_per_gpu"]["weights"])
    assert any(weights in caption.value for caption in at.caption), weights


def check_method(at: Any, link: Link) -> None:
    scenario = link.base
    result = engine(scenario)
    assert at.title[0].value == tr("Method")
    assert_layout_is_the_engines([block.value for block in at.markdown], result["training"], scenario)
    assert_replica_is_the_engines(page_texts(at), result["inference"])


def check_validation(at: Any, link: Link) -> None:
    scenario = link.base
    assert at.title
    nearest = at.subheader[0].value
    assert engine(scenario)["inputs"]["model_name"] in nearest and f"{scenario.cards:,}" in nearest


def check_add(at: Any, link: Link) -> None:
    assert at.title[0].value == tr("Add a GPU or model")


CHECKS = {
    "overview": check_overview,
    "costs": check_costs,
    "vram": check_vram,
    "tokens": check_tokens,
    "compare": check_compare,
    "plan": check_plan,
    "anatomy": check_anatomy,
    "method": check_method,
    "validation": check_validation,
    "add": check_add,
}
CASES = [(name, page, lang) for name in LINKS for page in PAGES for lang in LANGUAGES]


@pytest.mark.parametrize(("name", "page", "lang"), CASES, ids=[f"{n}-{p}-{lang}" for n, p, lang in CASES])
def test_every_page_shows_the_engines_answer(name, page, lang):
    link = link_of(name)
    at = open_page(page, lang=lang, **LINKS[name])  # open_page asserts no exception
    assert at.title, "a page without a title"
    assert not at.sidebar.warning, [w.value for w in at.sidebar.warning]  # every value of the link was taken
    if page not in ("overview", "vram", "tokens"):
        assert not at.error and not at.success, [box.value for box in (*at.error, *at.success)]
    with use_language(lang):
        CHECKS[page](at, link)


CLI_FLAGS = {"model": "--model", "gpu": "--gpu", "cards": "--cards", "precision": "--precision", "tp": "--tp"}
"""The link keys that are ``python -m model estimate`` flags; the rest are page controls (goal, batch)."""


def cli_flags(link: dict[str, str]) -> list[str]:
    """The command a person types for ``link``'s scenario: its flags, the goal's fine-tuning, nothing else."""
    flags = [text for key, value in link.items() if key in CLI_FLAGS for text in (CLI_FLAGS[key], value)]
    if link["goal"] == "finetune":
        flags += ["--finetune", link.get("finetune", "lora")]
    return flags


@pytest.mark.parametrize("name", LINKS)
def test_the_command_line_prints_the_engines_answer(name):
    # The sidebar's scenario (its price, lengths and utilisation included) is the command line's for the same link.
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert command_line(["estimate", *cli_flags(LINKS[name]), "--json"]) == 0
    assert json.loads(printed.getvalue()) == json.loads(json.dumps(finite(engine(link_of(name).base))))


# What the engine answers for each link: the pages' checks above are about these cases.
ANSWERS = {
    "70b-int4-2x4090-serve": {"serves": False, "trains": False, "max_batch": 0},
    "70b-64xh100-tp8-pretrain": {"serves": True, "trains": True, "tp": 8},
    "r1-fp8-8xh20-serve": {"serves": True, "trains": False},
    "8b-qlora-1x4090": {"serves": True, "trains": True},
    "405b-16384xh100-pretrain": {"serves": True, "trains": True},
    "8b-1xh100-batch4096-serve": {"serves": True, "trains": False, "clamped": True},
}


@pytest.mark.parametrize("name", LINKS)
def test_each_link_is_the_case_it_stands_for(name):
    link, answer = link_of(name), ANSWERS[name]
    result = engine(link.base)
    assert goal_verdict(link.base, "serve", CATALOG).runs == answer["serves"]
    training_goal = "pretrain" if link.goal == "serve" else link.goal
    assert goal_verdict(link.base, training_goal, CATALOG).runs == answer["trains"]
    if "max_batch" in answer:
        assert engine(link.vram)["inference"]["max_batch"] == engine(link.tokens)["inference"]["max_batch"] == 0
    if "clamped" in answer:
        largest = engine(link.vram)["inference"]["max_batch"]
        assert not engine(link.vram)["inference"]["fits"] and 1 <= largest < link.vram.batch
        assert link.tokens.batch == largest == engine(link.tokens)["inference"]["max_batch"]
    if "tp" in answer:
        assert link.base.tp == result["training"]["parallelism"]["tp"] == answer["tp"]
    assert link.goal == LINKS[name]["goal"]


def test_every_page_is_checked():
    assert set(CHECKS) == set(PAGES)
