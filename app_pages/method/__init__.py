"""The Method page: the formulas, the assumptions and the seed articles' claims checked."""
