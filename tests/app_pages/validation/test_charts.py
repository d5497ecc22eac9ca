"""Validation chart builders and their rows (checked through to_dict)."""

from app_pages.validation.charts import KIND_COLORS, error_chart, validation_chart
from app_pages.validation.rows import band_rows, nearest_rows, point_rows, table_rows, validation_takeaway
from model.validation import error_band
from ui.reports import shipped_report

REPORT = shipped_report()
POINTS = point_rows(REPORT)
BAND = band_rows(error_band(REPORT))


def test_the_scatter_is_log_log_with_the_identity_line_and_the_25_percent_band():
    spec = validation_chart(points=POINTS, band=BAND).to_dict()
    shade, identity, _note, dots = spec["layer"]
    assert shade["mark"]["type"] == "area" and identity["mark"]["type"] == "line"
    assert dots["encoding"]["x"]["scale"]["type"] == "log" and dots["encoding"]["y"]["scale"]["type"] == "log"
    assert "Measured" in dots["encoding"]["x"]["title"] and "Predicted" in dots["encoding"]["y"]["title"]
    for row in shade["data"]["values"]:
        assert row["low"] == 0.75 * row["measured"] and row["high"] == 1.25 * row["measured"]
    assert identity["encoding"]["y"]["field"] == "measured"  # y = x


def test_points_are_coloured_by_kind_and_their_tooltip_names_the_source_and_quote():
    dots = validation_chart(points=POINTS, band=BAND).to_dict()["layer"][-1]
    assert dots["encoding"]["color"]["scale"]["domain"] == list(KIND_COLORS)
    titles = {tip["title"] for tip in dots["encoding"]["tooltip"]}
    assert {"Source", "Quoted row", "Measured", "Predicted", "Error"} <= titles
    assert {row["kind"] for row in POINTS} <= set(KIND_COLORS)
    assert all(row["source"] and row["quote"] for row in POINTS)


def test_the_band_spans_every_value_on_the_chart():
    values = [v for row in POINTS for v in (row["measured"], row["predicted"])]
    assert BAND[0]["measured"] < min(values) and BAND[-1]["measured"] > max(values)


def test_the_error_strip_shades_25_percent_either_side_of_zero():
    spec = error_chart(points=POINTS).to_dict()
    band, zero, dots = spec["layer"]
    assert band["data"]["values"] == [{"low": -0.25, "high": 0.25, "exact": 0.0}]
    assert zero["encoding"]["x"]["field"] == "exact"
    assert dots["encoding"]["x"]["axis"]["format"] == "+.0%"


def test_the_table_lists_the_worst_first_and_filters_by_kind():
    rows = table_rows(REPORT, "all")
    errors = [abs(row["error"]) for row in rows]
    assert errors == sorted(errors, reverse=True)
    assert {row["kind"] for row in table_rows(REPORT, "memory")} == {"Memory"}


def test_the_takeaway_and_the_nearest_rows_read_their_figures_from_the_report():
    text = validation_takeaway(REPORT)
    assert f"{REPORT.overall.entries} published measurements" in text
    assert f"{REPORT.overall.covered} of {REPORT.overall.ranged}" in text
    assert nearest_rows([]) == []
