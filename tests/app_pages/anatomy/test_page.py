import pytest

from tests.app.conftest import metric_values, open_page


def _texts(at):
    return [element.value for element in (*at.markdown, *at.caption)]


def test_anatomy_renders_the_chip_its_hierarchy_links_and_generations():
    at = open_page("anatomy")
    values = metric_values(at)
    assert values["SMs"] == "132" and values["Memory bandwidth"] == "3.35 TB/s"
    assert values["FLOPs per byte"] == "295"
    assert "H100" in at.title[0].value
    assert any("Lower is larger and slower" in text for text in _texts(at))
    for view in ("hierarchy", "links", "generations"):  # one section is drawn at a time
        at.segmented_control(key="anatomy_view").set_value(view).run()
        assert not at.exception
        assert len(at.get("vega_lite_chart")) == 1


def test_switching_the_sidebar_gpu_changes_the_anatomy_metrics():
    at = open_page("anatomy")
    before = metric_values(at)
    at.selectbox(key="gpu").set_value("b200").run()
    assert not at.exception
    after = metric_values(at)
    assert after != before
    assert after["SMs"] == "148" and after["Memory"] == "180 GB"


def test_a_chip_without_sm_data_shows_what_it_has_and_says_what_is_missing():
    at = open_page("anatomy", gpu="tpu-v5e")
    assert metric_values(at)["SMs"] == "n/a"
    assert any("no SM or cache figures" in text for text in _texts(at))


@pytest.mark.parametrize(
    ("kind", "key", "value", "base"),
    [
        ("selectbox", "gpu", "a100-sxm-80gb", {}),
        ("selectbox", "precision", "fp8", {}),
        # The model and the card count change the weights each card holds, read once per level.
        ("selectbox", "model", "llama-3.1-8b", {"model": "llama-3.1-70b"}),
        ("select_slider", "cards", 1, {"model": "llama-3.1-70b"}),
        ("selectbox", "link", "pcie-gen5", {"anatomy_view": "links"}),
        ("selectbox", "net", "ethernet-100g", {"anatomy_view": "links"}),
    ],
)
def test_each_sidebar_control_changes_what_the_anatomy_page_shows(kind, key, value, base):
    at = open_page("anatomy", **base)
    before = (metric_values(at), _texts(at))
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception
    assert (metric_values(at), _texts(at)) != before, f"moving {key} changed nothing"


def test_a_shared_link_restores_the_gpu_and_precision():
    at = open_page("anatomy", gpu="h200", precision="fp8", link="pcie-gen5", anatomy_view="links")
    assert at.selectbox(key="gpu").value == "h200"
    assert "H200" in at.title[0].value
    assert "Dense TFLOPS (fp8)" in metric_values(at)
    assert any(text.startswith("PCIe 5.0 x16 gives each GPU") for text in _texts(at))
