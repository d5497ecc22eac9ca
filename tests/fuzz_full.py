"""The full fuzz run (issue 14): ``python -m tests.fuzz_full`` prints counts, failures and times.

Defaults are the issue's figures: 10,000 links through the app's first run (every page's engine
calls, the Plan page's search for one in eight), 300 of them through AppTest on a page in English
or 中文, 10,000 catalog uploads, 10,000 config.json documents and 10,000 form entries through the
Add page's steps, and 2,000 hypothesis command lines for each of ``estimate``, ``plan serve`` and
``plan train``. It exits 1 when anything failed. Pin it to one core: ``taskset -c 1 python -m tests.fuzz_full``.
CI runs a sample of each part (tests/**/test_*fuzz*.py).
"""

from __future__ import annotations

import argparse
import time
import traceback
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["main"]


def _part(name: str, cases: Iterable[Any], check: Callable[[Any], list[str]], shown: int) -> tuple[int, int]:
    """Check every case; print the part's count, failures (the first ``shown`` in full) and time."""
    started, count, failures = time.perf_counter(), 0, 0
    for case in cases:
        count += 1
        try:
            problems = check(case)
        except Exception:  # the harness itself: reported, never hidden
            problems = ["the check raised", traceback.format_exc(limit=-4)]
        if problems:
            failures += 1
            if failures <= shown:
                print(f"  FAIL {name} #{count}: {str(case)[:300]!r}")
                print("    " + "\n    ".join(line[:2000] for line in problems))
        if count % 1000 == 0:
            print(f"  {name}: {count:,} checked, {failures} failed, {time.perf_counter() - started:,.0f} s", flush=True)
    print(f"{name}: {count:,} cases, {failures} failures, {time.perf_counter() - started:,.1f} s", flush=True)
    return count, failures


def _cli(per_command: int, shown: int) -> tuple[int, int]:
    from hypothesis import HealthCheck, Phase, given, settings

    from tests.fuzz_cli import COMMANDS, check_cli, command_lines

    lines: list[list[str]] = []
    for command in COMMANDS:
        # Drawn (not shrunk: every failure is counted), then checked like the other parts.
        @settings(
            max_examples=per_command, database=None, deadline=None, phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )  # fmt: skip
        @given(command_lines(command))
        def draw(argv: list[str]) -> None:
            lines.append(argv)

        draw()
    return _part("command lines", lines, check_cli, shown)


def main(argv: list[str] | None = None) -> int:
    """Run every part; return 1 when a case failed."""
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz_full", description=__doc__.splitlines()[0])
    parser.add_argument("--links", type=int, default=10_000, help="links through the app's first run")
    parser.add_argument("--apptest", type=int, default=300, help="links through AppTest, on a page")
    parser.add_argument("--uploads", type=int, default=10_000, help="catalog uploads; as many config.json and forms")
    parser.add_argument("--cli", type=int, default=2_000, help="command lines for each of the three commands")
    parser.add_argument("--shown", type=int, default=5, help="failures printed in full per part")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    from tests.fuzz_app import check_in_app
    from tests.fuzz_configs import check_config, check_form, config_cases, form_cases
    from tests.fuzz_links import check_link, linked_link
    from tests.fuzz_uploads import check_upload, upload_cases
    from tests.fuzzing import PAGES

    def link(seed: int) -> list[str]:
        return check_link(linked_link(seed), seed % 8 == 0, "zh-CN" if seed % 2 else "en-US")

    def in_app(seed: int) -> list[str]:
        page = PAGES[seed % len(PAGES)] if seed % 3 else None
        return check_in_app(linked_link(seed), page, "zh" if seed % 2 else "en")

    totals = [
        _part("links (first run)", range(args.links), link, args.shown),
        _part("links (AppTest)", range(50_000, 50_000 + args.apptest), in_app, args.shown),
        _part("catalog uploads", upload_cases(args.uploads), lambda case: check_upload(*case), args.shown),
        _part("config.json", config_cases(args.uploads), lambda case: check_config(*case), args.shown),
        _part("Add-page forms", form_cases(args.uploads), lambda case: check_form(*case), args.shown),
        _cli(args.cli, args.shown),
    ]
    count, failures = sum(c for c, _ in totals), sum(f for _, f in totals)
    print(f"total: {count:,} cases, {failures} failures, {time.perf_counter() - started:,.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
