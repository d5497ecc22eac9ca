"""Hypothesis over every flag of ``python -m model estimate`` and ``plan serve|train`` (issue 14).

:func:`command_lines` draws command lines from the parser itself, so a new flag is fuzzed the day it
is added: each flag given or not, its value valid, at its limits or hostile (negative, NaN, inf,
huge, suffixed, text, unicode, empty, another flag), spelled ``--flag value`` or ``--flag=value``,
sometimes repeated, an unknown flag now and then. :func:`check_cli` runs ``model.cli.main`` in
process and returns the problems (none: it passed): the exit status is 0 or 2; on 2, stderr is one
line naming a flag of the command and stdout is empty; on 0 with ``--json`` the output is one JSON
object without NaN whose inputs hold every scenario value given (or a warning says why not).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import re
import traceback
from functools import cache
from typing import Any

from hypothesis import strategies as st

from model import default_catalog
from model.cli import build_parser
from tests.fuzz_uploads import _bounded
from tests.fuzzing import _HOSTILE
from tests.hf_server import OFFLINE

__all__ = ["COMMANDS", "check_cli", "command_lines"]

COMMANDS: tuple[tuple[str, ...], ...] = (("estimate",), ("plan", "serve"), ("plan", "train"))
_CATALOG = default_catalog()
_IDS = {
    "model": [*_CATALOG.models, "gpt-9"],
    "gpu": [*_CATALOG.gpus, "h9000"],
    "interconnect": [*_CATALOG.interconnects, "warp"],
    "network": [*_CATALOG.networks, "carrier-pigeon"],
}
_CATALOG_FILES = ["/no/such/file.yaml", "/dev/null", "/dev/zero", "/tmp", "", "data/gpus.yaml", "README.md"]
_CATALOG_FILES += ["\x00", "a\nb"]
"""--catalog values: missing, empty, endless, a folder, a real catalog (its ids clash), not YAML, NUL, newline."""
_HF_IDS = ["mistralai/Mistral-7B-v0.1", "https://huggingface.co/Qwen/Qwen3-14B", "gpt2", "a/b/c", "../x", "org/na me"]
"""--hf values: valid ids and links (fetched from a closed port: offline, exit 2) and malformed ones."""
_NUMBERS = st.one_of(
    st.integers(min_value=-(10**6), max_value=10**20).map(str),
    st.integers(min_value=0, max_value=64).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.floats(min_value=1e-6, max_value=1.0).map(repr),
    st.from_regex(r"-?[0-9]{1,5}(\.[0-9]{1,3})?(e[+-]?[0-9]{1,3})?[kMBGT]?", fullmatch=True),
    st.sampled_from(_HOSTILE[:40]),
    st.text(max_size=12),
)


@cache
def _subparser(command: tuple[str, ...]) -> argparse.ArgumentParser:
    parser = build_parser()
    for word in command:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = action.choices[word]
    return parser


@cache
def flags(command: tuple[str, ...]) -> tuple[argparse.Action, ...]:
    """The command's optional flags, ``--help`` aside."""
    return tuple(a for a in _subparser(command)._actions if a.option_strings and a.dest != "help")


_PLAUSIBLE = ("1", "2", "3", "8", "64", "1000", "0.5", "0.05", "0.9", "0", "1e3", "7B", "1T", "2.5k", "4096", "30")


@cache
def _valid_numbers(action: argparse.Action) -> tuple[str, ...]:
    """The plausible values the flag's own parser accepts (its range is inside the parser)."""
    valid = []
    for text in _PLAUSIBLE:
        try:
            action.type(text)  # type: ignore[misc]
        except (argparse.ArgumentTypeError, ValueError, TypeError):
            continue
        valid.append(text)
    return tuple(valid) or _PLAUSIBLE


def _value(action: argparse.Action) -> st.SearchStrategy[str]:
    """A value for ``action``: valid three times in four, else hostile."""
    hostile = st.sampled_from(_HOSTILE) | st.text(max_size=20) | _NUMBERS
    if action.dest == "catalog":
        valid: st.SearchStrategy[str] = st.sampled_from(_CATALOG_FILES)
    elif action.dest == "hf":
        valid = st.sampled_from(_HF_IDS)
    elif action.dest in _IDS:
        valid = st.sampled_from(_IDS[action.dest])
    elif action.dest == "gpus":
        valid = st.lists(st.sampled_from(_IDS["gpu"]), min_size=0, max_size=4).map(",".join)
    elif action.dest == "precision" and action.choices is None:  # plan: a comma list
        formats = ["fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4", "fp3"]
        valid = st.lists(st.sampled_from(formats), min_size=0, max_size=3).map(",".join)
    elif action.choices is not None:
        valid = st.sampled_from([str(choice) for choice in action.choices])
    else:
        valid = st.sampled_from(_valid_numbers(action))
    return st.integers(0, 3).flatmap(lambda roll: hostile if roll == 0 else valid)


@st.composite
def command_lines(draw: Any, command: tuple[str, ...]) -> list[str]:
    """Draw one command line for ``command`` (a tuple of its words)."""
    argv = list(command)
    chosen = draw(st.lists(st.sampled_from(flags(command)), max_size=8, unique_by=lambda a: a.dest))
    required = [a for a in flags(command) if a.required and a not in chosen and draw(st.floats(0, 1)) < 0.9]
    for action in [*required, *chosen]:
        flag = action.option_strings[0]
        if action.nargs == 0:
            argv.append(flag)
            continue
        for _ in range(draw(st.sampled_from([1, 1, 1, 1, 2]))):
            value = draw(_value(action))
            argv += [f"{flag}={value}"] if draw(st.booleans()) else [flag, value]
    if draw(st.floats(0, 1)) < 0.05:
        argv.append(draw(st.sampled_from(["--bogus", "--cards", "-x", "extra", "--json=1"])))
    return argv


def _run(argv: list[str]) -> tuple[Any, str, str]:
    out, err = io.StringIO(), io.StringIO()
    from model.cli import main

    os.environ["HF_ENDPOINT"] = OFFLINE  # an --hf id never leaves the machine, under pytest or not
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code: Any = main(argv)
        except SystemExit as done:
            code = done.code
    return code, out.getvalue(), err.getvalue()


def _no_nan(text: str) -> float:
    raise ValueError(f"{text} in the JSON")


def _kept(argv: list[str], document: dict[str, Any]) -> list[str]:
    """Every scenario value given on the command line is in the estimate's inputs, or a warning says why not."""
    args = build_parser().parse_args(argv)
    inputs = document.get("inputs", {})
    problems = []
    for action in flags(("estimate",)):
        given, shown = getattr(args, action.dest, None), inputs.get(action.dest, "absent")
        if given is None or action.nargs == 0 or shown == "absent" or action.dest in ("params", "tied_embeddings"):
            continue
        same = math.isclose(given, shown, rel_tol=1e-9) if isinstance(shown, float) else given == shown
        said = any(action.dest.replace("_", " ") in warning for warning in document.get("warnings", []))
        if not same and not said:  # a value the engine had to change is said in a warning
            problems.append(f"{action.option_strings[0]} {given!r} became {shown!r} in the inputs")
    return problems


def check_cli(argv: list[str], limit_s: float = 30.0) -> list[str]:
    """Return the problems ``python -m model <argv>`` shows (none: it passed)."""
    ran, problems = _bounded(lambda: _run(argv), limit_s)
    if problems:
        return problems
    code, out, err = ran
    if code not in (0, 2):
        return [f"exit status {code!r}: {err[-300:]}"]
    if "Traceback" in out + err:
        return ["a traceback was printed"]
    if code == 2:
        lines = err.strip().splitlines()
        command = tuple(argv[:2] if argv[0] == "plan" else argv[:1])
        known = {flag for action in flags(command) for flag in action.option_strings}
        named = set(re.findall(r"(--[a-z][a-z0-9-]*)", err))
        unrecognized = err.partition("unrecognized arguments: ")[2].split()
        if len(lines) != 1 or out:
            problems.append(f"exit 2 with {len(lines)} lines on stderr, {len(out)} characters on stdout: {err[:300]}")
        elif unrecognized and not set(unrecognized) <= set(argv):
            problems.append(f"the error names arguments not given: {err.strip()[:300]}")
        elif not unrecognized and (not named or not named <= known | set(argv)):
            problems.append(f"the error names no flag of the command: {err.strip()[:300]}")
        return problems
    if not out.strip():
        problems.append("exit 0 printed nothing")
    elif "--json" in argv:
        try:
            document = json.loads(out, parse_constant=_no_nan)
        except ValueError as error:
            return [f"--json printed no JSON object: {error}"[:300]]
        if argv[0] == "estimate":
            problems += _kept(argv, document)
    return problems


def traced(argv: list[str]) -> str:
    """The traceback of a case that raised, for a report."""
    try:
        _run(argv)
    except Exception:
        return traceback.format_exc(limit=-4)
    return ""
