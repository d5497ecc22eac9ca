"""The tokens-per-second page: throughput and one user's speed as the batch grows, and one decode step."""
