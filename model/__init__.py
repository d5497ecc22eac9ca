"""The estimation engine: pure Python, no Streamlit, Altair or pandas.

from model import Scenario, estimate
result = estimate(Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=64))
result.training.time_s, result.inference.tpot_s, result.to_dict()

Where the cards cannot hold a model, serving with host memory (Scenario(host_memory_gb=64)) places
layers or experts there as llama.cpp does: estimate(...).inference.offload is the split and
.inference.verdict says "fits", "fits_with_offload" or "wont_run" (model.analyses.verdict.goal_verdict
says the same).

A model by its Hugging Face id: fetch_hf_model("Qwen/Qwen3-14B") returns its row and a catalog of it
to merge (catalog.merged(fetched.catalog)), and Scenario(model=fetched.model_id) estimates it.
"""

from model.analyses.plan import Plan, PlanOption, pareto_front, plan_serving, plan_training
from model.catalog import Catalog, CatalogError, default_catalog, load_user_catalog, parse_user_catalog
from model.catalog.hf_hub import HfError, HfModel, fetch_hf_model
from model.estimate import estimate, training_refused
from model.inference import SERVING_MEMORY_FRACTION, SERVING_VERDICTS, Offload, serving_capacity
from model.layouts.serving import replica_name
from model.limits import FLOAT_LIMITS, INT_LIMITS, ScenarioError
from model.memory import TrainingMemory
from model.precision import KV_PRECISIONS, PRECISIONS, default_kv_precision
from model.precision.formats import FORMATS, WeightFormat
from model.results import UNCERTAIN_SPREAD, Estimate, InferenceEstimate, Range, TrainingEstimate
from model.scenario import DEFAULT_CARDS, MAX_BATCH, OFFLOAD_MODES, Scenario, default_cards, resolve
from model.stacks import DESK_RUNNER, auto_kv_precision, implied_stack, stacks_for

PUBLIC_MODULES = (
    "model",
    "model.analyses",
    "model.caches",
    "model.catalog",
    "model.explain",
    "model.pricing",
    "model.results",
    "model.seeds",
    "model.units",
    "model.validation",
)
"""What the app and scripts may import, with their submodules (each analysis is a module of
``model.analyses``); everything else (layouts, memory, inference, training, the scenario's
resolution) is the engine's inside, reached through the names above."""

__all__ = [
    "DEFAULT_CARDS",
    "DESK_RUNNER",
    "FLOAT_LIMITS",
    "FORMATS",
    "INT_LIMITS",
    "KV_PRECISIONS",
    "MAX_BATCH",
    "OFFLOAD_MODES",
    "PRECISIONS",
    "PUBLIC_MODULES",
    "SERVING_MEMORY_FRACTION",
    "SERVING_VERDICTS",
    "UNCERTAIN_SPREAD",
    "Catalog",
    "CatalogError",
    "Estimate",
    "HfError",
    "HfModel",
    "InferenceEstimate",
    "Offload",
    "Plan",
    "PlanOption",
    "Range",
    "Scenario",
    "ScenarioError",
    "TrainingEstimate",
    "TrainingMemory",
    "WeightFormat",
    "auto_kv_precision",
    "default_cards",
    "default_catalog",
    "default_kv_precision",
    "estimate",
    "fetch_hf_model",
    "implied_stack",
    "load_user_catalog",
    "pareto_front",
    "parse_user_catalog",
    "plan_serving",
    "plan_training",
    "replica_name",
    "resolve",
    "serving_capacity",
    "stacks_for",
    "training_refused",
]
