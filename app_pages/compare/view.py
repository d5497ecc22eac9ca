"""The Compare page's view model: the scenario run on every GPU, once, as the sentences and table rows it shows.

One step, built before the table's filter and remembered by :func:`ui.view.view_or_stop`: the
scenario resolved (its model's name and training tokens, without estimating it), then
:func:`model.analyses.compare.compare_gpus` (one estimate per GPU, the scenario's own GPU at full
load). The table's rows come ready for each of the filters, so the filter (a fragment) reruns
without the engine. ``python -m benchmarks.engine_calls`` prints how many estimates a rerun takes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app_pages.compare.rows import (
    FILTERS,
    cards_text,
    compare_caption,
    compare_takeaway,
    filter_comparisons,
    gpu_table_rows,
)
from model import Catalog, Scenario, resolve
from model.analyses.compare import compare_gpus
from ui.format import billions
from ui.i18n import tr

__all__ = ["CompareView", "compare_view"]

Rows = tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class CompareView:
    """Every sentence and table row the Compare page shows for one scenario."""

    title: str
    tag: str
    """The title on one line while presenting: 'Every GPU · 8.03B · bf16 · 8 cards'."""
    takeaway: str
    tables: tuple[tuple[str, Rows], ...]
    """(filter, rows) for each of :data:`~app_pages.compare.rows.FILTERS`, the current GPU first."""
    caption: str

    def table(self, which: str) -> Rows:
        """Return the table's rows under the filter ``which`` (an unknown filter: every GPU)."""
        return dict(self.tables).get(which, self.tables[0][1])


def compare_view(scenario: Scenario, catalog: Catalog) -> CompareView:
    """Return the Compare page for ``scenario``.

    Raises:
        ScenarioError: the scenario is invalid.
    """
    resolved = resolve(scenario, catalog)  # the title's model and the caption's tokens: no estimate needed
    comparisons = compare_gpus(scenario, catalog)
    return CompareView(
        title=tr(
            "Every GPU for {model} · {precision} · {cards}",
            model=resolved.model_name,
            precision=scenario.precision,
            cards=cards_text(scenario.cards),
        ),
        tag=tr(
            "Every GPU · {params} · {precision} · {cards}",
            params=billions(resolved.arch.stats.total_params),
            precision=scenario.precision,
            cards=cards_text(scenario.cards),
        ),
        takeaway=compare_takeaway(comparisons, scenario.gpu, scenario.cards),
        tables=tuple(
            (which, tuple(gpu_table_rows(filter_comparisons(comparisons, which), scenario.gpu))) for which in FILTERS
        ),
        caption=compare_caption(scenario, resolved.tokens),
    )
