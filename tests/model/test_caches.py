"""The layout caches hold up when sessions estimate at once (Streamlit runs each in its own thread)."""

import sys
import threading
import time

from model import Scenario, estimate
from model.caches import BoundedMemo, once
from model.layouts import plan, serving


def _in_threads(work, threads=8):
    """Run ``work(index)`` in ``threads`` threads switching every microsecond; return what they raised."""
    failures = []

    def run(index):
        try:
            work(index)
        except Exception as error:  # collected: a thread's exception would otherwise vanish
            failures.append(error)

    pool = [threading.Thread(target=run, args=(index,)) for index in range(threads)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads often, so a race shows in a short test
    try:
        for thread in pool:
            thread.start()
        for thread in pool:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    return failures


def test_threads_filling_a_small_memo_never_raise_and_it_stays_bounded():
    memo = BoundedMemo(2)

    def fill(index):
        for n in range(5000):
            memo.put((index, n), n)
            memo.get((index, n - 1))

    assert _in_threads(fill) == []
    assert len(memo) == 2


def test_the_first_value_stored_for_a_key_is_the_one_every_thread_gets():
    memo = BoundedMemo(4)
    assert memo.put("key", 1) == 1
    assert memo.put("key", 2) == 1
    assert memo.get("key") == 1


def test_sessions_estimating_at_once_past_the_caches_bounds_get_their_own_answers(monkeypatch):
    # The soak found KeyError: two sessions evicting the same oldest search from a plain dict.
    monkeypatch.setattr(plan, "_SEARCHES", BoundedMemo(2))
    monkeypatch.setattr(plan, "_SIZES", BoundedMemo(2))
    monkeypatch.setattr(serving, "_SERVING_CHOICES", BoundedMemo(2))
    scenarios = [Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=cards) for cards in (1, 2, 4, 8, 16, 32)]
    alone = {s.cards: estimate(s).training.time_s for s in scenarios}
    seen = []

    def work(index):
        for round_ in range(6):
            s = scenarios[(index + round_) % len(scenarios)]
            seen.append((s.cards, estimate(s).training.time_s))

    assert _in_threads(work) == []
    assert all(time_s == alone[cards] for cards, time_s in seen)


def test_once_computes_a_value_in_one_thread_while_the_others_wait_for_it():
    calls = []

    @once
    def load(name):
        calls.append(name)
        time.sleep(0.05)  # long enough for the other threads to arrive meanwhile
        return name.upper()

    results = []
    assert _in_threads(lambda index: results.append(load("gpus"))) == []
    assert calls == ["gpus"] and results == ["GPUS"] * 8
    assert load("models") == "MODELS" and calls == ["gpus", "models"]


def test_a_cached_estimate_reports_the_ranges_a_fresh_one_does():
    # The range ends (the chosen layout under the other efficiency sets) are kept with the search
    # and the serving choice; an estimate that finds them cached must report what one that
    # computes them does, for each of two scenarios sharing a search (only the price differs).
    scenarios = [
        Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=64, batch=32, price_per_gpu_hour=p) for p in (2, 3)
    ]
    plan.forget_searches()
    fresh = [estimate(s) for s in scenarios]
    cached = [estimate(s) for s in reversed(scenarios)][::-1]
    for one, again in zip(fresh, cached, strict=True):
        assert again.ranges == one.ranges
        assert again.training.step == one.training.step
    assert fresh[0].ranges["cost_usd"] != fresh[1].ranges["cost_usd"]
    assert fresh[0].ranges["time_s"] == fresh[1].ranges["time_s"]
