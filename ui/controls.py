"""Every control the app binds to the URL: its key, default, and how it reads and writes text.

A shared link is the query string: ``?model=llama-3.1-70b&gpu=h100-sxm&cards=64``. On the first
run of a session :func:`load_from_url` reads it: each value is checked, a bad one is dropped with
a short warning and its control keeps its default (nothing the user typed stops the app). On
every run :func:`save_to_url` writes back the values that differ from their defaults, so the
address bar always reproduces what is on screen, page included (the page is the path).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from model import FLOAT_LIMITS, INT_LIMITS, KV_PRECISIONS, MAX_BATCH, OFFLOAD_MODES, PRECISIONS, HfError, Scenario
from model.analyses.verdict import GOALS
from model.catalog.hf_hub import parse_repo_id
from model.units import parse_quantity
from model.validation import KINDS
from ui.i18n import DEFAULT_LANGUAGE, LANGUAGE_KEY, LANGUAGES, tr, translatable
from ui.linked import LINKED_KEYS

__all__ = [
    "ACCEPTANCE_STEPS",
    "ANATOMY_VIEWS",
    "AUTO",
    "CARD_STEPS",
    "CONTROLS",
    "CUSTOM",
    "DRAFT_OPTIONS",
    "FINETUNE_OPTIONS",
    "GOAL_OPTIONS",
    "KV_OPTIONS",
    "METHOD_VIEWS",
    "MICRO_BATCH_OPTIONS",
    "PARAM_STEPS_B",
    "PLAN_GOALS",
    "PRESENT",
    "PRICING_OPTIONS",
    "RECOMPUTE_OPTIONS",
    "TP_OPTIONS",
    "TRAINING_FORMATS",
    "VALIDATION_KINDS",
    "ZERO_OPTIONS",
    "Control",
    "bounds",
    "feasible_tp_options",
    "format_params",
    "format_tokens",
    "int_bounds",
    "load_from_url",
    "nearest_choice",
    "save_to_url",
    "steps_with",
]

Step = TypeVar("Step", int, float)

AUTO = "auto"
KV_OPTIONS: tuple[str, ...] = (AUTO, *KV_PRECISIONS)
"""The KV cache's formats (auto: the engine's default for the weights' format, vLLM's --kv-cache-dtype auto)."""
PRESENT = "present"
"""The session key and link parameter of presentation mode (``present=1``)."""
"""Interconnect/network value meaning: the GPU's own default link."""
CUSTOM = "custom"
"""Model value meaning: a bare parameter count from the slider."""
STREAMLIT_KEYS = frozenset({"embed", "embed_options"})
# The link's added rows and saved scenarios (ui/linked.py) are read before the controls.
"""Query keys Streamlit itself reads (embedding on Community Cloud): passed over in silence."""
MAX_VALUE_LENGTH = 100
"""Longer query values are refused before parsing."""

PARAM_STEPS_B: tuple[float, ...] = (
    0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 8.0, 10.0, 13.0, 20.0, 30.0, 34.0, 50.0,
    70.0, 100.0, 175.0, 250.0, 405.0, 500.0, 671.0, 1000.0, 1500.0, 2000.0,
)  # fmt: skip
"""The custom model's parameter counts in billions: a log scale from 0.1B to 2T."""
CARD_STEPS: tuple[int, ...] = (
    1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 100_000,
)  # fmt: skip
"""Card counts on a log scale from 1 to 100k."""


ZERO_OPTIONS: tuple[str, ...] = (AUTO, "0", "1", "2", "3")
TP_OPTIONS: tuple[str, ...] = (AUTO, "1", "2", "4", "8", "16", "32", "64")
RECOMPUTE_OPTIONS: tuple[str, ...] = (AUTO, "none", "selective", "full")
MICRO_BATCH_OPTIONS: tuple[str, ...] = (AUTO, "1", "2", "4", "8", "16", "32")
DRAFT_OPTIONS: tuple[str, ...] = ("off", "1", "2", "3", "4")
"""Speculative decoding: tokens drafted per step ('off': a stock server)."""
ACCEPTANCE_STEPS: tuple[float, ...] = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
"""Draft acceptance rates offered (DeepSeek-V3 reports 0.85-0.9 for its MTP draft)."""
GOAL_OPTIONS: tuple[str, ...] = GOALS
"""What the user came to do: serve, fine-tune or pre-train (the Overview leads with it)."""
FINETUNE_OPTIONS: tuple[str, ...] = ("lora", "qlora", "full")
PRICING_OPTIONS: tuple[str, ...] = ("rent", "own")
PLAN_GOALS: tuple[str, ...] = ("serve", "train")
TRAINING_FORMATS: tuple[str, ...] = ("fp32", "bf16", "fp16", "fp8")
"""Formats the planner weighs for training (the rest are weight-only serving formats)."""
METHOD_VIEWS: tuple[str, ...] = ("assumptions", "rules", "formulas", "claims")
ANATOMY_VIEWS: tuple[str, ...] = ("hierarchy", "links", "generations")
VALIDATION_KINDS: tuple[str, ...] = ("all", *KINDS)


def steps_with(steps: Iterable[Step], value: Step) -> list[Step]:
    """Return a slider's steps with the current value among them, so a linked value off the grid is kept."""
    return sorted({*steps, value})


def format_params(billions: float) -> str:
    """Label a parameter count given in billions: '0.5B', '70B', '1.5T'."""
    if billions >= 1000:
        return f"{billions / 1000:g}T"
    return f"{billions:g}B"


def format_tokens(value: float) -> str:
    """Write a token count the way people say it and links carry it: '2T', '161B', '500M', '0' for auto."""
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:.6g}{suffix}"
    return f"{value:.6g}"


class NotAllowedError(ValueError):
    """A value a control refuses, with what it allows (in the visit's language)."""


@dataclass(frozen=True, slots=True)
class Control:
    """One URL-bound control: ``parse`` raises ValueError with what is allowed."""

    key: str
    label: str
    default: Any
    parse: Callable[[str], Any]
    format: Callable[[Any], str] = str
    bounds: tuple[float, float] | None = None
    """The least and most a number control takes: what its widget offers and its link accepts (one home)."""


def nearest_choice(text: str, allowed: Iterable[str]) -> str | None:
    """Return the allowed value a mistyped one most likely meant ('h1000' -> 'h100-sxm'), or None.

    difflib's ratio (matching characters over both lengths), against the whole id and against its
    family (the part before the first '-': 'h100' of 'h100-sxm'), at 0.6 or more; the whole id's
    ratio breaks ties, then the catalog's order. Case is ignored, as a typed id's often is.
    """
    typed = text.lower()
    best, best_score = None, (0.6, 0.0)
    for option in allowed:
        whole = difflib.SequenceMatcher(None, typed, option.lower()).ratio()
        family = difflib.SequenceMatcher(None, typed, option.lower().split("-")[0]).ratio()
        score = (max(whole, family), whole)
        if score > best_score:
            best, best_score = option, score
    return best


def _choice(options: Callable[[], Mapping[str, Any] | tuple[str, ...]]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        allowed = options()
        if text not in allowed:
            guess = nearest_choice(text, allowed)
            if guess is not None:
                raise NotAllowedError(tr("did you mean {value}?", value=guess))
            shown = ", ".join(list(allowed)[:8]) + (", ..." if len(allowed) > 8 else "")
            raise NotAllowedError(tr("one of {values}", values=shown))
        return text

    return parse


def _quantity(text: str, allowed: str) -> float:
    """Read a number such as 7B or 1.5k; text that is not one is refused with what the control allows."""
    try:
        return parse_quantity(text)
    except ValueError:
        raise NotAllowedError(allowed) from None


def _on_grid(grid: tuple[float, ...], scale: float, label: Callable[[float], str]) -> Callable[[str], float]:
    def parse(text: str) -> float:
        allowed = tr("a value from {low} to {high}", low=label(grid[0]), high=label(grid[-1]))
        value = _quantity(text, allowed) / scale
        if not grid[0] <= value <= grid[-1]:
            raise NotAllowedError(allowed)
        return min(grid, key=lambda step: abs(math.log(step / value)))

    return parse


def _whole(key: str, label: str, default: int, low: int, high: int) -> Control:
    """Return a whole-number control that takes ``low``..``high`` from a link and in its widget."""
    return Control(key, label, default, _integer(low, high), bounds=(low, high))


def _field(key: str, label: str, default: int, field: str, least: int | None = None) -> Control:
    """Return a whole-number control for the scenario's ``field``: the engine's range (model.limits), one home.

    ``least`` raises the lower end where a smaller value is no question the page asks (a 1-token training sequence).
    """
    low, high = INT_LIMITS[field]
    return _whole(key, label, default, max(low, least or low), high)


def _decimal(
    key: str, label: str, default: float | None, low: float, high: float, shown: Callable[[Any], str] | None = None
) -> Control:
    """Return a number control that takes ``low``..``high`` from a link and in its widget."""
    return Control(key, label, default, _number(low, high), shown or _big_number, bounds=(low, high))


def _decimal_field(
    key: str,
    label: str,
    default: float | None,
    field: str,
    *,
    least: float | None = None,
    most: float | None = None,
    shown: Callable[[Any], str] | None = None,
) -> Control:
    """Return a number control for the scenario's ``field``: the engine's range (model.limits), one home.

    ``least`` and ``most`` only narrow it, where the page's slider asks a narrower question.
    """
    low, high, _ = FLOAT_LIMITS[field]
    return _decimal(key, label, default, max(low, least or low), min(high, most or high), shown)


def bounds(key: str) -> tuple[float, float]:
    """Return the least and most the control ``key`` takes: its widget's min_value and max_value."""
    found = CONTROLS[key].bounds
    if found is None:
        raise KeyError(f"{key} is not a number control")
    return found


def int_bounds(key: str) -> tuple[int, int]:
    """Return :func:`bounds` as whole numbers, for a widget whose value is an int."""
    low, high = bounds(key)
    return int(low), int(high)


def _integer(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        allowed = tr("a whole number from {low} to {high}", low=f"{low:,}", high=f"{high:,}")
        value = _quantity(text, allowed)
        if value != int(value) or not low <= value <= high:
            raise NotAllowedError(allowed)
        return int(value)

    return parse


def _number(low: float, high: float) -> Callable[[str], float]:
    def parse(text: str) -> float:
        allowed = tr("a number from {low} to {high}", low=f"{low:g}", high=f"{high:g}")
        value = _quantity(text, allowed)
        if not low <= value <= high:
            raise NotAllowedError(allowed)
        return value

    return parse


def _models() -> tuple[str, ...]:
    from ui.catalog import session_catalog  # late: the catalog depends on the visit's uploads

    return (*session_catalog().models, CUSTOM)


def _gpus() -> Mapping[str, Any]:
    from ui.catalog import session_catalog

    return session_catalog().gpus


def _interconnects() -> tuple[str, ...]:
    from ui.catalog import session_catalog

    return (AUTO, *session_catalog().interconnects)


def _networks() -> tuple[str, ...]:
    from ui.catalog import session_catalog

    return (AUTO, *session_catalog().networks)


def _stacks() -> tuple[str, ...]:
    from ui.catalog import session_catalog

    return (_SCENARIO.stack, *(ident for ident in session_catalog().stacks if ident != _SCENARIO.stack))


def _prices() -> tuple[str, ...]:
    from ui.catalog import session_catalog

    return (AUTO, *(price.id for price in session_catalog().prices))


def _precision_list(text: str) -> list[str]:
    """Read 'bf16,fp8' (empty: the sidebar's precision alone), each once, in the catalog's order."""
    chosen = {part.strip() for part in text.split(",") if part.strip()}
    unknown = sorted(chosen - set(PRECISIONS))
    if unknown:
        raise NotAllowedError(tr("a comma list of {values}", values=", ".join(PRECISIONS)))
    return [precision for precision in PRECISIONS if precision in chosen]


_SCENARIO = Scenario()
"""The engine's defaults: the controls that set a scenario field start from the scenario's own default
(one home each: :class:`model.Scenario`)."""


def _tokens(text: str) -> float:
    allowed = tr("a count from 1M to 10000T, such as 2T or 15e12; 0 for auto")
    value = _quantity(text, allowed)
    if value != 0 and not 1e6 <= value <= 1e16:
        raise NotAllowedError(allowed)
    return value


def _flag(text: str) -> bool:
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise NotAllowedError(tr("one of 1 (on), 0 (off)"))


def _flag_text(value: bool) -> str:
    return "1" if value else "0"


def _hub_id(text: str) -> str:
    """Read a Hugging Face model id or link ('Qwen/Qwen3-14B'); '' for none."""
    if not text.strip():
        return ""
    try:
        return parse_repo_id(text)
    except HfError as error:
        raise NotAllowedError(tr("a Hugging Face model id, org/name (e.g. Qwen/Qwen3-14B)")) from error


def _price_text(value: float | None) -> str:
    return tr("the catalog's") if value is None else f"{value:.6g}"


def _big_number(value: float) -> str:
    return f"{value:.6g}"


_ALL = (
    # The language (without it in the link, the browser's language decides: ui.sidebar.init_state).
    Control(LANGUAGE_KEY, translatable("Language"), DEFAULT_LANGUAGE, _choice(lambda: tuple(LANGUAGES))),
    # Presentation mode: larger chart text, one-line titles, the main chart on the first screen.
    Control(PRESENT, translatable("Presentation mode"), False, _flag, _flag_text),
    # The sidebar scenario.
    Control("goal", translatable("Goal"), "serve", _choice(lambda: GOAL_OPTIONS)),
    Control("hf", translatable("Hugging Face model"), "", _hub_id),
    Control("model", translatable("Model"), _SCENARIO.model, _choice(_models)),
    Control("params", translatable("Parameters"), 7.0, _on_grid(PARAM_STEPS_B, 1e9, format_params), format_params),
    Control("precision", translatable("Precision"), _SCENARIO.precision, _choice(lambda: PRECISIONS)),
    Control("gpu", translatable("GPU"), _SCENARIO.gpu, _choice(_gpus)),
    # Kept as given (the slider adds it to its steps): a plan's 10 cards must not become 8.
    _field("cards", translatable("Cards"), _SCENARIO.cards, "cards"),
    Control("link", translatable("Interconnect"), AUTO, _choice(_interconnects)),
    Control("net", translatable("Network"), AUTO, _choice(_networks)),
    Control("stack", translatable("Software"), _SCENARIO.stack, _choice(_stacks)),
    Control("finetune", translatable("Fine-tuning method"), "lora", _choice(lambda: FINETUNE_OPTIONS)),
    _field("rank", translatable("LoRA rank"), _SCENARIO.lora_rank, "lora_rank"),
    # Prices: renting at a rate (the catalog's unless typed) or owning the cards.
    Control("pricing", translatable("Pricing"), "rent", _choice(lambda: PRICING_OPTIONS)),
    _decimal_field("price", translatable("Price per GPU-hour"), None, "price_per_gpu_hour", shown=_price_text),
    _decimal("years", translatable("Years of use"), 3.0, 0.5, 15.0),
    _decimal("kwh", translatable("Electricity price"), 0.10, 0.0, 2.0),
    _decimal("pue", translatable("PUE"), 1.3, 1.0, 3.0),
    # Host memory a serving replica may offload to (0: none; the engine's ranges above it).
    _decimal("host", translatable("Host memory (GB)"), 0.0, 0.0, FLOAT_LIMITS["host_memory_gb"][1]),
    _decimal("host_bw", translatable("Host memory bandwidth (GB/s)"), 0.0, 0.0, FLOAT_LIMITS["host_bandwidth_gb_s"][1]),
    Control("offload", translatable("Offload"), "auto", _choice(lambda: OFFLOAD_MODES)),
    # Workload, shared by the pages that use it.
    _field("prompt", translatable("Prompt tokens"), _SCENARIO.prompt_len, "prompt_len"),
    _field("output", translatable("Output tokens"), _SCENARIO.output_len, "output_len"),
    _whole("batch", translatable("Concurrent sequences"), 32, 1, MAX_BATCH),
    Control("tokens", translatable("Training tokens"), 0.0, _tokens, format_tokens),
    _decimal_field("util", translatable("Utilisation"), _SCENARIO.utilization, "utilization", least=0.01),
    # Training vs serving cost.
    _decimal("traffic", translatable("Tokens served per day"), 1e9, 1e3, 1e15),
    _whole("months", translatable("Months"), 24, 1, 120),
    Control("api", translatable("API price to compare"), AUTO, _choice(_prices)),
    # VRAM.
    Control("zero", translatable("ZeRO stage"), AUTO, _choice(lambda: ZERO_OPTIONS)),
    Control("tp", translatable("Tensor parallel"), AUTO, _choice(lambda: TP_OPTIONS)),
    Control("recompute", translatable("Recomputation"), AUTO, _choice(lambda: RECOMPUTE_OPTIONS)),
    Control("micro", translatable("Micro-batch"), AUTO, _choice(lambda: MICRO_BATCH_OPTIONS)),
    Control("kv", translatable("KV cache format"), AUTO, _choice(lambda: KV_OPTIONS)),
    _field("seq", translatable("Training sequence length"), 4096, "seq_len", least=128),
    # Tokens per second.
    _decimal("target", translatable("Latency target (ms per token)"), 50.0, 1.0, 10_000.0),
    _whole("users", translatable("Users"), 0, 0, INT_LIMITS["concurrency"][1]),
    _whole("job", translatable("Requests in a batch job"), 0, 0, INT_LIMITS["requests"][1]),
    Control("draft", translatable("Speculative decoding"), "off", _choice(lambda: DRAFT_OPTIONS)),
    # The slider asks about the acceptance rates speculative decoding reaches in practice (EAGLE, Medusa: 0.5-0.9).
    _decimal_field(
        "accept", translatable("Draft acceptance"), _SCENARIO.draft_acceptance, "draft_acceptance", least=0.5, most=0.95
    ),
    # Sections of the Method and GPU anatomy pages (one is drawn at a time).
    # The Plan page's targets.
    Control("plan_goal", translatable("Plan for"), "serve", _choice(lambda: PLAN_GOALS)),
    _decimal("plan_tps", translatable("Output tokens per second"), 5000.0, 1e-3, 1e12),
    _decimal("plan_tpot", translatable("Time per output token (ms)"), 50.0, 1e-3, 1e7),
    _decimal("plan_ttft", translatable("Time to first token (ms, 0: none)"), 0.0, 0.0, 1e8),
    _decimal("plan_days", translatable("Days to train"), 30.0, 1e-3, 1e5),
    _decimal("plan_budget", translatable("Budget (USD, 0: none)"), 0.0, 0.0, 1e13),
    Control("plan_prec", translatable("Formats to weigh"), [], _precision_list, ",".join),
    Control("method_view", translatable("Method section"), "assumptions", _choice(lambda: METHOD_VIEWS)),
    Control("anatomy_view", translatable("Anatomy section"), "hierarchy", _choice(lambda: ANATOMY_VIEWS)),
    Control("val_kind", translatable("Measurements shown"), "all", _choice(lambda: VALIDATION_KINDS)),
)
CONTROLS: dict[str, Control] = {control.key: control for control in _ALL}


def load_from_url(query: Mapping[str, list[str]]) -> tuple[dict[str, Any], list[str]]:
    """Read a query string into control values, and say what was dropped and why.

    Args:
        query: every query parameter with all its values (``st.query_params.to_dict`` keeps
            only the last; pass ``{k: st.query_params.get_all(k)}``).

    Returns:
        The values that parsed, and one short warning per value that did not.
    """
    values: dict[str, Any] = {}
    warnings: list[str] = []
    for key, texts in query.items():
        control = CONTROLS.get(key)
        if key in STREAMLIT_KEYS or key in LINKED_KEYS:
            continue
        if control is None:
            warnings.append(tr("ignored the unknown link setting {key}", key=repr(key[:30])))
            continue
        if not texts:
            continue
        label, kept = tr(control.label), control.format(control.default)
        if len(texts) > 1:
            warnings.append(tr("{label}: given {n} times; used the last", label=label, n=str(len(texts))))
        text = texts[-1].strip()
        if len(text) > MAX_VALUE_LENGTH:
            too_long = {"label": label, "limit": f"{MAX_VALUE_LENGTH}", "kept": kept}
            warnings.append(tr("{label}: the value is longer than {limit} characters; kept {kept}", **too_long))
            continue
        try:
            values[key] = control.parse(text)
        except ValueError as error:
            allowed = str(error) if isinstance(error, NotAllowedError) else tr("a valid value")
            refused = {"label": label, "text": repr(text[:40]), "allowed": allowed, "kept": kept}
            warnings.append(tr("{label}: {text} is not allowed ({allowed}); kept {kept}", **refused))
    tp, cards = values.get("tp", AUTO), values.get("cards", CONTROLS["cards"].default)
    if tp != AUTO and int(tp) > cards:  # the engine refuses a fixed tp wider than the cards
        del values["tp"]
        wide = {"label": tr(CONTROLS["tp"].label), "tp": tp, "cards": f"{cards:,}", "kept": tr(AUTO)}
        warnings.append(tr("{label}: {tp} needs {tp} cards and the link has {cards}; kept {kept}", **wide))
    return values, warnings


def feasible_tp_options(cards: int) -> tuple[str, ...]:
    """Return the tensor-parallel choices a scenario of ``cards`` cards can hold: auto and degrees up to the cards."""
    return tuple(option for option in TP_OPTIONS if option == AUTO or int(option) <= cards)


def save_to_url(state: Mapping[str, Any]) -> dict[str, str]:
    """Return the query parameters for the values in ``state`` that differ from their defaults."""
    query: dict[str, str] = {}
    for key, control in CONTROLS.items():
        if key in state and state[key] != control.default:
            query[key] = control.format(state[key])
    return query
