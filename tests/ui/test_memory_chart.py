"""The memory breakdown chart the Overview and the VRAM page share: the card, and the server's budget beside it."""

from model import Scenario, default_catalog, estimate, serving_capacity
from ui.charts import _fill, _template
from ui.memory_chart import memory_breakdown_chart
from ui.memory_rows import limits_caption, serving_budget_row

CAPACITY = [{"gb": 80.0, "label": "H100: 80 GB"}]


def test_the_memory_chart_marks_the_servers_budget_beside_the_card():
    parts = [{"workload": "Inference", "component": "KV cache", "gb": 40.0, "order": 5}]
    gpu = default_catalog().gpus["rtx-4090"]
    budget = serving_budget_row(gpu, estimate(Scenario(gpu="rtx-4090")).inference.budget_per_gpu)
    assert budget[0]["gb"] == serving_capacity(gpu.capacity_bytes) / 1e9  # the engine's one budget (typical's)
    assert "90%" in budget[0]["label"] and f"{gpu.capacity_bytes / 1e9:,.1f} GB" in budget[0]["label"]
    spec = memory_breakdown_chart(parts=parts, capacity=CAPACITY, budget=budget).to_dict()
    rules = [layer for layer in spec["layer"] if layer["mark"]["type"] == "rule"]
    assert [rule["data"]["values"] for rule in rules] == [CAPACITY, budget]
    # Both rules are named under the chart (dashed: the card, dotted: the budget), never as text by the rule:
    # two labels 10 % apart overlapped and one at the chart's edge was cut (issue 31).
    assert not [layer for layer in spec["layer"] if layer["mark"]["type"] == "text"]
    assert [rule["mark"]["strokeDash"] for rule in rules] == [[6, 3], [2, 2]]
    caption = limits_caption(CAPACITY, budget)
    assert caption.index("H100: 80 GB") < caption.index("dotted") < caption.index(budget[0]["label"])
    assert all(layer["encoding"]["tooltip"] for layer in spec["layer"])
    template = _template(memory_breakdown_chart, ("budget", "capacity", "parts"), ())
    filled = _fill(template, {"parts": parts, "capacity": CAPACITY, "budget": budget})
    assert all("values" in layer["data"] for layer in filled["layer"])
    assert len(memory_breakdown_chart(parts=parts, capacity=CAPACITY).to_dict()["layer"]) == 2  # bars and the card
