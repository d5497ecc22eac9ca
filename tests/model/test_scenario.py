"""The scenario: validation that names the field, and resolution that fills every default."""

import math

import pytest

from model import MAX_BATCH, Scenario, ScenarioError, default_catalog, resolve
from model.scenario import CHINCHILLA_TOKENS_PER_PARAM, DEFAULT_FINETUNE_TOKENS, trains_adapters

CATALOG = default_catalog()


def test_defaults_are_filled_in_from_the_catalog_and_the_published_rules():
    r = resolve(Scenario(model="llama-3.1-8b", gpu="h100-sxm", cards=16), CATALOG)
    assert r.tokens == pytest.approx(CHINCHILLA_TOKENS_PER_PARAM * r.arch.stats.total_params)
    assert r.seq_len == 4096
    assert r.scale_up.id == r.gpu.scale_up and r.network.id == r.gpu.network
    assert r.gpus_per_node == 8
    assert r.price_per_gpu_hour == r.gpu.cloud_usd_per_gpu_hour
    assert r.kv_precision == "bf16"


def test_fine_tuning_defaults_to_a_small_token_budget():
    r = resolve(Scenario(model="llama-3.1-8b", finetune="lora"), CATALOG)
    assert r.tokens == DEFAULT_FINETUNE_TOKENS


def test_given_values_win_over_defaults():
    r = resolve(Scenario(tokens=1e9, seq_len=2048, price_per_gpu_hour=1.5, kv_precision="fp8"), CATALOG)
    assert (r.tokens, r.seq_len, r.price_per_gpu_hour, r.kv_precision) == (1e9, 2048, 1.5, "fp8")


def test_fp8_and_fp4_weights_get_an_fp8_cache_and_weight_only_formats_a_16_bit_one():
    kv = {p: resolve(Scenario(precision=p), CATALOG).kv_precision for p in ("fp8", "fp4", "int8", "int4", "fp16")}
    assert kv == {"fp8": "fp8", "fp4": "fp8", "int8": "bf16", "int4": "bf16", "fp16": "fp16"}


def test_a_node_is_never_larger_than_the_cards():
    assert resolve(Scenario(cards=2), CATALOG).gpus_per_node == 2


def test_only_lora_and_qlora_train_adapters():
    assert [mode for mode in ("none", "full", "lora", "qlora") if trains_adapters(mode)] == ["lora", "qlora"]


def test_shapes_alone_describe_a_model_of_about_twelve_h_squared_per_layer():
    r = resolve(Scenario(model=None, layers=24, hidden=2048), CATALOG)
    assert (r.arch.layers, r.arch.hidden) == (24, 2048)
    body = 12 * 24 * 2048**2
    embeddings = 2 * r.arch.vocab * 2048
    assert r.arch.stats.total_params == pytest.approx(body + embeddings, rel=0.05)


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"cards": 0}, "cards"),
        ({"cards": -8}, "cards"),
        ({"cards": 2.5}, "cards"),
        ({"mfu": math.nan}, "mfu"),
        ({"mfu": 1.5}, "mfu"),
        ({"utilization": 0.0}, "utilization"),
        ({"tokens": math.inf}, "tokens"),
        ({"price_per_gpu_hour": -1.0}, "price_per_gpu_hour"),
        ({"batch": 0}, "batch"),
        ({"batch": MAX_BATCH + 1}, "batch"),
        ({"batch": "most"}, "batch"),
        ({"precision": "int3"}, "precision"),
        ({"recompute": "some"}, "recompute"),
        ({"zero": 4}, "zero"),
        ({"zero": True}, "zero"),
        ({"gpu": "h900"}, "gpu"),
        ({"model": "llama-9"}, "model"),
        ({"interconnect": "nvlink9"}, "interconnect"),
        ({"model": None}, "model"),
        ({"model": None, "params": 7e9, "heads": 32, "kv_heads": 5}, "kv_heads"),
        ({"model": None, "params": 7e9, "hidden": 4096, "heads": 30}, "heads"),
        ({"experts": 8, "active_experts": 9}, "active_experts"),
    ],
)
def test_a_bad_value_is_refused_naming_its_field_and_what_is_allowed(settings, field):
    with pytest.raises(ScenarioError) as caught:
        resolve(Scenario(**settings), CATALOG)
    assert caught.value.field == field
    assert caught.value.allowed
    assert str(caught.value).startswith(f"{field}: ")


def test_the_layout_knobs_are_left_to_the_search_unless_given():
    s = Scenario()
    assert (s.tp, s.pp, s.dp, s.ep, s.zero, s.micro_batch, s.vp, s.global_batch) == (None,) * 8
    assert resolve(Scenario(micro_batch=2, vp=2), CATALOG).scenario.micro_batch == 2


@pytest.mark.parametrize(
    ("field", "good", "bad"), [("cards", 1, True), ("cards", 8, 8.0), ("batch", 1, 1.0), ("tp", 1, True)]
)
def test_a_value_equal_to_a_valid_one_is_still_checked(field, good, bad):
    # True == 1 and 8.0 == 8, so the scenarios compare (and hash) equal: the memo of looked-up
    # scenarios must not let the second one through.
    resolve(Scenario(**{field: good}), CATALOG)
    assert Scenario(**{field: good}) == Scenario(**{field: bad})
    with pytest.raises(ScenarioError) as caught:
        resolve(Scenario(**{field: bad}), CATALOG)
    assert caught.value.field == field


def test_a_resolved_scenario_is_the_one_asked_about_even_when_an_equal_one_came_first():
    first, second = Scenario(tokens=2e12), Scenario(tokens=2e12)
    assert resolve(first, CATALOG).scenario is first
    again = resolve(second, CATALOG)
    assert again.scenario is second
    assert again._replace(scenario=first) == resolve(first, CATALOG)


def test_an_unknown_id_is_refused_every_time():
    for _ in range(2):
        with pytest.raises(ScenarioError) as caught:
            resolve(Scenario(gpu="no-such-gpu"), CATALOG)
        assert caught.value.field == "gpu"


def test_a_scenario_hashes_by_its_values_and_a_copy_hashes_afresh():
    import dataclasses
    import pickle

    first, second = Scenario(cards=8, tokens=1e12), Scenario(cards=8, tokens=1e12)
    assert hash(first) == hash(second)
    changed = dataclasses.replace(first, cards=16)
    assert changed != first
    assert hash(changed) == hash(Scenario(cards=16, tokens=1e12))
    copy = pickle.loads(pickle.dumps(first))
    assert copy == first
    assert copy._hash is None  # rebuilt from its values, not carrying another process's hash
    assert hash(copy) == hash(first)
    assert "_hash" not in first.to_dict()


def test_an_unhashable_value_is_refused_naming_its_field():
    # A scenario is hashed when it is first looked up, after validation: a bad value never
    # becomes a TypeError.
    with pytest.raises(ScenarioError) as caught:
        resolve(Scenario(cards=[8]), CATALOG)  # type: ignore[arg-type]
    assert caught.value.field == "cards"


@pytest.mark.parametrize(("fixed", "field"), [({"pp": 17}, "pp"), ({"pp": 8, "vp": 4}, "pp"), ({"vp": 17}, "vp")])
def test_a_pipeline_deeper_than_the_layers_is_refused_naming_the_field(fixed, field):
    with pytest.raises(ScenarioError) as raised:
        resolve(Scenario(model="llama-3.2-1b", cards=32, **fixed), CATALOG)  # 16 layers
    assert raised.value.field == field and "16 layers" in str(raised.value)
