"""Hypothesis over every flag of estimate and plan serve|train (issue 14), a CI sample.

Exit 0 or 2 only; on 2 one line naming a flag of the command; --json one JSON object holding every
value given (tests/fuzz_cli.py). ``python -m tests.fuzz_full`` draws 2,000 command lines a command.
"""

import pytest
from hypothesis import given, settings

from tests.fuzz_cli import COMMANDS, check_cli, command_lines, flags


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_line_exits_0_or_2_with_one_line_naming_the_flag(command):
    @settings(max_examples=50)
    @given(command_lines(command))
    def check(argv):
        assert check_cli(argv) == [], argv

    check()


def _names(command):
    return {flag for action in flags(command) for flag in action.option_strings}


def test_the_flags_are_read_from_the_parser():
    assert {"--cards", "--mfu", "--draft-tokens", "--catalog"} <= _names(("estimate",))
    assert {"--output-tokens-per-s", "--tpot-ms", "--own"} <= _names(("plan", "serve"))
    assert {"--tokens", "--budget", "--finetune"} <= _names(("plan", "train"))


def test_a_value_with_control_characters_is_refused_on_one_escaped_line():
    # Found by the full run: a GPU id holding \x1d (a line separator to str.splitlines) and a NUL
    # was echoed raw, so the refusal spread over two lines.
    argv = ["plan", "train", "--model", "gpt-3-175b", "--tokens", "1000", "--gpus", "p_\x1db\x00H"]
    assert check_cli(argv) == []
