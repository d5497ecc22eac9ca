"""The command line: ``python -m model estimate ...``, ``plan serve|train ...``, ``list ...`` and ``validate``.

Bad input exits with status 2 and one line naming the flag, the value and what is allowed;
never a traceback. Numbers accept 7e9, 7B, 2T, 1.5k.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from model.catalog import STACK_IDS, CatalogError, default_catalog, load_user_catalog
from model.catalog.hf_hub import HfError, HfModel, fetch_hf_model
from model.commands.flags import batch, finite, fraction, host_bandwidth, scenario_number, scenario_whole
from model.commands.listing import LISTS, catalog_table
from model.commands.plan import add_plan_parser, run_plan
from model.commands.summary import summary
from model.estimate import estimate
from model.limits import ScenarioError
from model.precision import KV_PRECISIONS, PRECISIONS
from model.scenario import (
    FINETUNE_MODES,
    OFFLOAD_MODES,
    OPTIMIZERS,
    RECOMPUTE_MODES,
    SCENARIO_FIELDS,
    Scenario,
    default_cards,
)

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


_HF_HELP = (
    "a Hugging Face model id or link: its config.json is fetched from HF_ENDPOINT (default huggingface.co) "
    "with HF_TOKEN for gated models; offline, give --params or a --catalog row instead"
)


def _add_estimate_flags(p: argparse.ArgumentParser) -> None:
    model = p.add_argument_group("model")
    which = model.add_mutually_exclusive_group()
    which.add_argument("--model", metavar="ID", help="a preset id (python -m model list models)")
    which.add_argument(
        "--params",
        type=scenario_number("params", "a parameter count"),
        metavar="N",
        help="a bare parameter count; a Llama-style architecture is derived",
    )
    which.add_argument("--hf", metavar="ORG/NAME", help=_HF_HELP)
    for field in ("layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "experts", "active_experts"):
        flag = field.replace("_", "-")
        model.add_argument(f"--{flag}", type=scenario_whole(field, f"a {flag} count"), metavar="N")
    model.add_argument("--mlp", choices=("gated", "plain"), help="SwiGLU (3 matrices) or GELU (2)")
    model.add_argument(
        "--tied-embeddings", choices=("true", "false"), help="whether the LM head shares the input embedding"
    )
    hw = p.add_argument_group("hardware")
    hw.add_argument("--gpu", metavar="ID", help="a GPU id (python -m model list gpus)")
    hw.add_argument(
        "--cards",
        type=scenario_whole("cards", "a card count"),
        metavar="N",
        help="how many cards (default: one node of 8; 1 on a machine for a desk, such as a Mac)",
    )
    hw.add_argument("--gpus-per-node", type=scenario_whole("gpus_per_node", "a node size"), metavar="N")
    hw.add_argument("--interconnect", metavar="ID", help="scale-up link inside a node")
    hw.add_argument("--network", metavar="ID", help="scale-out network between nodes")
    hw.add_argument("--precision", choices=PRECISIONS, metavar="|".join(PRECISIONS))
    hw.add_argument("--kv-precision", choices=KV_PRECISIONS, metavar="|".join(KV_PRECISIONS))
    hw.add_argument(
        "--stack", choices=STACK_IDS, metavar="|".join(STACK_IDS),
        help="the software that serves or trains (python -m model list stacks): its kernels, how it splits a "
        "model over cards and the training layout it sets; default typical, the engine as calibrated",
    )  # fmt: skip
    hw.add_argument("--catalog", metavar="FILE", help="a YAML file of extra gpus: and models: rows")
    hw.add_argument(
        "--price-per-gpu-hour",
        type=scenario_number("price_per_gpu_hour", "a price in dollars per GPU-hour"),
        metavar="F",
    )
    tr = p.add_argument_group("training")
    tr.add_argument("--tokens", type=scenario_number("tokens", "a token count"), metavar="N")
    tr.add_argument("--seq-len", type=scenario_whole("seq_len", "a sequence length"), metavar="N")
    tr.add_argument("--global-batch", type=scenario_whole("global_batch", "sequences per step"), metavar="N")
    tr.add_argument("--micro-batch", type=scenario_whole("micro_batch", "sequences per micro-batch"), metavar="N")
    for flag in ("tp", "pp", "dp", "ep"):
        tr.add_argument(f"--{flag}", type=scenario_whole(flag, f"a {flag} degree"), metavar="N")
    tr.add_argument("--zero", type=int, choices=(0, 1, 2, 3), metavar="0-3")
    tr.add_argument("--vp", type=scenario_whole("vp", "interleaved stages per pipeline rank"), metavar="N")
    tr.add_argument(
        "--recompute", choices=RECOMPUTE_MODES, metavar="|".join(RECOMPUTE_MODES),
        help="selective: per-op checkpointing with flash attention (half the products rerun), the attention "
        "core without it; full: every layer's forward again (default: the layout search chooses)",
    )  # fmt: skip
    tr.add_argument(
        "--recompute-layers", type=scenario_whole("recompute_layers", "layers per stage to recompute"), metavar="N",
        help="recompute only N of each pipeline stage's layers in full",
    )  # fmt: skip
    tr.add_argument("--optimizer", choices=OPTIMIZERS, metavar="|".join(OPTIMIZERS))
    tr.add_argument("--finetune", choices=FINETUNE_MODES, metavar="|".join(FINETUNE_MODES))
    tr.add_argument("--lora-rank", type=scenario_whole("lora_rank", "a LoRA rank"), metavar="N")
    tr.add_argument("--mfu", type=fraction, metavar="F", help="fix the model FLOPs utilisation")
    tr.add_argument("--no-master-weights", action="store_true", help="pure 16-bit training")
    tr.add_argument("--no-flash-attention", action="store_true")
    inf = p.add_argument_group("inference")
    inf.add_argument(
        "--batch", type=batch, metavar="N|max",
        help="concurrent sequences on each serving replica (the estimate serves dp replicas, so dp x N in all; "
        "pin --tp to put every card in one, or give --concurrency for users over all the cards), or max: as many "
        "as fit",
    )  # fmt: skip
    inf.add_argument(
        "--concurrency", type=scenario_whole("concurrency", "sequences in flight over all replicas"), metavar="N",
        help="sequences in flight over every replica, as a benchmark's --max-concurrency sets: each replica "
        "serves its share (instead of --batch)",
    )  # fmt: skip
    inf.add_argument(
        "--requests", type=scenario_whole("requests", "requests in a batch job"), metavar="N",
        help="a batch job of N requests offered at once (an offline run over a prompt set): served in waves of "
        "what runs at once, throughput is the job's output over its time",
    )  # fmt: skip
    inf.add_argument("--prompt-len", type=scenario_whole("prompt_len", "a prompt length"), metavar="N")
    inf.add_argument("--output-len", type=scenario_whole("output_len", "an output length"), metavar="N")
    inf.add_argument("--utilization", type=fraction, metavar="F")
    inf.add_argument(
        "--target-tpot-s", type=scenario_number("target_tpot_s", "seconds per output token"), metavar="F",
        help="the slowest time per output token a full-load replica may give (e.g. 0.05)",
    )  # fmt: skip
    inf.add_argument(
        "--draft-tokens", type=scenario_whole("draft_tokens", "drafted tokens per step"), metavar="N",
        help="speculative decoding: tokens drafted and verified per step (0: off)",
    )  # fmt: skip
    inf.add_argument("--draft-acceptance", type=fraction, metavar="F", help="chance a drafted token is accepted")
    inf.add_argument(
        "--attention-dp", type=scenario_whole("attention_dp", "cards of attention data parallelism"), metavar="N",
        help="serve a mixture of experts attention-data-parallel over N cards, experts split over them (1: never)",
    )  # fmt: skip
    host = p.add_argument_group("host memory (serving offload)")
    host.add_argument(
        "--host-memory", "--host-memory-gb", dest="host_memory_gb", metavar="GB",
        type=scenario_number("host_memory_gb", "a host memory size in GB"),
        help="RAM of the machine the cards sit in: serving puts there what the cards cannot hold (llama.cpp's -ngl "
        "layers, or a mixture of experts' --n-cpu-moe experts); not given: nothing is offloaded",
    )  # fmt: skip
    host.add_argument(
        "--host-bandwidth", "--host-bandwidth-gb-s", dest="host_bandwidth_gb_s", metavar="GB/S|ddr5-5600x2",
        type=host_bandwidth,
        help="its bandwidth in GB/s, or a DDR4/DDR5 memory by channels (default: two channels of DDR5-5600, 89.6)",
    )  # fmt: skip
    host.add_argument(
        "--offload", choices=OFFLOAD_MODES, metavar="|".join(OFFLOAD_MODES),
        help="what goes to host memory when the cards cannot hold it (default auto: a mixture of experts' "
        "routed experts when the cards hold the rest, else whole layers); training never offloads",
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


def _validate(*, as_json: bool) -> None:
    """Print the validation report, as text or one JSON object."""
    # Imported here: only this command reads the reference measurements.
    from model.validation import validate
    from model.validation.report import format_report

    report = validate(unsaid=True)
    print(json.dumps(report.to_dict(), allow_nan=False) if as_json else format_report(report))


def _json(document: dict[str, Any], fetched: HfModel | None) -> str:
    """Return the estimate's JSON; a model fetched by --hf adds its ``hf`` key and its notes to the warnings."""
    if fetched is not None:
        document = {**document, "hf": fetched.to_dict()}
        document["warnings"] = [*document["warnings"], *(note.text for note in fetched.notes)]
    return json.dumps(finite(document), allow_nan=False)


def _text(printed: str, fetched: HfModel | None) -> str:
    """Return the summary; a model fetched by --hf adds where it was read and its notes."""
    if fetched is None:
        return printed
    lines = [printed, f"model: {fetched.config_url}"]
    lines += [f"warning: {note.text}" for note in fetched.notes]
    return "\n".join(lines)


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
    add_plan_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    fetched: HfModel | None = None
    try:
        catalog = default_catalog()
        if getattr(args, "catalog", None):
            catalog = catalog.merged(load_user_catalog(args.catalog))
        if getattr(args, "hf", None) is not None:
            fetched = fetch_hf_model(args.hf)
            catalog = catalog.merged(fetched.catalog)
            args.model = fetched.model_id  # --model and --params are refused beside --hf
        if args.command == "list":
            print(catalog_table(args.kind, catalog, args.json))
            return 0
        if args.command == "validate":
            _validate(as_json=args.json)
            return 0
        if args.command == "plan":
            return run_plan(args, catalog)
        scenario = scenario_from_args(args)
        if args.cards is None and scenario.gpu in catalog.gpus:
            scenario = dataclasses.replace(scenario, cards=default_cards(catalog.gpus[scenario.gpu]))
        result = estimate(scenario, catalog)
        # The summary asks the engine again (the fixes it checks), so a refusal there is one line too.
        printed = _json(result.to_dict(), fetched) if args.json else _text(summary(result, catalog), fetched)
    except ScenarioError as error:
        flag = "--" + error.field.replace("_", "-")
        parser.exit(2, f"{parser.prog}: error: argument {flag}: {str(error).split(': ', 1)[1]}\n")
    except HfError as error:
        parser.exit(2, f"{parser.prog}: error: argument --hf: {error}\n")
    except CatalogError as error:
        parser.exit(2, f"{parser.prog}: error: argument --catalog: {error}\n")
    print(printed)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
