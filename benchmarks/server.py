"""Start the app on a loopback port for a benchmark, and read its memory."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
    "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def free_port() -> int:
    """Return a free TCP port on 127.0.0.1."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def running_server(log: Path | None = None) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """Run ``streamlit run app.py`` on a free loopback port until the block ends.

    Args:
        log: a file for the server's output (tracebacks included); None discards it.
    """
    port = free_port()
    command = [
        sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
        "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
        "--server.fileWatcherType", "none", "--global.developmentMode", "false",
    ]  # fmt: skip
    with (log or Path(os.devnull)).open("wb") as output:  # the server keeps its own copy of the descriptor
        process = subprocess.Popen(command, cwd=ROOT, stdout=output, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                    if response.read() == b"ok":
                        break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the server did not become healthy in 60 s") from None
                time.sleep(0.2)
        yield process, url
    finally:
        process.terminate()
        process.wait(timeout=15)


def peak_memory_bytes(pid: int) -> int | None:
    """Return a process's peak resident memory (VmHWM) in bytes, where /proc has it."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def resident_memory_bytes(pid: int) -> int | None:
    """Return a process's current resident memory (VmRSS) in bytes, where /proc has it."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None
