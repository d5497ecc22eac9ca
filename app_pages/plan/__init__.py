"""The Plan page: the cheapest setups that meet a goal, by GPU and card count."""
