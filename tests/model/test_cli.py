"""The command line, run as a user runs it: python -m model ..."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from model.cli import main
from tests.hf_server import TOKEN

ROOT = Path(__file__).resolve().parents[2]


def _run(*args):
    return subprocess.run([sys.executable, "-m", "model", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_estimate_json_has_the_contract_keys():
    done = _run("estimate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--cards", "8", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert {"inputs", "training", "inference", "ranges", "warnings"} <= set(data)
    training_keys = {
        "total_flops",
        "time_s",
        "gpu_hours",
        "cost_usd",
        "energy_kwh",
        "tokens_per_s_per_gpu",
        "mfu",
        "memory_per_gpu",
        "fits",
        "parallelism",
    }
    assert training_keys <= set(data["training"])
    assert set(data["training"]["memory_per_gpu"]) == {
        "weights",
        "gradients",
        "optimizer",
        "activations",
        "other",
        "total",
    }
    assert {"tp", "pp", "dp", "ep", "zero"} == set(data["training"]["parallelism"])
    inference_keys = {
        "memory_per_gpu",
        "fits",
        "max_batch",
        "ttft_s",
        "tpot_s",
        "tpot_roofline_s",
        "decode_tokens_per_s",
        "decode_tokens_per_s_per_user",
        "prefill_tokens_per_s",
        "bound",
        "cost_per_million_output_tokens_usd",
    }
    assert inference_keys <= set(data["inference"])
    assert set(data["inference"]["memory_per_gpu"]) == {"weights", "kv_cache", "activations", "other", "total"}
    assert data["inference"]["bound"] in ("memory", "compute")
    for name in ("time_s", "gpu_hours", "cost_usd", "tpot_s"):
        assert data["ranges"][name]["low"] <= data["ranges"][name]["high"]
    # every default filled in
    assert data["inputs"]["gpu"] == "h100-sxm" and data["inputs"]["interconnect"] == "nvlink4"
    assert data["inputs"]["tokens"] > 0 and data["inputs"]["seq_len"] == 4096


def test_a_concurrency_above_what_fits_is_served_with_a_queue_in_json_and_text():
    desk = ("estimate", "--model", "llama-3.1-8b", "--gpu", "rtx-4090", "--cards", "1", "--concurrency", "64")
    done = _run(*desk, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    served = data["inference"]
    assert served["fits"] is True and served["batch"] == 26 and served["queued"] == 38
    assert served["ttft_s"] > served["queue_wait_s"] > 1.0 and served["decode_tokens_per_s"] > 0
    assert {
        "code": "inference_queued",
        "values": {"queued": "38", "concurrency": "64", "running": "26", "wait": "14.0 s"},
    } in data["notes"]
    assert "38 of 64 sequences wait for a slot" in " ".join(data["warnings"])
    text = _run(*desk).stdout
    assert "64 in all, 38 waiting for a slot" in text and "of it in the queue" in text


def test_numbers_accept_suffixes_on_the_command_line(capsys):
    assert main(["estimate", "--params", "7B", "--tokens", "1.5T", "--cards", "1.024k", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["inputs"]["cards"] == 1024
    assert data["inputs"]["tokens"] == 1.5e12
    assert data["inputs"]["params"] == pytest.approx(7e9, rel=0.05)


def test_architecture_flags_override_a_preset(capsys):
    main(["estimate", "--model", "llama-2-7b", "--layers", "16", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["inputs"]["architecture"]["layers"] == 16
    assert data["inputs"]["params"] < 4e9


def test_mlp_and_tied_embedding_flags_shape_the_model(capsys):
    # A plain (GELU) MLP has two matrices instead of three; a tied head drops vocab x hidden.
    shape = ["estimate", "--layers", "32", "--hidden", "4096", "--ffn", "11008", "--json"]
    main([*shape, "--mlp", "gated"])
    gated = json.loads(capsys.readouterr().out)["inputs"]["params"]
    main([*shape, "--mlp", "plain"])
    plain = json.loads(capsys.readouterr().out)["inputs"]["params"]
    main([*shape, "--mlp", "plain", "--tied-embeddings", "true"])
    tied = json.loads(capsys.readouterr().out)
    assert plain < gated
    assert tied["inputs"]["params"] < plain
    assert tied["inputs"]["architecture"]["tied_embeddings"] is True


def test_a_parameter_count_with_an_mlp_kind_keeps_the_count(capsys):
    for kind in ("gated", "plain"):
        main(["estimate", "--params", "7B", "--mlp", kind, "--json"])
        document = json.loads(capsys.readouterr().out)
        assert document["inputs"]["architecture"]["mlp"] == kind
        assert document["inputs"]["params"] == pytest.approx(7e9, rel=0.03)


def test_a_given_shape_is_honoured_and_a_disagreeing_count_is_reported(capsys):
    # GPT-3 2.7B (Brown et al. 2020, Table 2.1): 32 layers, d_model 2,560, 32 heads of 80.
    shape = ["--layers", "32", "--hidden", "2560", "--heads", "32", "--kv-heads", "32", "--ffn", "10240"]
    main(["estimate", "--params", "2.7e9", *shape, "--vocab", "51200", "--json"])
    document = json.loads(capsys.readouterr().out)
    assert document["inputs"]["architecture"]["head_dim"] == 80
    assert document["inputs"]["params"] == pytest.approx(2.7e9, rel=0.02)
    assert not any("parameters, not the" in warning for warning in document["warnings"])
    main(["estimate", "--params", "2.7e9", *shape, "--vocab", "51200", "--mlp", "gated", "--json"])
    gated = json.loads(capsys.readouterr().out)
    assert any("parameters, not the 2.7B" in warning for warning in gated["warnings"])
    main(["estimate", "--params", "2.7e9", *shape, "--head-dim", "128", "--json"])
    wide = json.loads(capsys.readouterr().out)
    assert wide["inputs"]["architecture"]["head_dim"] == 128


def test_interleaved_pipeline_stages_shrink_the_bubble(capsys):
    # Narayanan et al. 2021: the 1F1B bubble is (p - 1) / (v m) of the compute.
    args = ["estimate", "--model", "llama-2-70b", "--cards", "64", "--tp", "8", "--pp", "8", "--micro-batch", "1"]
    args += ["--global-batch", "512", "--json"]  # the same m with and without interleaving
    main([*args, "--vp", "1"])
    plain = json.loads(capsys.readouterr().out)["training"]["step"]
    main([*args, "--vp", "4"])
    interleaved = json.loads(capsys.readouterr().out)["training"]["step"]
    assert interleaved["bubble"] / interleaved["compute"] == pytest.approx(plain["bubble"] / plain["compute"] / 4)


def test_a_human_summary_is_printed_without_json(capsys):
    main(["estimate", "--model", "deepseek-r1", "--precision", "fp8", "--gpu", "h20", "--cards", "8"])
    out = capsys.readouterr().out
    assert "DeepSeek-R1" in out and "TPOT" in out and "tokens/s" in out


def test_the_json_of_a_part_that_does_not_fit_has_its_memory_but_no_time_rate_or_price(capsys):
    main(["estimate", "--model", "llama-3.1-405b", "--gpu", "h100-sxm", "--cards", "1", "--batch", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    training, inference = out["training"], out["inference"]
    assert training["fits"] is False and inference["fits"] is False
    assert training["memory_per_gpu"]["total"] > 0 and training["total_flops"] > 0
    assert training["time_s"] is None and training["cost_usd"] is None and training["mfu"] is None
    assert inference["tpot_s"] is None and inference["decode_tokens_per_s"] is None
    assert all(c["time_s"] is None for c in training["layout_candidates"])
    assert not {"time_s", "gpu_hours", "tpot_s", "decode_tokens_per_s"} & out["ranges"].keys()
    main(["estimate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--cards", "8", "--json"])
    fitting = json.loads(capsys.readouterr().out)
    assert fitting["training"]["time_s"] > 0 and "time_s" in fitting["ranges"]


def test_a_summary_gives_no_time_or_cost_for_what_does_not_fit_and_names_what_would(capsys):
    main(["estimate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--cards", "1"])
    training = capsys.readouterr().out.split("inference:")[0]
    assert "fits: no" in training
    assert "days" not in training and "GPU-hours" not in training and "$" not in training
    assert "not run: needs" in training and "fits with: 2 cards" in training
    main(["estimate", "--model", "llama-3.1-405b", "--gpu", "h100-sxm", "--cards", "1", "--batch", "1"])
    serving = capsys.readouterr().out.split("inference:")[1]
    assert "TPOT" not in serving and "per million" not in serving
    assert "not run: needs" in serving and "fits with:" in serving


@pytest.mark.parametrize(
    ("args", "flag", "hint"),
    [
        (["--cards", "0"], "--cards", "from 1"),
        (["--cards", "-4"], "--cards", "from 1"),
        (["--cards", "2.5"], "--cards", "whole number"),
        (["--cards", "lots"], "--cards", "not a number"),
        (["--params", "nan"], "--params", "not a number"),
        (["--params", "inf"], "--params", "not a number"),
        (["--params", "1e30"], "--params", "out of range"),
        (["--tokens", "-1"], "--tokens", "out of range"),
        (["--gpu", "h9000"], "--gpu", "one of"),
        (["--model", "gpt-9"], "--model", "one of"),
        (["--interconnect", "warp"], "--interconnect", "one of"),
        (["--network", "carrier-pigeon"], "--network", "one of"),
        (["--precision", "fp3"], "--precision", "choose from"),
        (["--zero", "5"], "--zero", "choose from"),
        (["--utilization", "0"], "--utilization", "above 0"),
        (["--batch", "many"], "--batch", "not a number"),
        (["--heads", "7", "--model", "llama-2-7b"], "--heads", "divisor of hidden"),
        (["--kv-heads", "5", "--model", "llama-3.1-8b"], "--kv-heads", "divisor of heads"),
        (["--catalog", "/no/such/file.yaml"], "--catalog", "cannot be read"),
        (["--vp", "0"], "--vp", "from 1"),
        (["--mlp", "cubic"], "--mlp", "choose from"),
        (["--concurrency", "0"], "--concurrency", "out of range"),
        (["--concurrency", "64", "--batch", "8"], "--concurrency", "not both"),
        # Fixed layout dimensions the cards cannot hold (issue 29): refused, naming what would work.
        (["--cards", "64", "--tp", "8", "--dp", "16"], "--dp", "at most 8 with tp 8 on 64 cards"),
        (["--cards", "64", "--dp", "12"], "--dp", "a divisor of the 64 cards (e.g. 8)"),
        (["--cards", "4", "--tp", "8"], "--tp", "tp 8 needs 8 cards; the scenario has 4"),
        (["--cards", "8", "--tp", "4", "--pp", "4"], "--pp", "tp 4 × pp 4 needs 16 cards"),
        (["--cards", "64", "--model", "mixtral-8x7b", "--tp", "2", "--dp", "8", "--ep", "3"], "--ep", "tp × dp"),
    ],
)
def test_bad_input_exits_2_with_one_line_naming_the_flag(args, flag, hint):
    done = _run("estimate", *args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert flag in lines[0] and hint in lines[0]
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_a_bad_user_catalog_is_refused_naming_file_row_and_field(tmp_path):
    path = tmp_path / "extra.yaml"
    path.write_text("gpus:\n  - id: x\n    name: X\n    memory_gb: -1\n", encoding="utf-8")
    done = _run("estimate", "--catalog", str(path))
    assert done.returncode == 2
    assert "extra.yaml, row 'x', field 'memory_gb'" in done.stderr


def test_a_user_catalog_adds_a_gpu_the_estimate_can_use(tmp_path):
    path = tmp_path / "extra.yaml"
    path.write_text(
        "gpus:\n  - id: my-card\n    name: My Card\n    memory_gb: 48\n    memory_bandwidth_gb_per_s: 1000\n"
        "    dense_tflops: {bf16: 200}\n    source: mine\n",
        encoding="utf-8",
    )
    done = _run("estimate", "--catalog", str(path), "--gpu", "my-card", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["inputs"]["gpu"] == "my-card"


@pytest.mark.parametrize("kind", ["gpus", "models", "interconnects", "networks", "precisions"])
def test_list_prints_each_catalog(kind, capsys):
    assert main(["list", kind, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all("id" in row for row in rows)


def test_list_precisions_gives_each_formats_bits_and_family(capsys):
    main(["list", "precisions", "--json"])
    rows = {row["id"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["q4_k_m"] == {
        "id": "q4_k_m", "family": "gguf", "bits_per_weight": 4.5, "trainable": False, "kv_default": "fp16",
    }  # fmt: skip
    assert rows["mxfp4"]["bits_per_weight"] == 4.25 and rows["bf16"]["trainable"]


def test_a_gguf_precision_and_a_quantised_kv_cache_are_flags(capsys):
    args = ["estimate", "--model", "llama-2-7b", "--gpu", "rtx-4090", "--cards", "1", "--batch", "1", "--json"]
    main([*args, "--precision", "q4_k_m", "--kv-precision", "q8_0"])
    data = json.loads(capsys.readouterr().out)
    assert data["inputs"]["precision"] == "q4_k_m" and data["inputs"]["kv_precision"] == "q8_0"
    assert data["inference"]["memory_per_gpu"]["weights"] == pytest.approx(4_081_004_224, rel=1e-3)
    main([*args, "--precision", "q4_k_m"])
    assert json.loads(capsys.readouterr().out)["inputs"]["kv_precision"] == "fp16"  # llama.cpp's default cache


def test_list_prints_a_readable_table(capsys):
    main(["list", "gpus"])
    out = capsys.readouterr().out
    assert "h100-sxm" in out and "memory_gb" in out


def test_an_endless_catalog_file_is_refused_not_read_to_the_end():
    # Issue 14's fuzzing: /dev/zero has no size, and read_bytes() read until memory ran out.
    done = subprocess.run(
        ["/bin/sh", "-c", f"ulimit -v 2000000; {sys.executable} -m model estimate --catalog /dev/zero"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr[-300:]
    assert (
        done.stderr == "python -m model: error: argument --catalog: /dev/zero: larger than the 256,000 bytes allowed\n"
    )


def test_plan_train_refuses_a_token_count_with_the_engines_limit(capsys):
    # Issue 14's fuzzing: --tokens took up to 1e17, then the engine refused past 1e16 with another range.
    with pytest.raises(SystemExit) as done:
        main(["plan", "train", "--tokens", "5e16"])
    assert done.value.code == 2
    assert (
        "plan train: error: argument --tokens: '5e16' is out of range; expected a token count from 1000 to 1e+16"
        in (capsys.readouterr().err)
    )


def test_a_global_batch_the_layout_rounds_up_is_said(capsys):
    # Issue 14's fuzzing: --global-batch 2 on 8 cards ran as 8 sequences per step without a word.
    main(["estimate", "--global-batch", "2", "--json"])
    document = json.loads(capsys.readouterr().out)
    assert document["training"]["global_batch"] == 8
    assert (
        "the global batch of 2 sequences runs as 8: each of the 8 replicas takes whole micro-batches"
        in (document["warnings"])
    )
    main(["estimate", "--global-batch", "64", "--json"])
    assert not any("global batch" in warning for warning in json.loads(capsys.readouterr().out)["warnings"])


@pytest.mark.parametrize(("path", "shown"), [("\x00", r"'\x00'"), ("a\nb", r"'a\nb'")])
def test_a_catalog_path_with_a_nul_or_a_newline_is_refused_on_one_line(path, shown, capsys):
    # Issue 14's fuzzing: a NUL byte in --catalog raised ValueError (a traceback); a newline split the message.
    with pytest.raises(SystemExit) as done:
        main(["estimate", f"--catalog={path}"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"python -m model: error: argument --catalog: {shown}: cannot be read")


@pytest.mark.parametrize("field", ["tp", "pp", "dp", "cards", "attention_dp", "prompt_len"])
def test_each_flag_takes_its_range_from_the_engines_one_table(field):
    # Issue 30: the CLI allowed tp up to 1,000,000 while the engine allowed 4,096.
    from model import INT_LIMITS

    low, high = INT_LIMITS[field]
    flag = "--" + field.replace("_", "-")
    refused = _run("estimate", flag, str(high + 1))
    assert refused.returncode == 2 and f"from {low:g} to {high:g}" in refused.stderr


def test_a_training_dp_beside_a_serving_replica_prints_a_summary_not_a_traceback():
    # Found by the invariant suite (issue 29): the serving fixes pinned the replica's tp beside the training dp.
    done = _run("estimate", "--model", "llama-3.1-70b", "--gpu", "rtx-4090", "--cards", "2", "--dp", "2")
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert "fits with: 8 cards" in done.stdout


def test_hf_fetches_a_model_and_estimates_its_shape(hub):
    # Issue 32's done-when line: HF_ENDPOINT=<a local test server> ... --hf mistralai/Mistral-7B-v0.1 --json.
    done = _run("estimate", "--hf", "mistralai/Mistral-7B-v0.1", "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    # Mistral 7B: 7,241,732,096 parameters (the model page's safetensors count; arXiv:2310.06825 Table 1).
    assert document["inputs"]["params"] == pytest.approx(7.24e9, rel=0.01)
    assert document["inputs"]["model"] == "hf-mistralai-mistral-7b-v0.1"
    shape = document["inputs"]["architecture"]
    assert [shape[key] for key in ("layers", "hidden", "heads", "kv_heads", "ffn")] == [32, 4096, 32, 8, 14336]
    assert document["hf"]["repo"] == "mistralai/Mistral-7B-v0.1"
    assert document["hf"]["config_url"] == f"{hub.url}/mistralai/Mistral-7B-v0.1/resolve/main/config.json"


def test_hf_offline_says_so_on_one_line_and_exits_2():
    done = _run("estimate", "--hf", "mistralai/Mistral-7B-v0.1", "--json")  # tests/conftest.py: a closed port
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("python -m model: error: argument --hf: mistralai/Mistral-7B-v0.1: cannot reach ")


def test_hf_beside_model_is_refused_naming_both():
    done = _run("estimate", "--hf", "mistralai/Mistral-7B-v0.1", "--model", "mistral-7b")
    assert done.returncode == 2
    assert "--hf" in done.stderr and "--model" in done.stderr and "not allowed" in done.stderr


def test_hf_gated_asks_for_the_token_and_opens_with_it(hub, capsys, monkeypatch):
    with pytest.raises(SystemExit) as done:
        main(["estimate", "--hf", "meta-llama/Llama-3.1-8B"])
    assert done.value.code == 2
    assert "argument --hf: meta-llama/Llama-3.1-8B is gated" in capsys.readouterr().err
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    assert main(["estimate", "--hf", "https://huggingface.co/meta-llama/Llama-3.1-8B", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["inputs"]["params"] == pytest.approx(8_030_261_248)


def test_hf_says_where_it_read_the_model_and_a_checkpoint_that_disagrees(hub, capsys):
    assert main(["estimate", "--hf", "test/disagreeing", "--json"]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert any(w.startswith("test/disagreeing: its checkpoint holds 9B parameters") for w in warnings)
    assert main(["estimate", "--hf", "test/disagreeing"]) == 0
    out = capsys.readouterr().out
    assert f"model: {hub.url}/test/disagreeing/resolve/main/config.json" in out
    assert "warning: test/disagreeing: its checkpoint holds 9B" in out


def test_hf_shape_flags_modify_the_fetched_model(hub, capsys):
    assert main(["estimate", "--hf", "Qwen/Qwen3-14B", "--layers", "20", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["inputs"]["architecture"]["layers"] == 20
    assert document["inputs"]["model_name"] == "Qwen/Qwen3-14B (modified)"


def test_plan_takes_a_model_by_hf_id(hub, capsys):
    argv = ["plan", "serve", "--hf", "Qwen/Qwen3-14B", "--output-tokens-per-s", "1000", "--gpus", "h100-sxm", "--json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["options"]
