"""The sidebar's scenario: the training knobs a page sets, mapped onto the engine's fields."""

from ui.controls import CONTROLS
from ui.sidebar import training_settings


def test_a_tensor_parallel_degree_wider_than_the_cards_is_left_to_the_engine():
    # Issue 29: a tp chosen before the cards were lowered must not ask the engine for cards that are not there.
    state = {key: control.default for key, control in CONTROLS.items()}
    state.update(tp="8", cards=4)
    assert training_settings(state)["tp"] is None
    state.update(cards=8)
    assert training_settings(state)["tp"] == 8
