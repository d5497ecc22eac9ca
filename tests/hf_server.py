"""A stand-in for the Hugging Face Hub on 127.0.0.1, serving the real config.json files in tests/data/hf.

Paths are the Hub's, ``/{org}/{name}/resolve/main/{file}``, with its answers: 401 for a gated
model without the token (403 with another token), 404 with ``X-Error-Code: RepoNotFound`` for an
unknown model and ``EntryNotFound`` for a file the model does not have. The ``test/...`` models
misbehave on purpose: slow, trickling, oversized, endless, not JSON, a server error, redirects (on the same
host and to another), no config.json, a checkpoint whose size disagrees with its config, a
quantized checkpoint, a state-space model. :func:`serve_hub` runs it in a thread and yields its
address with the paths it was asked for.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, NamedTuple

from model.catalog.hf_config import MAX_CONFIG_BYTES

__all__ = ["DATA", "GATED", "OFFLINE", "SLOW_S", "TOKEN", "Hub", "serve_hub"]

DATA = Path(__file__).resolve().parent / "data" / "hf"
TOKEN = "hf_test_token"
OFFLINE = "http://127.0.0.1:9"
"""An endpoint nothing answers on (the discard port, closed): a fetch fails at once, as offline."""
GATED = frozenset({"google/gemma-2-9b", "meta-llama/Llama-3.1-8B"})
"""Gated on the Hub as well: their licences must be accepted before the files are served."""
SLOW_S = 2.0
"""How long test/slow waits before answering (a test's timeout is shorter)."""
_MISTRAL = DATA / "mistralai" / "Mistral-7B-v0.1"
_MAMBA = {  # state-spaces/mamba-130m-hf's config.json, abridged
    "architectures": ["MambaForCausalLM"], "model_type": "mamba", "hidden_size": 768, "num_hidden_layers": 24,
    "state_size": 16, "vocab_size": 50280, "intermediate_size": 1536,
}  # fmt: skip


class Hub(NamedTuple):
    """A running stand-in: its address (an ``HF_ENDPOINT``) and the paths asked for, in order."""

    url: str
    requests: list[str]


class _Server(ThreadingHTTPServer):
    requests: list[str]

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Say nothing of a client that hung up (a timeout test's): a later test may be capturing stderr."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Hub(BaseHTTPRequestHandler):
    """Answer GETs as the Hub's resolve endpoint does."""

    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        """Keep the test output quiet."""

    def _send(self, status: int, body: bytes = b"", *, error: str = "", length: bool = True) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json" if status == 200 else "text/plain")
        if error:
            self.send_header("X-Error-Code", error)
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        """Serve ``/{org}/{name}/resolve/main/{file}``."""
        self.server.requests.append(self.path)
        parts = self.path.split("?")[0].strip("/").split("/")
        if len(parts) != 5 or parts[2:4] != ["resolve", "main"]:
            self._send(404, b"Repository not found", error="RepoNotFound")
            return
        repo, file = "/".join(parts[:2]), parts[4]
        special = _SPECIAL.get(repo)
        if special is not None:
            special(self, file)
            return
        if repo in GATED and self.headers.get("Authorization") != f"Bearer {TOKEN}":
            status = 403 if self.headers.get("Authorization") else 401
            self._send(status, b"Access to this model is restricted", error="GatedRepo")
            return
        folder = DATA / repo
        if not folder.is_dir():
            self._send(404, b"Repository not found", error="RepoNotFound")
        elif not (folder / file).is_file():
            self._send(404, b"Entry not found", error="EntryNotFound")
        else:
            self._send(200, (folder / file).read_bytes())


def _slow(hub: _Hub, file: str) -> None:
    time.sleep(SLOW_S)
    hub._send(200, (_MISTRAL / "config.json").read_bytes())


def _trickle(hub: _Hub, file: str) -> None:
    """Headers at once, then the body a byte at a time: each read is quick, the whole is not."""
    body = (_MISTRAL / "config.json").read_bytes()
    hub.send_response(200)
    hub.send_header("Content-Length", str(len(body)))
    hub.end_headers()
    with contextlib.suppress(OSError):  # the client gave up
        for byte in body[: int(SLOW_S / 0.05)]:
            hub.wfile.write(bytes([byte]))
            hub.wfile.flush()
            time.sleep(0.05)


def _oversized(hub: _Hub, file: str) -> None:
    hub._send(200, b" " * MAX_CONFIG_BYTES + b"{}")


def _endless(hub: _Hub, file: str) -> None:
    """No Content-Length: the body ends when the connection closes, far past any cap."""
    with contextlib.suppress(OSError):  # the client stopped reading at its cap
        hub._send(200, b"{" + b'"x": 1, ' * 40_000, length=False)


def _not_json(hub: _Hub, file: str) -> None:
    hub._send(200, b"<!DOCTYPE html><html><body>Hugging Face is down</body></html>")


def _server_error(hub: _Hub, file: str) -> None:
    hub._send(500, b"Internal Server Error")


def _redirect(hub: _Hub, location: str) -> None:
    hub.send_response(307)
    hub.send_header("Location", location)
    hub.send_header("Content-Length", "0")
    hub.end_headers()


def _renamed(hub: _Hub, file: str) -> None:
    """A renamed repository: the Hub answers 307 to the new name."""
    _redirect(hub, f"/mistralai/Mistral-7B-v0.1/resolve/main/{file}")


def _renamed_gated(hub: _Hub, file: str) -> None:
    """A renamed gated repository: the token must follow the redirect on the same host."""
    _redirect(hub, f"/google/gemma-2-9b/resolve/main/{file}")


def _elsewhere(hub: _Hub, file: str) -> None:
    """A redirect to another host (localhost, not 127.0.0.1): the token must not follow it."""
    _redirect(hub, f"http://localhost:{hub.server.server_address[1]}/google/gemma-2-9b/resolve/main/{file}")


def _gguf_only(hub: _Hub, file: str) -> None:
    """A repository of GGUF files: no config.json."""
    hub._send(404, b"Entry not found", error="EntryNotFound")


def _quantized(hub: _Hub, file: str) -> None:
    """gpt-oss-20b's config (MXFP4 experts) with an index whose bytes do not count its weights."""
    if file == "config.json":
        hub._send(200, (DATA / "openai" / "gpt-oss-20b" / "config.json").read_bytes())
    else:
        hub._send(200, json.dumps({"metadata": {"total_size": 13_761_264_768}, "weight_map": {}}).encode())


def _disagreeing(hub: _Hub, file: str) -> None:
    """Mistral's config with an index of 9 billion bfloat16 weights (a vision tower the config does not describe)."""
    if file == "config.json":
        hub._send(200, (_MISTRAL / "config.json").read_bytes())
    else:
        hub._send(200, json.dumps({"metadata": {"total_size": 18_000_000_000}, "weight_map": {}}).encode())


def _big_index(hub: _Hub, file: str) -> None:
    """Mistral's config with an index whose weight map runs to megabytes (a large mixture of experts)."""
    if file == "config.json":
        hub._send(200, (_MISTRAL / "config.json").read_bytes())
        return
    names = (f"model.layers.{i}.mlp.experts.{j}.w.weight" for i in range(60) for j in range(512))
    weights = dict.fromkeys(names, "model-00001.safetensors")
    hub._send(200, json.dumps({"metadata": {"total_parameters": 7_241_732_096}, "weight_map": weights}).encode())


def _mamba(hub: _Hub, file: str) -> None:
    if file == "config.json":
        hub._send(200, json.dumps(_MAMBA).encode())
    else:
        hub._send(404, b"Entry not found", error="EntryNotFound")


_SPECIAL = {
    "test/slow": _slow,
    "test/trickle": _trickle,
    "test/oversized": _oversized,
    "test/endless": _endless,
    "test/not-json": _not_json,
    "test/server-error": _server_error,
    "test/renamed": _renamed,
    "test/renamed-gated": _renamed_gated,
    "test/elsewhere": _elsewhere,
    "test/gguf-only": _gguf_only,
    "test/quantized": _quantized,
    "test/disagreeing": _disagreeing,
    "test/big-index": _big_index,
    "state-spaces/mamba-130m-hf": _mamba,
}


@contextmanager
def serve_hub() -> Iterator[Hub]:
    """Run the stand-in on a free port of 127.0.0.1; yield its address and the paths it is asked for."""
    server = _Server(("127.0.0.1", 0), _Hub)
    server.requests = []
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield Hub(f"http://127.0.0.1:{server.server_address[1]}", server.requests)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
