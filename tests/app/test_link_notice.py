"""A link that is not honoured says so once, above the page, with the nearest valid id (issue 31)."""

from tests.app.conftest import open_page


def test_a_mistyped_link_names_each_dropped_setting_and_the_nearest_id_in_the_main_area():
    at = open_page("overview", gpu="h1000", model="llama-9", cards="abc")
    assert not at.exception
    assert len(at.sidebar.warning) == 0  # not a stack in the sidebar
    (notice,) = [w.value.replace("\\", "") for w in at.main.warning if w.value.startswith("Link: ")]  # unescaped
    assert notice.startswith("Link: 3 of its settings could not be used")
    assert "'h1000' is not allowed (did you mean h100-sxm?)" in notice
    assert "'llama-9' is not allowed (did you mean " in notice
    assert "'abc' is not allowed (a whole number from 1 to 1,000,000); kept 8" in notice
    # What was kept opens as the default scenario, and the notice is shown once.
    assert at.session_state["gpu"] == "h100-sxm" and at.session_state["cards"] == 8
    at.run()
    assert not [w for w in at.main.warning if w.value.startswith("Link: ")]


def test_a_good_link_shows_no_notice():
    at = open_page("overview", gpu="h200", cards="64")
    assert not [w for w in at.main.warning if w.value.startswith("Link: ")]
