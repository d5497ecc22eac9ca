"""The command line: ``python -m model estimate ...``, ``plan serve|train ...``, ``list ...`` and ``validate``.

Bad input exits with status 2 and one line naming the flag, the value and what is allowed;
never a traceback. Numbers accept 7e9, 7B, 2T, 1.5k.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from model.catalog import CatalogError, default_catalog, load_user_catalog
from model.commands.listing import LISTS, catalog_table
from model.commands.summary import summary
from model.estimate import estimate
from model.limits import ScenarioError
from model.precision import KV_PRECISIONS, PRECISIONS
from model.scenario import (
    FINETUNE_MODES,
    MAX_BATCH,
    OPTIMIZERS,
    RECOMPUTE_MODES,
    SCENARIO_FIELDS,
    Scenario,
)
from model.units import parse_quantity

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _count(kind: str, minimum: float, maximum: float) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = parse_quantity(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a number; expected {kind} (e.g. 7e9, 7B, 2T, 1.5k)"
            ) from None
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(
                f"{text!r} is out of range; expected {kind} from {minimum:g} to {maximum:g}"
            )
        return value

    return parse


def _whole(kind: str, minimum: int, maximum: int) -> Callable[[str], int]:
    counted = _count(kind, minimum, maximum)

    def parse(text: str) -> int:
        value = counted(text)
        if value != int(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number; expected {kind}")
        return int(value)

    return parse


def _fraction(text: str) -> float:
    try:
        value = parse_quantity(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; expected a fraction between 0 and 1") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} is out of range; expected a fraction above 0 and at most 1")
    return value


def _batch(text: str) -> int | str:
    if text.strip().lower() == "max":
        return "max"
    return _whole("a batch size or max", 1, MAX_BATCH)(text)


def _price(text: str) -> float:
    return _count("a price in dollars per GPU-hour", 0, 10_000)(text)


def _add_estimate_flags(p: argparse.ArgumentParser) -> None:
    model = p.add_argument_group("model")
    which = model.add_mutually_exclusive_group()
    which.add_argument("--model", metavar="ID", help="a preset id (python -m model list models)")
    which.add_argument(
        "--params",
        type=_count("a parameter count", 1e6, 1e14),
        metavar="N",
        help="a bare parameter count; a Llama-style architecture is derived",
    )
    for flag, limit in (
        ("layers", 2048),
        ("hidden", 1_000_000),
        ("heads", 4096),
        ("kv-heads", 4096),
        ("head-dim", 65_536),
        ("ffn", 10_000_000),
        ("vocab", 10_000_000),
        ("experts", 100_000),
        ("active-experts", 100_000),
    ):
        model.add_argument(f"--{flag}", type=_whole(f"a {flag} count", 1, limit), metavar="N")
    model.add_argument("--mlp", choices=("gated", "plain"), help="SwiGLU (3 matrices) or GELU (2)")
    model.add_argument(
        "--tied-embeddings", choices=("true", "false"), help="whether the LM head shares the input embedding"
    )
    hw = p.add_argument_group("hardware")
    hw.add_argument("--gpu", metavar="ID", help="a GPU id (python -m model list gpus)")
    hw.add_argument("--cards", type=_whole("a card count", 1, 1_000_000), metavar="N")
    hw.add_argument("--gpus-per-node", type=_whole("a node size", 1, 100_000), metavar="N")
    hw.add_argument("--interconnect", metavar="ID", help="scale-up link inside a node")
    hw.add_argument("--network", metavar="ID", help="scale-out network between nodes")
    hw.add_argument("--precision", choices=PRECISIONS, metavar="|".join(PRECISIONS))
    hw.add_argument("--kv-precision", choices=KV_PRECISIONS, metavar="|".join(KV_PRECISIONS))
    hw.add_argument("--catalog", metavar="FILE", help="a YAML file of extra gpus: and models: rows")
    hw.add_argument("--price-per-gpu-hour", type=_price, metavar="F")
    tr = p.add_argument_group("training")
    tr.add_argument("--tokens", type=_count("a token count", 1, 1e16), metavar="N")
    tr.add_argument("--seq-len", type=_whole("a sequence length", 1, 100_000_000), metavar="N")
    tr.add_argument("--global-batch", type=_whole("sequences per step", 1, 100_000_000), metavar="N")
    tr.add_argument("--micro-batch", type=_whole("sequences per micro-batch", 1, 1_000_000), metavar="N")
    for flag in ("tp", "pp", "dp", "ep"):
        tr.add_argument(f"--{flag}", type=_whole(f"a {flag} degree", 1, 1_000_000), metavar="N")
    tr.add_argument("--zero", type=int, choices=(0, 1, 2, 3), metavar="0-3")
    tr.add_argument("--vp", type=_whole("interleaved stages per pipeline rank", 1, 1024), metavar="N")
    tr.add_argument(
        "--recompute", choices=RECOMPUTE_MODES, metavar="|".join(RECOMPUTE_MODES),
        help="selective: per-op checkpointing with flash attention (half the products rerun), the attention "
        "core without it; full: every layer's forward again (default: the layout search chooses)",
    )  # fmt: skip
    tr.add_argument(
        "--recompute-layers", type=_whole("layers per stage to recompute", 1, 2048), metavar="N",
        help="recompute only N of each pipeline stage's layers in full",
    )  # fmt: skip
    tr.add_argument("--optimizer", choices=OPTIMIZERS, metavar="|".join(OPTIMIZERS))
    tr.add_argument("--finetune", choices=FINETUNE_MODES, metavar="|".join(FINETUNE_MODES))
    tr.add_argument("--lora-rank", type=_whole("a LoRA rank", 1, 65_536), metavar="N")
    tr.add_argument("--mfu", type=_fraction, metavar="F", help="fix the model FLOPs utilisation")
    tr.add_argument("--no-master-weights", action="store_true", help="pure 16-bit training")
    tr.add_argument("--no-flash-attention", action="store_true")
    inf = p.add_argument_group("inference")
    inf.add_argument(
        "--batch", type=_batch, metavar="N|max",
        help="concurrent sequences on each serving replica (the estimate serves dp replicas, so dp x N in all; "
        "pin --tp to put every card in one, or give --concurrency for users over all the cards), or max: as many "
        "as fit",
    )  # fmt: skip
    inf.add_argument(
        "--concurrency", type=_whole("sequences in flight over all replicas", 1, MAX_BATCH), metavar="N",
        help="sequences in flight over every replica, as a benchmark's --max-concurrency sets: each replica "
        "serves its share (instead of --batch)",
    )  # fmt: skip
    inf.add_argument("--prompt-len", type=_whole("a prompt length", 1, 100_000_000), metavar="N")
    inf.add_argument("--output-len", type=_whole("an output length", 1, 100_000_000), metavar="N")
    inf.add_argument("--utilization", type=_fraction, metavar="F")
    inf.add_argument(
        "--target-tpot-s", type=_count("seconds per output token", 1e-5, 1e3), metavar="F",
        help="the slowest time per output token a full-load replica may give (e.g. 0.05)",
    )  # fmt: skip
    inf.add_argument(
        "--draft-tokens", type=_whole("drafted tokens per step", 0, 16), metavar="N",
        help="speculative decoding: tokens drafted and verified per step (0: off)",
    )  # fmt: skip
    inf.add_argument("--draft-acceptance", type=_fraction, metavar="F", help="chance a drafted token is accepted")
    inf.add_argument(
        "--attention-dp", type=_whole("cards of attention data parallelism", 1, 4096), metavar="N",
        help="serve a mixture of experts attention-data-parallel over N cards, experts split over them (1: never)",
    )  # fmt: skip
    p.add_argument("--json", action="store_true", help="print one JSON object")


_FLAGGED = frozenset({"tied_embeddings", "master_weights", "flash_attention"})
"""Scenario fields whose flags are not their values (true/false text, --no-... switches)."""
_FIELDS = tuple(name for name in SCENARIO_FIELDS if name not in _FLAGGED)


def scenario_from_args(args: argparse.Namespace) -> Scenario:
    """Build a Scenario from parsed flags; flags not given keep the Scenario defaults."""
    given: dict[str, Any] = {name: getattr(args, name) for name in _FIELDS if getattr(args, name, None) is not None}
    if args.params is not None or (args.layers is not None and args.hidden is not None and args.model is None):
        given.setdefault("model", None)
    if args.tied_embeddings is not None:
        given["tied_embeddings"] = args.tied_embeddings == "true"
    if args.no_master_weights:
        given["master_weights"] = False
    if args.no_flash_attention:
        given["flash_attention"] = False
    return Scenario(**given)


def _finite(value: Any) -> Any:
    """Replace non-finite floats (never expected) with None so the JSON stays valid."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _validate(*, as_json: bool) -> None:
    """Print the validation report, as text or one JSON object."""
    # Imported here: only this command reads the reference measurements.
    from model.validation import validate
    from model.validation.report import format_report

    report = validate()
    print(json.dumps(report.to_dict(), allow_nan=False) if as_json else format_report(report))


def build_parser() -> argparse.ArgumentParser:
    """Return the parser for ``python -m model``."""
    parser = _Parser(prog="python -m model", description="Estimate LLM training and serving on GPUs.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _add_estimate_flags(commands.add_parser("estimate", help="estimate one scenario"))
    lister = commands.add_parser("list", help="list a catalog")
    lister.add_argument("kind", choices=LISTS, metavar="|".join(LISTS))
    lister.add_argument("--catalog", metavar="FILE")
    lister.add_argument("--json", action="store_true")
    validator = commands.add_parser("validate", help="compare the engine with published measurements")
    validator.add_argument("--json", action="store_true")
    from model.commands.plan import add_plan_parser  # late: it reuses this module's number parsers

    add_plan_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        catalog = default_catalog()
        if getattr(args, "catalog", None):
            catalog = catalog.merged(load_user_catalog(args.catalog))
        if args.command == "list":
            print(catalog_table(args.kind, catalog, args.json))
            return 0
        if args.command == "validate":
            _validate(as_json=args.json)
            return 0
        if args.command == "plan":
            from model.commands.plan import run_plan

            return run_plan(args, catalog)
        result = estimate(scenario_from_args(args), catalog)
    except ScenarioError as error:
        flag = "--" + error.field.replace("_", "-")
        parser.exit(2, f"{parser.prog}: error: argument {flag}: {str(error).split(': ', 1)[1]}\n")
    except CatalogError as error:
        parser.exit(2, f"{parser.prog}: error: argument --catalog: {error}\n")
    if args.json:
        print(json.dumps(_finite(result.to_dict()), allow_nan=False))
    else:
        print(summary(result, catalog))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
