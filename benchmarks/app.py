"""Speed and memory of the app: AppTest reruns, browser load and update times, server memory.

Run with ``python -m benchmarks.app`` (needs Debian's chromium for the browser part).
Targets (issue 3): a rerun after a slider change <= 2x a trivial one-slider page's rerun (both
with AppTest, same run); first load to idle <= 3 s; slider move to updated chart <= 1 s;
the server under 1 GB.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

from ui.navigation import page_files

ROOT = Path(__file__).resolve().parents[1]
TRIVIAL_PAGE = 'import streamlit as st\nst.slider("x", 0, 100, 50, key="x")\n'
PAGES = {name: None if name == "overview" else path for name, path in page_files().items() if name != "add"}


def _median_rerun(at: AppTest, move, repeats: int) -> float:
    samples = []
    for index in range(repeats):
        start = time.perf_counter()
        move(at, index).run()
        samples.append(time.perf_counter() - start)
        if at.exception:
            raise RuntimeError(at.exception)
    return statistics.median(samples)


def trivial_rerun(repeats: int = 40) -> float:
    """Median seconds of a trivial one-slider page's rerun after its slider moves (AppTest)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trivial.py"
        path.write_text(TRIVIAL_PAGE, encoding="utf-8")
        at = AppTest.from_file(str(path), default_timeout=60).run()
        return _median_rerun(at, lambda a, i: a.slider(key="x").set_value(10 + i % 80), repeats)


def app_rerun(page: str | None, repeats: int = 20) -> float:
    """Median seconds of the app's rerun on ``page`` after the sidebar Cards slider moves."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    if page:
        at.switch_page(page).run()
    return _cards_reruns(at, repeats)


def _cards_reruns(at: AppTest, repeats: int) -> float:
    steps = (4, 8, 16, 32, 64)
    return _median_rerun(at, lambda a, i: a.select_slider(key="cards").set_value(steps[i % len(steps)]), repeats)


def shell_rerun(repeats: int = 20) -> float:
    """Median seconds of app.py's rerun with one empty page: the sidebar, page list, share and URL sync.

    The source is app.py's own, with its page list swapped for one empty callable page, so this
    follows app.py as it changes.
    """
    source = (ROOT / "app.py").read_text(encoding="utf-8")
    empty = 'st.session_state[pages_key] = [st.Page(lambda: st.title("Empty"), title="Empty", default=True)]'
    shell = source.replace("st.session_state[pages_key] = build_pages()", empty)
    if shell == source:
        raise RuntimeError("app.py no longer builds its pages with build_pages(); update shell_rerun")
    at = AppTest.from_string(shell, default_timeout=60).run()
    return _cards_reruns(at, repeats)


def main() -> None:
    """Print rerun times for every page against the trivial page."""
    trivial = trivial_rerun()
    print(f"trivial one-slider page, AppTest rerun: {trivial * 1e3:.1f} ms (median)")
    shell = shell_rerun()
    print(f"app shell with an empty page: {shell * 1e3:5.1f} ms = {shell / trivial:4.1f}x trivial")
    for name, page in PAGES.items():
        seconds = app_rerun(page)
        print(
            f"{name:>9}: rerun after the Cards slider moves {seconds * 1e3:6.1f} ms = {seconds / trivial:4.1f}x trivial"
        )
    trivial_again = trivial_rerun()
    print(f"trivial again: {trivial_again * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
