"""Integer searches the analyses share: the largest value that passes a test that turns false once.

Memory against a batch, a context or a sequence length, and latency against a batch, only grow,
so "fits" or "meets the target" holds up to some value and fails beyond it. These find that value
in a few calls of the test, each of which costs an estimate.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["largest_passing", "last_passing"]


def last_passing(test: Callable[[int], bool], low: int, high: int) -> int:
    """Return the largest n in [low, high) that passes, given that ``low`` passes and ``high`` does not.

    Bisection: about log2(high - low) calls of ``test``.
    """
    while high - low > 1:
        middle = (low + high) // 2
        if test(middle):
            low = middle
        else:
            high = middle
    return low


def largest_passing(test: Callable[[int], bool], start: int, limit: int, guess: int | None = None) -> int:
    """Return the largest n in [start, limit] that passes, or start - 1 when none does.

    From ``guess`` (or ``start``) steps of 1, 2, 4, ... bracket the answer and :func:`last_passing`
    finds it: a good guess costs two calls.
    """
    if guess is not None and start < guess < limit and not test(guess):
        high, step = guess, 1
        while True:
            candidate = max(start, guess - step)
            if test(candidate):
                return last_passing(test, candidate, high)
            if candidate == start:
                return start - 1
            high, step = candidate, step * 2
    if guess is not None and start < guess < limit:
        low = guess
    elif test(start):
        low = start
    else:
        return start - 1
    step = 1
    while low < limit:
        candidate = min(limit, low + step)
        if not test(candidate):
            return last_passing(test, low, candidate)
        low, step = candidate, step * 2
    return limit
