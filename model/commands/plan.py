"""``python -m model plan serve|train``: the planner (:mod:`model.analyses.plan`) on the command line.

Bad targets exit 2 with one line naming the flag, as ``estimate`` does (the caller maps
:class:`ScenarioError` to that line).
"""

from __future__ import annotations

import argparse
import json
from typing import Any, cast

from model.analyses.plan import Plan, plan_serving, plan_training
from model.catalog import Catalog
from model.commands.flags import finite, quantity, scenario_number, scenario_whole
from model.precision import PRECISIONS, Precision
from model.pricing import Owning
from model.scenario import FINETUNE_MODES, Scenario

__all__ = ["add_plan_parser", "run_plan"]

_DEFAULTS = Scenario()
"""A scenario's defaults (prompt and output lengths), which the planner's flags share."""
_SHOWN = 10
"""Options printed as text (--json gives them all)."""


def _precisions(text: str) -> tuple[Precision, ...]:
    chosen = tuple(part.strip() for part in text.split(",") if part.strip())
    unknown = [part for part in chosen if part not in PRECISIONS]
    if not chosen or unknown:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a comma list of {', '.join(PRECISIONS)}")
    return cast("tuple[Precision, ...]", chosen)


def _common(parser: argparse.ArgumentParser) -> None:
    model = parser.add_mutually_exclusive_group()
    model.add_argument("--model", metavar="ID", default="llama-3.1-8b", help="a preset id")
    model.add_argument("--params", type=scenario_number("params", "a parameter count"), metavar="N")
    model.add_argument("--hf", metavar="ORG/NAME", help="a Hugging Face model id or link (see estimate --help)")
    parser.add_argument("--precision", type=_precisions, default=("bf16",), metavar="P[,P...]")
    parser.add_argument("--gpus", metavar="ID,ID,...", help="the GPUs to search (default: every one)")
    parser.add_argument("--max-cards", type=scenario_whole("cards", "a card count"), metavar="N")
    parser.add_argument(
        "--price-per-gpu-hour", type=scenario_number("price_per_gpu_hour", "dollars per GPU-hour"), metavar="F"
    )
    parser.add_argument("--own", action="store_true", help="price owned cards: purchase over --years plus power")
    parser.add_argument("--years", type=quantity("years", 0.5, 15), default=3.0, metavar="Y")
    parser.add_argument("--kwh", type=quantity("dollars per kWh", 0.0, 2.0), default=0.10, metavar="USD")
    parser.add_argument("--pue", type=quantity("a PUE", 1.0, 3.0), default=1.3, metavar="F")
    parser.add_argument("--catalog", metavar="FILE", help="a YAML file of extra gpus: and models: rows")
    parser.add_argument("--json", action="store_true")


def add_plan_parser(commands: Any) -> None:
    """Add ``plan serve`` and ``plan train`` to the command line's subcommands."""
    plan = commands.add_parser("plan", help="the cheapest GPU x cards x layout that meets a target")
    goals = plan.add_subparsers(dest="goal", required=True, parser_class=type(plan))
    serve = goals.add_parser("serve", help="serve N output tokens/s within latency targets")
    serve.add_argument("--output-tokens-per-s", type=quantity("output tokens per second", 1e-3, 1e12), required=True)
    serve.add_argument("--tpot-ms", type=quantity("milliseconds per output token", 1e-3, 1e7), metavar="X")
    serve.add_argument("--ttft-ms", type=quantity("milliseconds to the first token", 1e-3, 1e8), metavar="Y")
    serve.add_argument(
        "--prompt-len", type=scenario_whole("prompt_len", "a token count"), default=_DEFAULTS.prompt_len, metavar="N"
    )
    serve.add_argument(
        "--output-len", type=scenario_whole("output_len", "a token count"), default=_DEFAULTS.output_len, metavar="N"
    )
    _common(serve)
    train = goals.add_parser("train", help="train on N tokens within a deadline or a budget")
    train.add_argument("--tokens", type=quantity("a token count", 1e3, 1e16), required=True, metavar="N")
    train.add_argument("--days", type=quantity("a number of days", 1e-6, 1e5), metavar="D")
    train.add_argument("--budget", type=quantity("dollars", 1e-6, 1e13), metavar="USD")
    train.add_argument("--finetune", choices=FINETUNE_MODES, default="none")
    train.add_argument("--seq-len", type=scenario_whole("seq_len", "a token count"), metavar="N")
    _common(train)


def _plan(args: argparse.Namespace, catalog: Catalog) -> Plan:
    model = None if args.params else args.model
    gpus = [part.strip() for part in args.gpus.split(",") if part.strip()] if args.gpus else None
    owning = Owning(years=args.years, usd_per_kwh=args.kwh, pue=args.pue) if args.own else None
    if args.goal == "serve":
        base = Scenario(model=model, params=args.params, prompt_len=args.prompt_len, output_len=args.output_len)
        return plan_serving(
            base,
            args.output_tokens_per_s,
            tpot_s=args.tpot_ms / 1e3 if args.tpot_ms else None,
            ttft_s=args.ttft_ms / 1e3 if args.ttft_ms else None,
            precisions=args.precision,
            gpus=gpus,
            max_cards=args.max_cards or 1024,
            price_per_gpu_hour=args.price_per_gpu_hour,
            owning=owning,
            catalog=catalog,
        )
    base = Scenario(model=model, params=args.params, tokens=args.tokens, finetune=args.finetune, seq_len=args.seq_len)
    return plan_training(
        base,
        days=args.days,
        budget_usd=args.budget,
        precisions=args.precision,
        gpus=gpus,
        max_cards=args.max_cards or 65_536,
        price_per_gpu_hour=args.price_per_gpu_hour,
        owning=owning,
        catalog=catalog,
    )


def _text(plan: Plan) -> str:
    lines = [f"{len(plan.options)} options meet the targets ({plan.estimates} estimates); cheapest first:"]
    for option in plan.options[:_SHOWN]:
        layout = option.layout
        shape = f"tp {layout['tp']} x pp {layout['pp']} x dp {layout['dp']}" + (
            f", ep {layout['ep']}" if layout["ep"] > 1 else ""
        )
        if plan.goal == "serve":
            figures = (
                f"${option.cost_per_hour_usd:,.2f}/h, {option.decode_tokens_per_s:,.0f} tokens/s, "
                f"TPOT {(option.tpot_s or 0) * 1e3:,.1f} ms, TTFT {(option.ttft_s or 0) * 1e3:,.0f} ms, "
                f"batch {option.batch} per replica"
            )
        else:
            figures = f"${option.cost_usd:,.0f}, {(option.time_s or 0) / 86_400:,.1f} days, ZeRO {layout['zero']}"
        lines.append(f"  {option.gpu:<14} {option.cards:>6,} cards  {option.precision:<5} {shape}: {figures}")
    if plan.excluded:
        lines.append("excluded:")
        lines += [f"  {gpu:<14} {why}" for gpu, why in plan.excluded.items()]
    return "\n".join(lines)


def run_plan(args: argparse.Namespace, catalog: Catalog) -> int:
    """Plan, print the options (text or one JSON object) and return the exit status."""
    plan = _plan(args, catalog)
    print(json.dumps(finite(plan.to_dict()), allow_nan=False) if args.json else _text(plan))
    return 0
