import math

import pytest

from model.units import GB, GIB, format_count, format_duration, format_gb, parse_quantity


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("7e9", 7e9),
        ("7B", 7e9),
        ("7b", 7e9),
        ("2T", 2e12),
        ("1.5k", 1500.0),
        ("300", 300.0),
        ("70G", 70e9),
        (" 4M ", 4e6),
    ],
)
def test_parse_quantity_accepts_suffixes(text, value):
    assert parse_quantity(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["", "abc", "7X", "nan", "inf", "-inf", "1e999", "7BB", "B7"])
def test_parse_quantity_refuses_non_numbers(text):
    with pytest.raises(ValueError):
        parse_quantity(text)


def test_parse_quantity_refuses_booleans_and_non_finite_floats():
    with pytest.raises(ValueError):
        parse_quantity(True)
    with pytest.raises(ValueError):
        parse_quantity(math.nan)


def test_gigabyte_is_decimal_and_gibibyte_binary():
    assert GB == 1e9
    assert GIB == 1073741824


def test_format_count_writes_three_figures_with_a_t_b_m_or_k_suffix():
    assert format_count(15e12) == "15T"
    assert format_count(70.6e9) == "70.6B"
    assert format_count(500e6) == "500M"
    assert format_count(384_991) == "385k"  # issue 31: GPU-hours read at a glance, not 384,991
    assert format_count(12_345) == "12.3k"
    assert format_count(9_500) == "9,500"  # under ten thousand, in full
    assert format_count(999_999) == "1M"  # rounding never writes '1e+03k'
    assert format_count(1e16) == "10,000T"  # never an exponent: the Costs slider once read "1e+04T tokens"


def test_bytes_are_written_as_decimal_gigabytes_to_one_decimal():
    assert format_gb(139.8e9) == "139.8 GB"
    assert format_gb(6_841.5e9) == "6,841.5 GB"


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0.369, "369 ms"), (14.02, "14.0 s"), (119.9, "119.9 s"), (210.0, "3.5 min"), (7560.0, "2.1 h")],
)
def test_a_duration_is_written_in_the_unit_read_at_a_glance(seconds, text):
    assert format_duration(seconds) == text
