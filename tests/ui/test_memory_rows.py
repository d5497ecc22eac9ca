"""Memory rows the pages share: the serving budget in words and as a chart row."""

from model import Scenario, default_catalog, estimate
from ui.memory_rows import budget_text


def test_the_budget_is_said_in_words_with_the_engines_share():
    server = estimate(Scenario(gpu="rtx-4090")).resolved.serving_budget
    assert "90%" in budget_text(server) and "gpu_memory_utilization" in budget_text(server)


def test_a_desk_runner_says_the_margin_it_leaves_free():
    desk = default_catalog().stacks["llamacpp"].serving_budget
    assert "1.1 GB of each card free" in budget_text(desk)  # llama.cpp's --fit-target, 1024 MiB
