"""Chart builders are pure: rows in, a layered Altair chart out (checked through to_dict)."""

from ui.charts import COMPONENT_COLORS, _fill, _template
from ui.memory_chart import memory_breakdown_chart

PARTS = [
    {"workload": "Training", "component": "weights", "gb": 16.0, "order": 0},
    {"workload": "Training", "component": "activations", "gb": 20.0, "order": 3},
    {"workload": "Inference", "component": "KV cache", "gb": 40.0, "order": 4},
]
CAPACITY = [{"gb": 80.0, "label": "H100: 80 GB"}]


def test_memory_chart_stacks_components_against_capacity_with_units_and_tooltips():
    spec = memory_breakdown_chart(parts=PARTS, capacity=CAPACITY).to_dict()
    bars, rule = spec["layer"]  # the card is named under the chart, not by a text mark
    assert bars["mark"]["type"] == "bar"
    assert "GB" in bars["encoding"]["x"]["title"]
    assert bars["encoding"]["color"]["scale"]["domain"] == list(COMPONENT_COLORS)
    assert {t["field"] for t in bars["encoding"]["tooltip"]} == {"workload", "component", "gb"}
    assert rule["mark"]["type"] == "rule" and rule["encoding"]["x"]["field"] == "gb"
    assert bars["data"]["values"] == PARTS


def test_the_renderer_keeps_one_template_and_swaps_rows_into_each_layer():
    template = _template(memory_breakdown_chart, ("capacity", "parts"), ())
    assert "data" not in template and "datasets" not in template
    filled = _fill(template, {"parts": PARTS, "capacity": CAPACITY})
    assert filled["layer"][0]["data"] == {"values": PARTS}
    assert filled["layer"][1]["data"] == {"values": CAPACITY}
    assert template["layer"][0]["data"] == {"name": "parts"}  # the cached template is untouched


def test_no_chart_text_is_smaller_than_the_modes_least_size():
    # Issue 31: 12 px chart text was unreadable from the back of a room. Every font size a builder
    # sets is raised to 14 px (16 px while presenting), and the config sizes what builders leave unset.
    for least in (14, 16):
        spec = _template(memory_breakdown_chart, ("capacity", "parts"), (), "en", least)
        sizes = []

        def walk(node, sizes=sizes):
            if isinstance(node, dict):
                sizes.extend(v for k, v in node.items() if k in ("fontSize", "labelFontSize", "titleFontSize"))
                for value in node.values():
                    walk(value)
            elif isinstance(node, list):
                for item in node:
                    walk(item)

        walk(spec)
        assert sizes and min(sizes) >= least
        assert spec["config"]["axis"]["labelFontSize"] == least
