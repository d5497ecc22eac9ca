"""Anatomy chart builders and row shapers: rows in, layered charts out (checked through to_dict)."""

from app_pages.anatomy import rows as rows_anatomy
from app_pages.anatomy.charts import KIND_COLORS, generations_chart, hierarchy_chart, links_chart
from model import Scenario, default_catalog, resolve
from model.analyses.anatomy import links, memory_hierarchy, read_times
from model.analyses.generations import generations
from ui.charts import _fill, _template

CATALOG = default_catalog()
H100 = CATALOG.gpus["h100-sxm"]
HIERARCHY = memory_hierarchy(H100, CATALOG)
LINEUP = generations(CATALOG)


def _tooltip_fields(layer):
    return {tip["field"] for tip in layer["encoding"]["tooltip"]}


def test_hierarchy_chart_puts_capacity_against_bandwidth_on_log_axes_with_units():
    points = rows_anatomy.hierarchy_points(HIERARCHY)
    spec = hierarchy_chart(points=points).to_dict()
    _path, dots, labels = spec["layer"]
    assert dots["mark"]["type"] == "point" and labels["mark"]["type"] == "text"
    x, y = dots["encoding"]["x"], dots["encoding"]["y"]
    assert x["scale"]["type"] == "log" and y["scale"]["type"] == "log"
    assert "bytes" in x["title"] and "GB/s" in y["title"]
    assert dots["encoding"]["color"]["scale"]["domain"] == list(KIND_COLORS)
    assert {"level", "capacity", "bandwidth"} <= _tooltip_fields(dots)
    filled = _fill(_template(hierarchy_chart, ("points",), ()), {"points": points})
    assert all(layer["data"] == {"values": points} for layer in filled["layer"])


def test_hierarchy_points_leave_out_levels_without_a_bandwidth():
    b200 = rows_anatomy.hierarchy_points(memory_hierarchy(CATALOG.gpus["b200"], CATALOG))
    assert "L2 cache" not in {point["level"] for point in b200}
    assert len(rows_anatomy.hierarchy_points(HIERARCHY)) == 5


def test_hierarchy_table_has_one_row_per_level_and_says_where_weights_do_not_fit():
    table = rows_anatomy.hierarchy_table(HIERARCHY, read_times(HIERARCHY, 16e9))
    assert next(row["Level"] for row in table) == "Registers"
    assert table[0]["Read the weights once"] == "does not fit"
    assert table[3]["Read the weights once"].endswith("ms")


def test_links_chart_is_linear_bars_in_gb_per_s_with_values_and_tooltips():
    bars = rows_anatomy.link_bars(links(resolve(Scenario(), CATALOG), CATALOG))
    spec = links_chart(bars=bars).to_dict()
    rects, values = spec["layer"]
    assert rects["mark"]["type"] == "bar" and values["mark"]["type"] == "text"
    assert "GB/s" in rects["encoding"]["x"]["title"]
    assert "scale" not in rects["encoding"]["x"]  # linear: bars start at zero
    assert {"link", "gb_s", "latency_us"} <= _tooltip_fields(rects)
    assert [bar["gb_s"] for bar in bars] == [450.0, 50.0, 63.0]


def test_generations_chart_draws_lines_on_a_log_axis_with_the_seed_as_hollow_points():
    lines = rows_anatomy.generation_lines(LINEUP)
    seed = rows_anatomy.generation_seed_points(LINEUP)
    spec = generations_chart(lines=lines, seed=seed).to_dict()
    path, _names, claims = spec["layer"]
    assert path["mark"]["type"] == "line" and claims["mark"]["filled"] is False
    assert path["encoding"]["y"]["scale"]["type"] == "log"
    assert "TFLOPS" in path["encoding"]["y"]["title"] and "Year" in path["encoding"]["x"]["title"]
    assert {"gpu", "metric", "value"} <= _tooltip_fields(path)
    assert {"gpu", "shown"} <= _tooltip_fields(claims)
    assert claims["data"]["values"] == seed
    assert {row["gpu"] for row in lines} == {"V100", "A100 80GB", "H100", "H200", "B200"}


def test_generation_table_marks_where_the_seed_disagrees():
    table = {row["GPU"]: row for row in rows_anatomy.generation_table(LINEUP)}
    assert table["B200"]["Seed memory"].endswith("✗") and table["H100"]["Seed TFLOPS"].endswith("✓")
    assert table["B100"]["Seed TFLOPS"] == "2,000+ ✗"


def test_the_renderer_swaps_rows_into_every_anatomy_chart():
    lines = rows_anatomy.generation_lines(LINEUP)
    seed = rows_anatomy.generation_seed_points(LINEUP)
    template = _template(generations_chart, ("lines", "seed"), ())
    filled = _fill(template, {"lines": lines, "seed": seed})
    assert filled["layer"][0]["data"] == {"values": lines}
    assert filled["layer"][2]["data"] == {"values": seed}


def test_takeaways_name_the_numbers_they_compare():
    assert "53×" in rows_anatomy.hierarchy_takeaway(HIERARCHY, "H100")
    assert "7.1×" in rows_anatomy.links_takeaway(links(resolve(Scenario(), CATALOG), CATALOG))
    text = rows_anatomy.generations_takeaway(None)
    assert "too few" in text
