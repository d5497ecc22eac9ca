"""The software stack in the app (issue 33): a sidebar choice bound to the link, offered per GPU and goal."""

from model import default_catalog, stacks_for
from tests.app.conftest import open_page

EIGHT_Q4_ON_A_4090 = {"model": "llama-3.1-8b", "precision": "q4_k_m", "gpu": "rtx-4090", "cards": "1"}


def _options(at):
    return next(box for box in at.sidebar.selectbox if box.key == "stack").options


def test_the_picker_lists_what_runs_on_the_gpu_for_the_goal_typical_first():
    serving = _options(open_page("overview", model="llama-3.1-8b", gpu="rtx-4090"))
    assert serving[0] == "Typical (not said)" and "llama.cpp" in serving and "Megatron-LM / NeMo" not in serving
    training = _options(open_page("overview", goal="pretrain", gpu="mi300x"))
    assert "Megatron-LM / NeMo" in training and "vLLM" not in training
    names = {default_catalog().stacks[ident].name for ident in stacks_for(default_catalog(), "mi300x", "pretrain")}
    assert set(training[1:]) == names - {"typical (not said)"}


def test_a_named_stack_changes_the_answer_and_the_link_keeps_it():
    server = open_page("overview", stack="vllm", **EIGHT_Q4_ON_A_4090)
    desk = open_page("overview", stack="llamacpp", **EIGHT_Q4_ON_A_4090)
    assert desk.session_state["stack"] == "llamacpp"
    assert all(at.success[0].value.startswith("**Serving fits**") for at in (server, desk))
    speeds = [[metric.value for metric in at.metric] for at in (server, desk)]
    assert speeds[0] != speeds[1]  # the desk runner's kernels read 4-bit weights faster


def test_a_gguf_file_left_typical_runs_as_llama_cpp_and_says_so():
    typical = open_page("overview", **EIGHT_Q4_ON_A_4090)
    desk = open_page("overview", stack="llamacpp", **EIGHT_Q4_ON_A_4090)
    assert typical.session_state["stack"] == "typical"
    assert _options(typical)[0] == "Typical: llama.cpp"
    assert [metric.value for metric in typical.metric] == [metric.value for metric in desk.metric]
    notes = " ".join(element.value for element in typical.markdown).replace("\\", "")  # markdown escapes
    assert "software not said: q4_k_m on NVIDIA GeForce RTX 4090 is estimated as llama.cpp runs it" in notes


def test_a_stack_off_its_platform_is_kept_and_refused_plainly():
    at = open_page("overview", stack="trtllm", gpu="mi300x")
    assert at.session_state["stack"] == "trtllm" and "TensorRT-LLM" in _options(at)
    shown = " ".join(element.value for element in at.error).replace("\\", "")  # markdown escapes
    assert "TensorRT-LLM runs on cuda, not on" in shown and "pick another stack" in shown


def test_a_stack_the_catalog_lacks_is_dropped_with_a_suggestion():
    at = open_page("overview", stack="llama.cpp")
    assert at.session_state["stack"] == "typical"
    assert any("did you mean llamacpp" in element.value for element in [*at.warning, *at.info, *at.error])
