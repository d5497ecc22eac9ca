"""Shared test settings."""

import os

from hypothesis import HealthCheck, settings

from tests.hf_server import OFFLINE

# No test reaches the network: a model fetched by its Hugging Face id goes to a closed local port
# unless the test serves the stand-in Hub (tests/model/conftest.py's hub fixture).
os.environ["HF_ENDPOINT"] = OFFLINE
os.environ.pop("HF_TOKEN", None)

settings.register_profile("default", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("default")
