"""The training-vs-serving cost page: what training costs, what serving costs over months, and scaling with cards."""
