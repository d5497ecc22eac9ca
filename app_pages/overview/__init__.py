"""The Overview page: the headline figures for the scenario, and one user's time per token against a CPU."""
