"""Every URL-bound widget declares its current value as its default (ui/remount.py says why).

A browser that reruns before all widgets have mounted (a slow machine, a quick click on the
page list after a shared link opens) mounts the late ones at their *declared* default and sends
that back: without this, a 64-card FP8 Llama 3.1 70B link became 1 card of the first model, with
no precision. tests/browser/test_interaction.py reproduces that race with a throttled CPU.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.app.conftest import PAGES, open_page
from ui.controls import CONTROLS

# One value away from its default for every control but the custom-size slider (tested below).
AWAY_FROM_DEFAULTS = {
    "lang": "zh",
    "goal": "finetune",
    "finetune": "qlora",
    "rank": "32",
    "pricing": "own",
    "price": "2.5",
    "years": "5",
    "kwh": "0.2",
    "pue": "1.5",
    "model": "llama-3.1-70b",
    "precision": "fp8",
    "gpu": "h200",
    "cards": "64",
    "link": "nvlink5",
    "net": "ib-xdr",
    "stack": "deepspeed",  # trains (the goal above) on CUDA (the GPU above)
    "prompt": "4096",
    "output": "512",
    "batch": "64",
    "tokens": "1e12",
    "util": "0.5",
    "traffic": "1e10",
    "months": "36",
    "api": "gpt-4o-mini-2024-07",
    "zero": "3",
    "tp": "8",
    "recompute": "full",
    "micro": "2",
    "seq": "8192",
    "target": "100",
    "draft": "2",
    "accept": "0.9",
    "plan_goal": "train",
    "plan_tps": "2000",
    "plan_tpot": "30",
    "plan_ttft": "500",
    "plan_days": "60",
    "plan_budget": "1e6",
    "plan_prec": "bf16,fp8",
    "method_view": "formulas",
    "anatomy_view": "links",
    "val_kind": "memory",
    "present": "1",
    "kv": "fp8",
    "users": "64",
    "job": "3000",
    "host": "64",
    "host_bw": "89.6",
    "offload": "layers",
    "hf": "mistralai/Mistral-7B-v0.1",
}


def declared_matches_value(widget: Any) -> bool:
    """Whether the widget's declared default (what a late mount shows) is its current value."""
    proto, kind = widget.proto, type(widget).__name__
    if kind == "Selectbox":
        return bool(proto.default == widget.index)
    if kind == "SelectSlider":
        return bool(proto.options[int(proto.default[0])] == widget.format_func(widget.value))
    if kind == "ButtonGroup":  # one choice; its label may carry an icon, as the format function writes it
        option = proto.options[proto.default[0]]
        shown = f"{option.content_icon} {option.content}" if option.content_icon else option.content
        return bool(len(proto.default) == 1 and shown == widget.format_func(widget.value))
    if kind == "NumberInput":
        return bool(proto.default == widget.value)
    if kind == "Multiselect":
        return bool([proto.options[index] for index in proto.default] == [widget.format_func(v) for v in widget.value])
    if kind == "Slider":
        return bool(list(proto.default) == [widget.value])
    if kind in ("Toggle", "TextInput"):
        return bool(proto.default == widget.value)
    raise AssertionError(f"no rule for a {kind} ({widget.key}): add one to this test")


def bound_widgets(at: Any) -> list[Any]:
    """Every widget on the page (sidebar included) whose key is a URL-bound control."""
    found: dict[str, Any] = {}

    def walk(node: Any) -> None:
        for child in getattr(node, "children", {}).values():
            if getattr(child, "key", None) in CONTROLS:
                found[child.key] = child
            walk(child)

    walk(at._tree)
    return list(found.values())


def test_the_link_moves_every_control_but_the_custom_size():
    assert set(AWAY_FROM_DEFAULTS) == set(CONTROLS) - {"params"}
    assert all(CONTROLS[key].parse(text) != CONTROLS[key].default for key, text in AWAY_FROM_DEFAULTS.items())


@pytest.mark.parametrize("page", [page for page in PAGES if page != "add"])
def test_every_bound_widget_declares_its_current_value(page):
    at = open_page(page, **AWAY_FROM_DEFAULTS)
    assert not [message.value for message in at.sidebar.warning], "the link should parse cleanly"
    widgets = bound_widgets(at)
    assert len(widgets) >= 6  # the sidebar's at least
    for widget in widgets:
        assert widget.value == at.session_state[widget.key]
        assert declared_matches_value(widget), f"{page}: {widget.key} declares another default"


def test_the_custom_size_slider_declares_its_current_value():
    at = open_page("overview", model="custom", params="70e9")
    slider = at.sidebar.select_slider(key="params")
    assert slider.value == 70.0
    assert declared_matches_value(slider)
