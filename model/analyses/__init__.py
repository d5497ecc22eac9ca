"""Analyses the pages show, each built from estimates and each a public module of its own.

- :mod:`~model.analyses.serving`: speed against batch, the memory/compute knee, a latency target's batch
- :mod:`~model.analyses.fit`: the largest batch, context, micro-batch and sequence that fit; what each knob does
- :mod:`~model.analyses.scaling`: training time and cost as the card count grows, with slower links
- :mod:`~model.analyses.economics`: the training bill against months of serving, self-hosted or by API
- :mod:`~model.analyses.compare`: every GPU for one scenario, saved scenarios, one user against full load
- :mod:`~model.analyses.anatomy`: a GPU's memory hierarchy and links; :mod:`~model.analyses.generations`: V100 to B200
- :mod:`~model.analyses.search`: the integer searches they share

The analyses are independent of one another, so this package exports nothing: import each name
from its module (``from model.analyses.serving import batch_sweep``).
"""

__all__: list[str] = []
