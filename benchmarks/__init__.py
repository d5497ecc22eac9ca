"""Speed benchmarks of the engine and the app: python -m benchmarks."""
