"""Durations in a metric tile stay short enough for a 1280 px projector, in both languages."""

import pytest

from app_pages.costs.rows import money, short_duration
from ui.i18n import use_language

DAY = 86400.0


@pytest.mark.parametrize("days", [0.001, 0.05, 0.5, 2.9, 3, 9.2, 12, 45, 59, 61, 288, 700, 731, 5000, 36_000, 3e6])
def test_a_training_time_fits_a_tile(days):
    # Eight characters ("9.2 days") end in an ellipsis in a fifth of a 1280 px page.
    assert len(short_duration(days * DAY)) <= 7, short_duration(days * DAY)
    with use_language("zh"):
        assert len(short_duration(days * DAY)) <= 7


def test_the_unit_follows_the_size():
    assert short_duration(45 * DAY) == "45 days"
    assert short_duration(288 * DAY) == "9.5 mo"
    assert short_duration(3 * 365 * DAY) == "3.0 yr"
    with use_language("zh"):
        assert short_duration(288 * DAY) == "9.5个月"


@pytest.mark.parametrize(
    ("usd", "shown"),
    [(824, "$824"), (8249, "$8.2k"), (9960, "$10k"), (84_234, "$84k"), (999_600, "$1.0M"), (43.55e6, "$44M")],
)
def test_a_cost_fits_a_tile_and_rounds_into_the_next_unit(usd, shown):
    assert money(usd) == shown and len(shown) <= 6
    assert money(None) == "—"
