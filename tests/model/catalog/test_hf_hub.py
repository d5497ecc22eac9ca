"""A model by its Hugging Face id: the real config.json files, served by a stand-in Hub on 127.0.0.1.

The configs in tests/data/hf are the public repositories' own (README there); the counts they
must give are the publishers'. No test leaves this machine (tests/conftest.py).
"""

import time

import pytest

from model import HfError, Scenario, default_catalog, estimate, fetch_hf_model
from model.catalog.hf_hub import FAILURE_KEPT_S, HF_ERRORS, clear_hf_cache, parse_repo_id
from tests.hf_server import OFFLINE, SLOW_S, TOKEN

# (repo, total, active or None, relative tolerance, source). Exact safetensors counts are held to
# 0.1 %; counts published rounded (14.8B, 30.5B, 671B) to the 2 % the presets are held to.
PUBLISHED = [
    ("mistralai/Mistral-7B-v0.1", 7_241_732_096, None, 1e-3, "model page safetensors count: 7,241,732,096"),
    ("meta-llama/Llama-3.1-8B", 8_030_261_248, None, 1e-3, "model page safetensors count: 8,030,261,248"),
    ("Qwen/Qwen2.5-7B", 7_615_616_512, None, 1e-3, "model page safetensors count: 7,615,616,512 (card: 7.61B)"),
    ("Qwen/Qwen3-14B", 14.8e9, None, 0.02, "model card: Number of Parameters 14.8B"),
    ("Qwen/Qwen3-30B-A3B", 30.5e9, 3.3e9, 0.02, "model card: 30.5B in total and 3.3B activated"),
    ("deepseek-ai/DeepSeek-V3", 671e9, 37e9, 0.02, "arXiv:2412.19437 sec. 1: 671B total, 37B activated"),
    ("openai/gpt-oss-20b", 20.91e9, None, 0.01, "gpt-oss model card (arXiv:2508.10925) Table 1: 20.91B total"),
    ("google/gemma-2-9b", 9.24e9, None, 0.01, "Gemma 2 report (arXiv:2408.00118) Table 1: 918M + 8,324M"),
    ("google/gemma-3-27b-it", 27.016e9, None, 0.01, "Gemma 3 report (arXiv:2503.19786) Table 1: 1,416M + 25,600M"),
]


def _stats(repo):
    fetched = fetch_hf_model(repo, token=TOKEN)  # two of them are gated on the Hub and on the stand-in
    return fetched.catalog.models[fetched.model_id].architecture.stats


@pytest.mark.parametrize(("repo", "total", "active", "tolerance", "source"), PUBLISHED, ids=[p[0] for p in PUBLISHED])
def test_a_fetched_config_gives_the_published_parameter_count(hub, repo, total, active, tolerance, source):
    stats = _stats(repo)
    assert stats.total_params == pytest.approx(total, rel=tolerance), source
    if active is not None:
        assert stats.active_params == pytest.approx(active, rel=tolerance), source


def test_gpt_oss_20b_is_active_in_its_published_36_billion_less_the_embedding_it_only_looks_up(hub):
    # The model card's 3.61B active counts the unembedding but not the embedding table (a lookup);
    # the engine's active count has the embedding too (0.58B), so it reads 4.19B.
    stats = _stats("openai/gpt-oss-20b")
    assert stats.active_params - stats.embedding_params == pytest.approx(3.61e9, rel=0.01)


def test_the_mixtures_of_experts_read_their_own_field_names(hub):
    rows = {repo: fetch_hf_model(repo).row for repo in ("openai/gpt-oss-20b", "Qwen/Qwen3-30B-A3B")}
    rows["deepseek"] = fetch_hf_model("deepseek-ai/DeepSeek-V3").row
    assert rows["openai/gpt-oss-20b"]["moe"] == {
        "experts": 32, "active_experts": 4, "shared_experts": 0, "expert_ffn": 2880, "dense_layers": 0,
    }  # fmt: skip
    assert rows["openai/gpt-oss-20b"]["head_dim"] == 64 and rows["openai/gpt-oss-20b"]["qkv_bias"] is True
    assert rows["Qwen/Qwen3-30B-A3B"]["moe"]["expert_ffn"] == 768
    assert rows["deepseek"]["moe"]["dense_layers"] == 3 and rows["deepseek"]["attention"] == "mla"


def test_only_a_window_on_every_layer_is_kept(hub):
    # Mistral 7B v0.1 slides on all 32 layers; Gemma 2 on every other one, gpt-oss on every other
    # one (its layer_types), Gemma 3 on five in six: those are counted as global layers.
    assert fetch_hf_model("mistralai/Mistral-7B-v0.1").row["sliding_window"] == 4096
    for repo in ("google/gemma-2-9b", "openai/gpt-oss-20b", "google/gemma-3-27b-it"):
        assert "sliding_window" not in fetch_hf_model(repo, token=TOKEN).row, repo


def test_gemma_3_reads_its_language_model_with_the_defaults_its_config_leaves_out(hub):
    row = fetch_hf_model("google/gemma-3-27b-it").row
    assert (row["layers"], row["hidden"], row["head_dim"]) == (62, 5376, 128)
    assert (row["vocab"], row["max_context"], row["norm"], row["tied_embeddings"]) == (262_208, 131_072, "rms", True)


def test_the_row_names_the_repository_and_where_it_was_read(hub):
    fetched = fetch_hf_model("mistralai/Mistral-7B-v0.1")
    assert fetched.model_id == "hf-mistralai-mistral-7b-v0.1"
    assert fetched.row["name"] == "mistralai/Mistral-7B-v0.1"
    assert "huggingface.co/mistralai/Mistral-7B-v0.1" in fetched.row["source"]
    assert hub.url in fetched.row["source"]
    assert fetched.catalog.models[fetched.model_id].user_supplied


def test_the_fetched_model_is_estimated_through_its_catalog(hub):
    fetched = fetch_hf_model("mistralai/Mistral-7B-v0.1")
    catalog = default_catalog().merged(fetched.catalog)
    result = estimate(Scenario(model=fetched.model_id, gpu="h100-sxm", cards=1), catalog)
    assert result.inputs["params"] == pytest.approx(7_241_732_096)
    assert result.inputs["model_name"] == "mistralai/Mistral-7B-v0.1"


def test_the_checkpoint_index_confirms_the_count_without_a_note(hub):
    fetched = fetch_hf_model("mistralai/Mistral-7B-v0.1")
    assert fetched.checkpoint_params == 14_483_464_192 / 2  # total_size over 2 bytes of bfloat16
    assert fetched.notes == ()
    assert "14,483,464,192" in fetched.row["params_source"]


def test_a_checkpoint_that_disagrees_with_the_shape_gets_a_note(hub):
    fetched = fetch_hf_model("test/disagreeing")  # Mistral's config, 18 GB of bfloat16 weights
    assert fetched.checkpoint_params == 9e9
    (note,) = fetched.notes
    assert note.code == "checkpoint_params_disagree"
    assert note.fields["stored"] == "9" and note.fields["counted"] == "7.24"
    assert "the estimate is for the shape" in note.text


def test_a_quantized_checkpoint_is_not_counted_by_its_bytes(hub):
    fetched = fetch_hf_model("test/quantized")  # gpt-oss-20b: MXFP4 experts, 13.8 GB
    assert fetched.checkpoint_params is None and fetched.notes == ()


def test_a_large_index_is_read_only_as_far_as_its_metadata(hub):
    fetched = fetch_hf_model("test/big-index")  # a weight map of 2 MB after total_parameters
    assert fetched.checkpoint_params == 7_241_732_096


def test_a_model_without_an_index_still_loads(hub):
    fetched = fetch_hf_model("Qwen/Qwen2.5-7B")
    assert fetched.checkpoint_params is None
    assert hub.requests[-1].endswith("/model.safetensors.index.json")


@pytest.mark.parametrize(
    ("repo", "token", "code", "says"),
    [
        ("google/gemma-2-9b", "", "gated", "set HF_TOKEN"),
        ("google/gemma-2-9b", "hf_someone_else", "denied", "HF_TOKEN has no access"),
        ("nobody/nothing", "", "missing", "no such model"),
        ("test/gguf-only", "", "no_config", "has no config.json"),
        ("test/oversized", "", "too_large", "64,000 bytes"),
        ("test/endless", "", "too_large", "64,000 bytes"),
        ("test/not-json", "", "not_config", "not JSON"),
        ("test/server-error", "", "server", "HTTP 500"),
        ("state-spaces/mamba-130m-hf", "", "unsupported", "not a decoder-only transformer"),
        ("test/elsewhere", TOKEN, "denied", "HTTP 401"),  # the token stays with its host: served, it would open
    ],
)
def test_a_refusal_is_one_line_naming_the_model_and_what_to_do(hub, repo, token, code, says):
    with pytest.raises(HfError) as raised:
        fetch_hf_model(repo, token=token)
    assert raised.value.code == code
    message = str(raised.value)
    assert message.startswith(repo) and says in message and "\n" not in message
    assert message == HF_ERRORS[code].format(**raised.value.values)


def test_the_token_follows_a_redirect_on_the_same_host(hub):
    assert fetch_hf_model("test/renamed-gated", token=TOKEN).row["layers"] == 42
    assert fetch_hf_model("test/renamed").checkpoint_params == 7_241_732_096


def test_hf_token_from_the_environment_opens_a_gated_model(hub, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    assert fetch_hf_model("meta-llama/Llama-3.1-8B").row["vocab"] == 128_256


def test_a_slow_server_times_out_in_the_time_given(hub):
    started = time.monotonic()
    with pytest.raises(HfError, match=r"did not answer within 0\.3 s") as raised:
        fetch_hf_model("test/slow", timeout_s=0.3)
    assert raised.value.code == "timeout"
    assert time.monotonic() - started < SLOW_S


def test_a_server_that_trickles_its_answer_times_out_in_the_time_given(hub):
    started = time.monotonic()
    with pytest.raises(HfError, match=r"did not answer within 0\.3 s"):
        fetch_hf_model("test/trickle", timeout_s=0.3)  # a byte every 50 ms: each read is quick
    assert time.monotonic() - started < 1.0


def test_hf_hub_download_timeout_sets_the_time(hub, monkeypatch):
    monkeypatch.setenv("HF_HUB_DOWNLOAD_TIMEOUT", "0.3")
    with pytest.raises(HfError, match=r"within 0\.3 s"):
        fetch_hf_model("test/slow")
    monkeypatch.setenv("HF_HUB_DOWNLOAD_TIMEOUT", "soon")
    with pytest.raises(HfError, match="HF_HUB_DOWNLOAD_TIMEOUT 'soon' is not a number of seconds"):
        fetch_hf_model("test/slow")


def test_offline_says_so_naming_the_endpoint(monkeypatch):
    clear_hf_cache()
    monkeypatch.setenv("HF_ENDPOINT", OFFLINE)
    with pytest.raises(HfError, match=r"^Qwen/Qwen3-14B: cannot reach http://127\.0\.0\.1:9 ") as raised:
        fetch_hf_model("Qwen/Qwen3-14B")
    assert raised.value.code == "offline"


@pytest.mark.parametrize("endpoint", ["file:///etc", "ftp://mirror.example", "huggingface.co", "http://"])
def test_an_endpoint_that_is_not_http_is_refused_before_any_request(endpoint):
    with pytest.raises(HfError, match=r"HF_ENDPOINT .* is not an http:// or https:// address"):
        fetch_hf_model("Qwen/Qwen3-14B", endpoint=endpoint)


def test_a_model_is_fetched_once_per_process(hub):
    first = fetch_hf_model("Qwen/Qwen3-14B")
    asked = len(hub.requests)
    assert fetch_hf_model("https://huggingface.co/Qwen/Qwen3-14B") is first
    assert len(hub.requests) == asked == 2  # config.json and the index, once


def test_a_failure_is_remembered_for_a_while_and_a_new_token_asks_again(hub):
    for _ in range(2):
        with pytest.raises(HfError, match="gated"):
            fetch_hf_model("google/gemma-2-9b")
    assert len(hub.requests) == 1
    assert FAILURE_KEPT_S <= 60  # then asked again: the network or the licence may have changed
    assert fetch_hf_model("google/gemma-2-9b", token=TOKEN).row["layers"] == 42


@pytest.mark.parametrize(
    "text",
    [
        "Qwen/Qwen3-14B",
        "  Qwen/Qwen3-14B ",
        "https://huggingface.co/Qwen/Qwen3-14B",
        "https://huggingface.co/Qwen/Qwen3-14B/tree/main",
        "https://huggingface.co/Qwen/Qwen3-14B/blob/main/config.json?download=true",
        "huggingface.co/Qwen/Qwen3-14B",
        "hf.co/Qwen/Qwen3-14B",
    ],
)
def test_an_id_or_a_link_to_the_model_names_it(text):
    assert parse_repo_id(text) == "Qwen/Qwen3-14B"


def test_a_link_on_the_endpoints_own_host_names_the_model():
    assert parse_repo_id("https://hf-mirror.com/Qwen/Qwen3-14B", "https://hf-mirror.com") == "Qwen/Qwen3-14B"


@pytest.mark.parametrize(
    "text",
    [
        "gpt2",
        "a/b/c",
        "org//name",
        "org/na me",
        "../etc",
        "org/..",
        "org/-name",
        "org/name.",
        "org--x/name",
        "org/" + "n" * 97,
        "https://evil.example/Qwen/Qwen3-14B",
        "https://huggingface.co/datasets/org/name",
        "https://huggingface.co/Qwen",
        "javascript://huggingface.co/Qwen/Qwen3-14B",
        "Qwen/Qwen3-14B\nQwen/Qwen3-8B",
        "Qwen/Qwen3\x00-14B",
        "",
        "x" * 400,
    ],
)
def test_anything_else_is_refused_before_any_request(text, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", OFFLINE)  # a request would say "cannot reach", not this
    with pytest.raises(HfError, match="is not a Hugging Face model id: give org/name") as raised:
        fetch_hf_model(text)
    assert raised.value.code == "bad_id" and "\n" not in str(raised.value)
