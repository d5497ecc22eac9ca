"""Run every benchmark: ``python -m benchmarks``."""

from benchmarks.engine import main

main()
