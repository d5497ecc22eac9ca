"""Durations in a metric tile stay short enough for a 1280 px projector, in both languages."""

import pytest

from ui.i18n import use_language
from ui.rows.costs import short_duration

DAY = 86400.0


@pytest.mark.parametrize("days", [0.5, 3, 12, 45, 59, 61, 288, 700, 731, 5000, 36_000, 3_000_000])
def test_a_training_time_fits_a_tile(days):
    assert len(short_duration(days * DAY)) <= 8, short_duration(days * DAY)
    with use_language("zh"):
        assert len(short_duration(days * DAY)) <= 8


def test_the_unit_follows_the_size():
    assert short_duration(45 * DAY) == "45 days"
    assert short_duration(288 * DAY) == "9.5 mo"
    assert short_duration(3 * 365 * DAY) == "3.0 yr"
    with use_language("zh"):
        assert short_duration(288 * DAY) == "9.5 个月"
