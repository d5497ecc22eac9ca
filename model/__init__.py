"""The estimation engine: pure Python, no Streamlit, Altair or pandas.

from model import Scenario, estimate
result = estimate(Scenario(model="llama-3.1-70b", gpu="h100-sxm", cards=64))
result.training.time_s, result.inference.tpot_s, result.to_dict()

A model by its Hugging Face id: fetch_hf_model("Qwen/Qwen3-14B") returns its row and a catalog of it
to merge (catalog.merged(fetched.catalog)), and Scenario(model=fetched.model_id) estimates it.
"""

from model.analyses.plan import Plan, PlanOption, pareto_front, plan_serving, plan_training
from model.catalog import Catalog, CatalogError, default_catalog, load_user_catalog, parse_user_catalog
from model.catalog.hf_hub import HfError, HfModel, fetch_hf_model
from model.estimate import estimate
from model.limits import ScenarioError
from model.results import Estimate, InferenceEstimate, Range, TrainingEstimate
from model.scenario import Scenario

__all__ = [
    "Catalog",
    "CatalogError",
    "Estimate",
    "HfError",
    "HfModel",
    "InferenceEstimate",
    "Plan",
    "PlanOption",
    "Range",
    "Scenario",
    "ScenarioError",
    "TrainingEstimate",
    "default_catalog",
    "estimate",
    "fetch_hf_model",
    "load_user_catalog",
    "pareto_front",
    "parse_user_catalog",
    "plan_serving",
    "plan_training",
]
