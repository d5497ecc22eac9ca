"""A machine for a desk is one machine: the card count a GPU means when none is named (one rule, two surfaces)."""

from model import DEFAULT_CARDS, default_cards, default_catalog
from model.cli import main
from tests.app.conftest import open_page

CATALOG = default_catalog()


def _cards_slider(at):
    return next(slider for slider in at.sidebar.select_slider if slider.key == "cards")


def test_a_desk_machine_means_one_and_a_data_centre_gpu_a_node():
    assert default_cards(CATALOG.gpus["apple-m3-max"]) == 1
    assert default_cards(CATALOG.gpus["nvidia-dgx-spark"]) == 1
    assert default_cards(CATALOG.gpus["h100-sxm"]) == DEFAULT_CARDS == 8
    assert default_cards(CATALOG.gpus["rtx-4090"]) == 8  # rented in boxes of eight, as the catalog says


def test_the_command_line_and_the_page_open_a_mac_on_one_card(capsys):
    main(["estimate", "--gpu", "apple-m3-max", "--precision", "q4_k_m", "--batch", "1"])
    printed = capsys.readouterr().out
    assert " on 1 x Apple M3 Max" in printed
    at = open_page("overview", gpu="apple-m3-max", precision="q4_k_m")
    assert at.session_state["cards"] == 1
    assert "on 1 × Apple M3 Max" in at.title[0].value or "on 1 × Apple M3 Max" in at.markdown[0].value


def test_a_count_the_user_gives_is_kept_on_a_desk_machine(capsys):
    main(["estimate", "--gpu", "apple-m3-max", "--cards", "2", "--precision", "q4_k_m", "--batch", "1"])
    assert " on 2 x Apple M3 Max" in capsys.readouterr().out
    assert open_page("overview", gpu="apple-m3-max", cards="2").session_state["cards"] == 2


def test_the_count_follows_the_machine_while_it_sits_at_the_default():
    at = open_page("overview")
    assert at.session_state["cards"] == 8
    at.sidebar.selectbox(key="gpu").set_value("apple-m3-max").run()
    assert at.session_state["cards"] == 1 and _cards_slider(at).value == 1
    at.sidebar.selectbox(key="gpu").set_value("h200").run()
    assert at.session_state["cards"] == 8


def test_a_chosen_count_stays_when_the_gpu_changes():
    at = open_page("overview")
    _cards_slider(at).set_value(16).run()
    at.sidebar.selectbox(key="gpu").set_value("apple-m3-max").run()
    assert at.session_state["cards"] == 16
