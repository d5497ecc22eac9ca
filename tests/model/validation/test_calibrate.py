"""The calibration's ranking: which of two settings of the free factors it prefers."""

from __future__ import annotations

from model.validation.calibrate import Trial


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
