"""The calibration's ranking of settings, and its leave-one-source-out fit."""

from __future__ import annotations

import itertools
import json

import pytest

from model import default_catalog
from model.validation import CLASSES, KINDS, load_out_of_sample, validate
from model.validation.calibrate import (
    GRID,
    GridScores,
    ScoredRow,
    Trial,
    _shipped_constants,
    format_out_of_sample,
    leave_one_source_out,
)
from model.validation.groups import Constants, Group, GroupFits, _choose
from model.validation.out_of_sample import from_dict


def _trial(overall: float, **kinds: float) -> Trial:
    return Trial({}, overall, kinds, worst_ratio=4.0, off_twofold=1)


def test_a_hair_off_the_worst_kind_does_not_buy_losses_on_the_others() -> None:
    # The 2026-12 rerun's case: 0.6 % better MoE serving (the worst kind), 2.7 % worse dense serving.
    shipped = _trial(0.113, dense=0.053, moe=0.194, memory=0.19, typed_moe=0.164)
    rival = _trial(0.110, dense=0.080, moe=0.188, memory=0.19, typed_moe=0.176)
    assert shipped.rank < rival.rank


def test_a_setting_past_the_validation_bounds_ranks_after_one_within() -> None:
    within = _trial(0.14, dense=0.24, moe=0.24)
    past = _trial(0.10, dense=0.02, moe=0.26)  # better mean, but one kind past 25 %
    assert within.rank < past.rank


def test_inside_the_bounds_the_mean_of_the_kinds_decides() -> None:
    balanced = _trial(0.12, dense=0.10, moe=0.12)  # mean 11 %
    lopsided = _trial(0.11, dense=0.02, moe=0.22)  # mean 12 %, though the better overall median
    assert balanced.rank < lopsided.rank


# Leave one source out (issue 33 item 5): a toy grid of two settings, "scale" 1 and 2, where a
# prediction is scale x the row's factor x its measured value.


def _row(ident: str, source: str, factor: float, kind: str = "local", stack: str = "") -> ScoredRow:
    return ScoredRow(ident, kind, source, stack, (), 100.0, (100.0 * factor, 200.0 * factor), (None, None))


TOY = GridScores(
    settings=({"scale": 1.0}, {"scale": 2.0}),
    rows=(
        _row("a", "source A", 1.0, stack="llama.cpp"),
        _row("b", "source B", 1.0, stack="llama.cpp"),
        *(_row(f"o{i}", "outlier", 0.5) for i in range(3)),
    ),
)
"""Sources A and B want scale 1; the outlier source (three runs, half as fast as predicted) wants
scale 2 and, holding most rows, wins the in-sample fit."""


def test_a_source_the_others_disagree_with_is_worse_held_out_than_in_sample() -> None:
    fit = leave_one_source_out(TOY)
    assert fit.in_sample_setting == {"scale": 2.0}
    errors = {row.id: (row.in_sample_error, row.out_of_sample_error) for row in fit.rows}
    # Held out, the outlier is predicted by A and B's scale 1: 50 % under instead of exact.
    assert errors["o0"] == pytest.approx((0.0, -0.5))
    # A held out: B and the outlier still choose scale 2, so A stays 100 % over.
    assert errors["a"] == pytest.approx((1.0, 1.0))
    assert fit.overall.in_sample == pytest.approx(0.0)
    assert fit.overall.out_of_sample == pytest.approx(0.5)
    assert fit.overall.out_of_sample > fit.overall.in_sample


def test_the_fit_has_a_score_per_kind_class_and_stack_and_a_row_per_measurement() -> None:
    fit = leave_one_source_out(TOY)
    assert [score.group for score in fit.kinds] == list(KINDS)
    assert [score.group for score in fit.classes] == list(CLASSES)
    assert [score.group for score in fit.stacks] == ["llama.cpp", "not labelled"]
    by_kind = {score.group: score for score in fit.kinds}
    assert (by_kind["local"].entries, by_kind["local"].sources) == (5, 3)
    assert by_kind["memory"].entries == 0
    stacks = {score.group: score for score in fit.stacks}
    assert (stacks["llama.cpp"].entries, stacks["not labelled"].entries) == (2, 3)
    assert fit.overall.entries == len(fit.rows) == 5 and fit.overall.sources == 3
    assert fit.settings_scored == 2


def test_the_fit_survives_its_plain_data_form() -> None:
    fit = leave_one_source_out(TOY)
    assert from_dict(json.loads(json.dumps(fit.to_dict()))) == fit


def test_the_text_table_shows_each_group_in_sample_beside_held_out() -> None:
    text = format_out_of_sample(leave_one_source_out(TOY))
    assert "in-sample" in text and "held out" in text
    assert "local" in text and "llama.cpp" in text
    assert "inference" not in text and "memory" not in text  # a kind without measurements is left out
    assert "50.0%" in text.splitlines()[-2]  # the overall line: 0.0 % in sample, 50.0 % held out


def test_the_shipped_out_of_sample_file_covers_the_shipped_measurements() -> None:
    # A measurement added without rerunning `python -m model.validation.calibrate --write` makes the
    # Validation page's held-out column stale: this fails until the file is regenerated.
    fit = load_out_of_sample()
    assert fit is not None, "data/validation_out_of_sample.json is missing"
    assert fit is load_out_of_sample()
    report = validate()
    assert fit.covers(row.reference.id for row in report.rows)
    assert [score.group for score in fit.kinds] == list(KINDS)
    assert fit.overall.entries == len(report.rows)
    assert fit.settings_scored == len(list(itertools.product(*GRID.values())))


# The second stage (issue 33 item 1): each stack's constants fitted over all of its runs together.


class _FakeStacks:
    """A predictor for one stack "s" whose kernel floor makes a prediction floor / 4 us times the measured value."""

    def __init__(self, rows: dict[str, str]) -> None:
        self.references = dict.fromkeys(rows)
        self.owner_of = rows
        self.calls = 0

    def family_of(self, ident: str) -> str:
        return ""

    def groups(self) -> list[Group]:
        members = frozenset(i for i, stack in self.owner_of.items() if stack == "s")
        return [Group("stack", "s", "", ("kernel_floor_s",), members)]

    def constants(self, ident: str, fits: GroupFits) -> tuple[Constants, Constants, bool]:
        grouped = self.owner_of[ident] == "s" and "stack:s" in fits.constants
        return (fits.constants.get("stack:s", ()) if grouped else ()), (), grouped

    def __call__(self, ident: str, setting: int, stack: Constants, platform: Constants) -> float:
        self.calls += 1
        floor = dict(stack).get("kernel_floor_s", 6e-6)  # the prior: typical's 6 us
        return 100.0 * floor / 4e-6


STACKED = GridScores(
    settings=({"scale": 1.0},),
    rows=(
        ScoredRow("a", "local", "source A", "s", (), 100.0, (150.0,), (None,)),
        ScoredRow("b", "local", "source B", "s", (), 100.0, (150.0,), (None,)),
        ScoredRow("c", "local", "source C", "", (), 100.0, (100.0,), (None,)),
    ),
)
"""Two sources of stack s, which its 4 us floor predicts exactly (6 us, typical's, 50 % over), and one typical run."""


def test_a_stacks_constant_is_fitted_on_all_its_runs_and_predicts_each_held_out_source_from_the_others() -> None:
    fit = leave_one_source_out(STACKED, _FakeStacks({"a": "s", "b": "s", "c": "typical"}))  # type: ignore[arg-type]
    assert fit.in_sample_groups == {"stack:s": {"kernel_floor_s": 4e-6}}
    errors = {row.id: (row.in_sample_error, row.out_of_sample_error) for row in fit.rows}
    assert errors["a"] == pytest.approx((0.0, 0.0)) and errors["b"] == pytest.approx((0.0, 0.0))
    assert errors["c"] == pytest.approx((0.0, 0.0))  # a typical run keeps the grid's prediction


def test_a_stack_whose_only_source_is_held_out_falls_back_to_its_prior() -> None:
    one_source = STACKED._replace(rows=(STACKED.rows[0], STACKED.rows[2]))
    fit = leave_one_source_out(one_source, _FakeStacks({"a": "s", "c": "typical"}))  # type: ignore[arg-type]
    held = {row.id: row.out_of_sample_error for row in fit.rows}
    assert held["a"] == pytest.approx(0.5)  # no other run of s: typical's 6 us floor


def test_the_shipped_stack_constants_are_the_calibrations_fit_at_the_engines_setting() -> None:
    # data/stacks.yaml ships what `python -m model.validation.calibrate --write` fitted at the global
    # setting model/efficiency.py ships: a constant changed by hand, or a refit not copied, fails here.
    fit = load_out_of_sample()
    assert fit is not None and fit.shipped_groups, "rerun python -m model.validation.calibrate --write"
    catalog = default_catalog()
    for key, constants in fit.shipped_groups.items():
        assert dict(_shipped_constants(catalog, key)) == pytest.approx(dict(constants)), key


def test_a_constant_that_moves_a_few_runs_is_fitted_over_those_not_outvoted_by_the_rest() -> None:
    # A floor moves every run; a split's synchronisation only the two-card run "split". Jointly, the
    # median over five runs would not see the split; fitted over the runs it moves, 40 us is found.
    runs = ("a", "b", "c", "d", "split")
    group = Group("stack", "s", "", ("kernel_floor_s", "split_sync_s"), frozenset(runs))

    def trial(ident: str, constants: Constants) -> float:
        chosen = dict(constants)
        floor = chosen.get("kernel_floor_s", 6e-6) / 4e-6  # 4 us predicts the measured 100 exactly
        sync = 1.0 + (chosen.get("split_sync_s", 0.0) - 40e-6) / 40e-6 if ident == "split" else 1.0
        return 100.0 * floor * sync

    measured = dict.fromkeys(runs, 100.0)
    assert dict(_choose(group, runs, trial, measured)) == {"kernel_floor_s": 4e-6, "split_sync_s": 40e-6}
    assert dict(_choose(group, runs[:4], trial, measured)) == {"kernel_floor_s": 4e-6}  # no split run: its prior
