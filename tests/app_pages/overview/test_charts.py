"""The Overview's chart: one user's time per token on the scenario's cards against a server CPU."""

from app_pages.overview.charts import token_time_chart


def test_token_time_chart_labels_the_unit_and_every_bar():
    rows = [
        {"label": "GPU · ideal", "kind": "ideal", "ms": 9.2},
        {"label": "CPU · ideal", "kind": "ideal", "ms": 578.0},
    ]
    spec = token_time_chart(rows=rows).to_dict()
    bars, text = spec["layer"]
    assert "ms" in bars["encoding"]["x"]["title"]
    assert text["mark"]["type"] == "text"
