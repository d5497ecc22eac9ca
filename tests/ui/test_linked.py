"""Added rows and saved scenarios packed into a link, and links that try to abuse it."""

import base64
import json
import zlib

import pytest

from model import Scenario, default_catalog
from ui.linked import MAX_PACKED_CHARS, linked_values, pack, saved_from_link, take_linked, unpack

ROW = """gpus:
  - id: my-card
    name: My Card
    memory_gb: 48
    memory_bandwidth_gb_per_s: 1000
    dense_tflops: {bf16: 200}
    source: "my own datasheet"
"""


def test_packing_round_trips_and_is_compact():
    token = pack(ROW)
    assert unpack(token) == ROW
    assert len(token) < 1.2 * len(ROW)  # zlib pays for base64: a row costs about its own length
    assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


@pytest.mark.parametrize(
    "token",
    [
        "x" * (MAX_PACKED_CHARS + 1),  # too long
        "not base64!",  # outside the alphabet
        "AAAA",  # base64, not zlib
        base64.urlsafe_b64encode(zlib.compress(b"\0" * 10_000_000, 9)).decode().rstrip("="),  # a zip bomb
        base64.urlsafe_b64encode(zlib.compress(b"\xff\xfe", 9)).decode().rstrip("="),  # not UTF-8
    ],
)
def test_a_bad_packed_value_is_refused_with_a_reason(token):
    with pytest.raises(ValueError):
        unpack(token)


def test_saved_scenarios_travel_and_bad_ones_are_dropped_by_name():
    good = {"label": "mine", "scenario": Scenario(model="llama-3.1-70b", cards=64).to_dict()}
    bad = {"label": "broken", "scenario": {"model": "llama-3.1-70b", "cards": -3}}
    unknown = {"label": "odd", "scenario": {"colour": "blue"}}
    values = linked_values(None, [good, bad, unknown])
    kept, dropped = saved_from_link(unpack(values["saved"]), default_catalog(), 4)
    assert [entry["label"] for entry in kept] == ["mine"]
    assert kept[0]["scenario"]["cards"] == 64
    assert len(dropped) == 2 and all("dropped" in message for message in dropped)
    assert saved_from_link(json.dumps({"a": 1}), default_catalog(), 4)[0] == []


def test_nothing_to_carry_adds_nothing_and_the_keys_are_taken_from_the_query():
    assert linked_values(None, []) == {}
    query = {"rows": ["a", "b"], "model": ["x"]}
    assert take_linked(query) == {"rows": "b"}
    assert query == {"model": ["x"]}
