import pytest

from ui.controls import CONTROLS, load_from_url, save_to_url


def test_defaults_write_nothing_to_the_url():
    assert save_to_url({key: control.default for key, control in CONTROLS.items()}) == {}


def test_changed_values_round_trip_through_the_url():
    state = {key: control.default for key, control in CONTROLS.items()}
    state.update(cards=1024, params=70.0, precision="fp8", traffic=2.5e9)
    query = save_to_url(state)
    assert query == {"cards": "1024", "params": "70B", "precision": "fp8", "traffic": "2.5e+09"}
    values, warnings = load_from_url({k: [v] for k, v in query.items()})
    assert warnings == []
    assert values == {"cards": 1024, "params": 70.0, "precision": "fp8", "traffic": 2.5e9}


@pytest.mark.parametrize(
    ("query", "fragment"),
    [
        ({"cards": ["0"]}, "Cards: '0' is not allowed"),
        ({"cards": ["lots"]}, "Cards: 'lots' is not allowed"),
        ({"precision": ["fp3"]}, "Precision: 'fp3' is not allowed (did you mean fp32?)"),
        ({"precision": ["zzz"]}, "Precision: 'zzz' is not allowed (one of fp32, bf16"),
        ({"params": ["9T"]}, "Parameters: '9T' is not allowed"),
        ({"cards": ["8", "16"]}, "given 2 times; used the last"),
        ({"months": ["1" * 500]}, "Months: the value is longer than 100 characters; kept 24"),
        ({"bogus": ["1"]}, "unknown link setting 'bogus'"),
    ],
)
def test_a_bad_url_value_is_dropped_with_a_short_warning(query, fragment):
    _, warnings = load_from_url(query)
    assert any(fragment in w for w in warnings), warnings
    assert all(len(w) < 200 for w in warnings)


@pytest.mark.parametrize("key", list(CONTROLS))
@pytest.mark.parametrize("text", ["0x10", "nan", "1e309", "lots"])
def test_every_refused_value_says_what_its_control_allows(key, text):
    # Issue 14's fuzzing: text that is not a number said "(a valid value)" for every number control.
    _, warnings = load_from_url({key: [text]})
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith(f"{CONTROLS[key].label}: {text!r} is not allowed (")
    assert "a valid value" not in warnings[0]
    assert any(word in warnings[0] for word in (" from ", "one of", "comma list", "org/name")), warnings[0]


def test_a_card_count_between_steps_is_kept_and_a_size_snaps_to_the_nearest_step():
    values, _ = load_from_url({"cards": ["1000"], "params": ["65B"]})
    assert values == {"cards": 1000, "params": 70.0}


def test_streamlits_own_embed_keys_are_passed_over_without_a_warning():
    # Community Cloud embeds an app with ?embed=true; that link is not a bad link.
    values, warnings = load_from_url({"embed": ["true"], "embed_options": ["dark_theme"]})
    assert values == {} and warnings == []


SCENARIO_FIELDS = {
    "cards": "cards",
    "rank": "lora_rank",
    "prompt": "prompt_len",
    "output": "output_len",
    "seq": "seq_len",
    "price": "price_per_gpu_hour",
    "util": "utilization",
    "accept": "draft_acceptance",
}
"""Controls that set a scenario field, and the field whose range model.limits defines."""


@pytest.mark.parametrize(("key", "field"), SCENARIO_FIELDS.items())
def test_a_scenario_fields_control_takes_no_value_the_engine_refuses(key, field):
    from model import FLOAT_LIMITS, INT_LIMITS

    low, high = CONTROLS[key].bounds
    engine_low, engine_high = INT_LIMITS[field] if field in INT_LIMITS else FLOAT_LIMITS[field][:2]
    assert engine_low <= low < high <= engine_high
    # The link accepts the control's whole range and nothing past it.
    assert CONTROLS[key].parse(f"{high:g}") == pytest.approx(high)
    with pytest.raises(ValueError):
        CONTROLS[key].parse(f"{high * 2:g}")


def test_whole_number_fields_take_the_engines_full_range_from_a_link():
    from model import INT_LIMITS

    for key in ("cards", "rank", "prompt", "output"):
        assert CONTROLS[key].bounds == INT_LIMITS[SCENARIO_FIELDS[key]]


def test_no_number_widget_writes_its_own_range():
    # Ranges have one home (the Control, which reads model.limits for scenario fields): a widget
    # that writes min/max literals would drift from what its link accepts.
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    offenders = []
    for path in [*root.glob("app_pages/*/*.py"), *root.glob("ui/*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) in ("number_input", "slider"):
                literal = [arg for arg in node.args[1:3] if isinstance(arg, ast.Constant)]
                literal += [kw for kw in node.keywords if kw.arg in ("min_value", "max_value")]
                if literal:
                    offenders.append(f"{path.relative_to(root)}:{node.lineno}")
    assert offenders == []


@pytest.mark.parametrize(
    ("key", "typed", "meant"),
    [("gpu", "h1000", "h100-sxm"), ("gpu", "H200", "h200"), ("gpu", "rtx4090", "rtx-4090"), ("goal", "sevre", "serve")],
)
def test_a_mistyped_id_names_the_nearest_valid_one(key, typed, meant):
    _, warnings = load_from_url({key: [typed]})
    assert f"did you mean {meant}?" in warnings[0]


def test_an_id_far_from_every_valid_one_lists_what_is_allowed_instead():
    _, warnings = load_from_url({"gpu": ["zzzzzz"]})
    assert "did you mean" not in warnings[0] and "(one of " in warnings[0]
