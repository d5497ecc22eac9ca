"""The integer searches every analysis shares."""

import pytest

from model.analyses.search import largest_passing, last_passing


@pytest.mark.parametrize("guess", [None, -5, 1, 2, 7, 19, 20, 21, 39, 40, 41, 500])
def test_the_search_finds_the_last_fitting_value_from_any_first_guess(guess):
    for threshold in range(45):
        calls = []

        def fits(n, threshold=threshold, calls=calls):
            calls.append(n)
            return n <= threshold

        assert largest_passing(fits, 1, 40, guess) == min(threshold, 40)
        assert len(calls) <= 16


def test_bisection_returns_the_last_passing_value_between_its_bounds():
    for threshold in range(1, 100):
        calls = []

        def passes(n, threshold=threshold, calls=calls):
            calls.append(n)
            return n <= threshold

        assert last_passing(passes, 1, 100) == threshold
        assert len(calls) <= 7  # log2(99) rounded up
