"""Count the engine's estimates a view model makes, each where it resolves its scenario (as benchmarks.engine_calls)."""

from __future__ import annotations

import importlib

import pytest

estimate_module = importlib.import_module("model.estimate")  # the module: ``model.estimate`` names the function


def estimates(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Record each estimate() made from now on, where it resolves its scenario (the engine's memo emptied first)."""
    estimate_module.forget_estimates()
    calls: list[object] = []
    resolve = estimate_module.resolve

    def counted(scenario: object, *args: object, **kwargs: object) -> object:
        calls.append(scenario)
        return resolve(scenario, *args, **kwargs)

    monkeypatch.setattr(estimate_module, "resolve", counted)
    return calls
