"""The Validation page: the engine against published runs, in the app."""

import pytest

from tests.app.conftest import open_page
from ui.reports import shipped_report


def _nearest(at):
    return at.table[0].value


def test_the_page_shows_the_accuracy_both_charts_and_every_scored_measurement():
    at = open_page("validation")
    report = shipped_report()
    assert "published measurements" in at.markdown[0].value
    assert f"{report.overall.median_abs_error:.0%}" in at.markdown[0].value
    assert len(at.get("vega_lite_chart")) == 2
    assert len(at.dataframe[0].value) == len(report.rows)
    assert len(_nearest(at)) == 5


def test_the_kind_filter_keeps_only_that_kind_and_is_bound_to_the_url():
    at = open_page("validation", val_kind="memory")
    table = at.dataframe[0].value
    assert set(table["kind"]) == {"Memory"}
    at.segmented_control(key="val_kind").set_value("inference").run()
    assert set(at.dataframe[0].value["kind"]) == {"Inference"}
    assert at.query_params["val_kind"] in ("inference", ["inference"])


def test_a_bad_kind_in_the_link_falls_back_to_all_with_a_warning():
    at = open_page("overview", val_kind="astrology")  # the link's first page shows the warning
    assert any("Measurements shown" in w.value for w in at.warning)
    at.switch_page("app_pages/validation/page.py").run()
    assert at.segmented_control(key="val_kind").value == "all"


@pytest.mark.parametrize(
    ("kind", "key", "value"),
    [
        ("selectbox", "model", "llama-3.1-405b"),
        ("selectbox", "precision", "fp8"),
        ("selectbox", "gpu", "a100-sxm-80gb"),
        ("select_slider", "cards", 1024),
    ],
)
def test_each_sidebar_control_changes_the_nearest_runs(kind, key, value):
    at = open_page("validation")
    before = _nearest(at).to_dict("records")
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception
    assert _nearest(at).to_dict("records") != before, f"moving {key} changed nothing"
