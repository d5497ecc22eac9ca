"""The seed articles' claims: unique, quoted from their seeds, covering every topic, matching data/prices.yaml."""

import re
from pathlib import Path

from model import default_catalog
from model.seeds import SEED_CLAIMS, check_claims

CATALOG = default_catalog()
CHECKS = {check.claim.id: check for check in check_claims(CATALOG)}
SEEDS = Path(__file__).resolve().parents[3] / "docs" / "seeds"


def test_claims_have_unique_ids_an_original_a_gloss_and_figures():
    assert len({claim.id for claim in SEED_CLAIMS}) == len(SEED_CLAIMS)
    for claim in SEED_CLAIMS:
        assert re.search(r"[\u4e00-\u9fff]", claim.original) or claim.original.startswith(("V100", "A100")), claim.id
        assert claim.gloss and claim.claimed and claim.figures and claim.topic and claim.seed


def test_the_issue_lists_every_topic():
    topics = {claim.topic for claim in SEED_CLAIMS}
    assert topics == {"GPU generations", "Prices", "Hardware", "Training time and cost", "Price per million tokens",
                      "Bytes over bandwidth"}  # fmt: skip
    for claim_id in ("gen-v100", "gen-a100", "gen-h100", "gen-h200", "gen-blackwell", "price-rtx-4090",
                     "cost-7b", "cost-70b", "cost-1t", "api-gpt-4o", "api-claude-3-5", "self-hosted-70b",
                     "self-hosted-7b", "rule-h20-9ms", "rule-cpu-578ms", "gpt3-34-days", "gpt3-350-years-cpu",
                     "vram-7b-training", "server-8x-h100", "tensor-cores-8x", "nvlink-10x-pcie"):  # fmt: skip
        assert claim_id in CHECKS


def test_the_self_hosted_claims_use_the_figures_of_data_prices_yaml():
    rows = {row.comparable_model: row for row in CATALOG.seed_claims}
    for claim_id in ("self-hosted-70b", "self-hosted-7b"):
        claim = CHECKS[claim_id].claim
        price = rows[claim.subjects[0]]
        assert claim.figure("output_usd_per_million") == (price.output_usd_per_million,) * 2
        assert claim.figure("input_usd_per_million") == (price.input_usd_per_million,) * 2


def test_every_original_is_quoted_from_its_seed():
    texts = {path.name: re.sub(r"\s", "", path.read_text(encoding="utf-8")) for path in SEEDS.glob("*.txt")}
    for claim in SEED_CLAIMS:
        text = texts[claim.seed.split(",")[0]]
        for fragment in re.split(r"\s…\s", claim.original):
            assert re.sub(r"[\s|]", "", fragment) in text, (claim.id, fragment)
