"""Memory rows the pages share: the serving budget in words and as a chart row."""

from ui.memory_rows import budget_text


def test_the_budget_is_said_in_words_with_the_engines_share():
    assert "90%" in budget_text() and "gpu_memory_utilization" in budget_text()
