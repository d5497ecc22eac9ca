"""Run the engine benchmark (``python -m benchmarks``); the app's are ``benchmarks.app`` and ``benchmarks.browser``."""

from benchmarks.engine import main

main()
