"""A model by its Hugging Face id or link: the repository's config.json fetched and read as a models: row.

Standard library only (``urllib``). The files are read where huggingface_hub reads them,
``{endpoint}/{org}/{name}/resolve/main/{file}`` (``huggingface_hub.hf_hub_url``), from the endpoint
``HF_ENDPOINT`` names (a mirror such as https://hf-mirror.com, or a test server; huggingface_hub's
constants.py reads the same variable) or https://huggingface.co; ``HF_TOKEN`` goes with them as
``Authorization: Bearer`` (how huggingface_hub reaches gated and private models) and is never sent
to another host a redirect points at. ``HF_HUB_DOWNLOAD_TIMEOUT`` (huggingface_hub's, 10 s by
default) bounds each fetch.

The config becomes a row through :func:`model.catalog.hf_config.model_row_from_hf_config`, the
same mapping the Add page's pasted config takes, and the row through the same checks as any upload.
Where the repository has a ``model.safetensors.index.json``, its ``metadata`` (``total_parameters``,
or ``total_size`` in bytes over the config's dtype when the checkpoint is not quantized) checks the
parameter count of the shape; a disagreement beyond the presets' 2 % is a note, the estimate stays
the shape's. A refusal is an :class:`HfError`, one line naming the id and what to do.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

from model.caches import BoundedMemo
from model.catalog._rows import CatalogError, Row, quoted
from model.catalog.hf_config import MAX_CONFIG_BYTES, model_row_from_hf_config, parse_hf_config
from model.catalog.schema import Catalog, model_from_row
from model.estimate import PARAMS_TOLERANCE
from model.results import Message

if TYPE_CHECKING:
    from http.client import HTTPResponse
    from urllib.request import OpenerDirector

__all__ = [
    "DEFAULT_ENDPOINT",
    "FAILURE_KEPT_S",
    "FETCH_TIMEOUT_S",
    "HF_ERRORS",
    "HF_NOTES",
    "MAX_INDEX_BYTES",
    "HfError",
    "HfModel",
    "HfNote",
    "clear_hf_cache",
    "fetch_hf_model",
    "parse_repo_id",
]

DEFAULT_ENDPOINT = "https://huggingface.co"
FETCH_TIMEOUT_S = 10.0
"""Seconds a fetch may take (huggingface_hub's HF_HUB_DOWNLOAD_TIMEOUT default); the variable overrides it."""
MAX_INDEX_BYTES = 64_000
"""Bytes of model.safetensors.index.json read: its ``metadata`` comes first (transformers writes it
before the weight map), and the weight map of a large mixture of experts runs to megabytes."""
FAILURE_KEPT_S = 30.0
"""Seconds a failed fetch is answered from memory: a page reruns on every click, and an offline
server must not cost a timeout each time."""
_KEPT = 64
"""Fetched models remembered per process (a config is a few kB)."""
_HUB_HOSTS = frozenset({"huggingface.co", "www.huggingface.co", "hf.co"})
_PART = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,94}[A-Za-z0-9_])?")
"""One half of a repository id, as huggingface_hub's validate_repo_id allows it: 1-96 letters, digits,
'_', '-' and '.', starting and ending with a letter, digit or '_', with no '--' or '..'."""
_NOT_MODELS = frozenset({"datasets", "spaces", "collections", "papers", "docs", "organizations", "settings"})
_BYTES_PER_WEIGHT = {"float32": 4, "bfloat16": 2, "float16": 2}
"""Bytes per stored weight of the dtypes a checkpoint that is not quantized is saved in."""
_METADATA = re.compile(rb'"metadata"\s*:\s*(\{[^{}]*\})')

HF_ERRORS: dict[str, str] = {
    "bad_id": (
        "{given} is not a Hugging Face model id: give org/name (letters, digits, '-', '_' and '.') "
        "or its https://huggingface.co/org/name link"
    ),
    "bad_endpoint": "HF_ENDPOINT {endpoint} is not an http:// or https:// address; unset it to use huggingface.co",
    "bad_timeout": "HF_HUB_DOWNLOAD_TIMEOUT {value} is not a number of seconds (more than 0, at most 600)",
    "offline": (
        "{repo}: cannot reach {endpoint} ({reason}); check the network or HF_ENDPOINT, "
        "or paste its config.json on the Add page"
    ),
    "timeout": (
        "{repo}: {endpoint} did not answer within {seconds} s; try again, set HF_HUB_DOWNLOAD_TIMEOUT, "
        "or paste its config.json on the Add page"
    ),
    "gated": (
        "{repo} is gated or private (HTTP {status}): accept its licence on its page, then set HF_TOKEN "
        "to a token of that account"
    ),
    "denied": (
        "{repo}: HF_TOKEN has no access to it (HTTP {status}); accept its licence on its page "
        "with the token's account, or use another token"
    ),
    "missing": "{repo}: no such model on {endpoint} (HTTP 404); check the org/name as its page spells it",
    "no_config": (
        "{repo} has no config.json (a GGUF-only or adapter repository?); give its parameter count, "
        "or paste its base model's config.json"
    ),
    "server": "{repo}: {endpoint} answered HTTP {status}; try again later, or paste its config.json on the Add page",
    "too_large": "{repo}: its config.json is over {limit} bytes, which no model config is; paste the right file",
    "not_config": "{repo}: its config.json is not a model config ({detail}); paste the right file",
    "unsupported": "{repo}: {detail}",
}
"""Each refusal: its code and English template (the CLI prints it; the app translates the template)."""

HF_NOTES: dict[str, str] = {
    "checkpoint_params_disagree": (
        "{repo}: its checkpoint holds {stored}B parameters ({basis}), its config's shape {counted}B "
        "(a vision tower, extra prediction layers or a part the engine does not model); "
        "the estimate is for the shape"
    ),
}
"""What a fetch says beside its row: a code of this table and its values."""


class HfError(CatalogError):
    """A model that could not be fetched or read: ``code`` is a key of :data:`HF_ERRORS`, ``values`` fill it."""

    def __init__(self, code: str, **values: str) -> None:
        self.code = code
        self.values: Mapping[str, str] = MappingProxyType(dict(values))
        super().__init__(HF_ERRORS[code].format(**values))

    @property
    def template(self) -> str:
        """The English text with its fields."""
        return HF_ERRORS[self.code]


class HfNote(Message):
    """One note of a fetch: a code of :data:`HF_NOTES`."""

    TABLE: ClassVar[Mapping[str, str]] = HF_NOTES


@dataclass(frozen=True, slots=True, eq=False)
class HfModel:
    """A model fetched from the Hub: its row, a catalog holding it, and what the checkpoint says."""

    repo_id: str
    endpoint: str
    row: Mapping[str, Any]
    """The models: row, as data/models.yaml writes one."""
    catalog: Catalog
    """A catalog of this one model, to merge into another (:meth:`Catalog.merged`)."""
    checkpoint_params: float | None = None
    """Parameters the checkpoint stores, where its index tells (None: no index, or quantized weights)."""
    notes: tuple[HfNote, ...] = field(default=())

    @property
    def model_id(self) -> str:
        """The row's id: the scenario's ``model``."""
        return str(self.row["id"])

    @property
    def config_url(self) -> str:
        """Where the config.json was read."""
        return _file_url(self.endpoint, self.repo_id, "config.json")

    def to_dict(self) -> dict[str, Any]:
        """Return the fetch as plain values (the CLI's ``hf`` key)."""
        return {
            "repo": self.repo_id,
            "endpoint": self.endpoint,
            "config_url": self.config_url,
            "model": self.model_id,
            "checkpoint_params": self.checkpoint_params,
            "notes": [note.text for note in self.notes],
        }


def parse_repo_id(text: str, endpoint: str | None = None) -> str:
    """Return the ``org/name`` that ``text`` (an id or a link to the model's page or one of its files) names.

    Links on huggingface.co, hf.co or the ``endpoint``'s host are read; the main branch is what is fetched.

    Raises:
        HfError: ``bad_id``: not one slash between two valid names, or a link elsewhere or to a dataset or Space.
    """
    given = text.strip() if isinstance(text, str) else ""
    if not given or len(given) > 300 or not given.isprintable():
        raise HfError("bad_id", given=quoted(text, 60))
    path = given
    if "://" in given or given.split("/", 1)[0].lower() in _HUB_HOSTS:
        link = urlsplit(given if "://" in given else f"https://{given}")
        hosts = _HUB_HOSTS | ({urlsplit(endpoint).netloc.lower()} if endpoint else set())
        if link.scheme not in ("http", "https") or link.netloc.lower() not in hosts:
            raise HfError("bad_id", given=quoted(given, 60))
        parts = [part for part in link.path.split("/") if part]
        if len(parts) < 2 or parts[0] in _NOT_MODELS:
            raise HfError("bad_id", given=quoted(given, 60))
        path = "/".join(parts[:2])
    parts = path.split("/")
    if len(parts) != 2 or not all(_PART.fullmatch(part) and "--" not in part and ".." not in part for part in parts):
        raise HfError("bad_id", given=quoted(given, 60))
    return path


def fetch_hf_model(
    repo: str, *, endpoint: str | None = None, token: str | None = None, timeout_s: float | None = None
) -> HfModel:
    """Fetch ``repo``'s config.json (and its safetensors index, where it has one) and return its row.

    Args:
        repo: ``org/name`` or a link to the model on huggingface.co.
        endpoint: the Hub's address; ``HF_ENDPOINT`` or https://huggingface.co when None.
        token: a Hugging Face token; ``HF_TOKEN`` when None (an empty one sends none).
        timeout_s: seconds for each file; ``HF_HUB_DOWNLOAD_TIMEOUT`` or 10 when None.

    Returns:
        The row, a catalog of it and the checkpoint's count. Answers are kept per process (the
        last :data:`_KEPT` models; a failure for :data:`FAILURE_KEPT_S`).

    Raises:
        HfError: the id or the endpoint is malformed, the server cannot be reached or does not
            answer in time, the model is gated, private or missing, or its config is too large,
            not JSON or not a decoder-only transformer. The message is one line naming the id.
    """
    base = _endpoint(endpoint)
    repo_id = parse_repo_id(repo, base)
    secret = os.environ.get("HF_TOKEN", "") if token is None else token
    seconds = _timeout(timeout_s)
    key = (base, repo_id, hashlib.sha256(secret.encode()).hexdigest() if secret else "")
    found = _FETCHED.get(key)
    if found is not None:
        return found
    failed = _FAILED.get(key)
    if failed is not None and time.monotonic() - failed[0] < FAILURE_KEPT_S:
        raise HfError(failed[1], **failed[2])
    try:
        fetched = _fetch(base, repo_id, secret, seconds)
    except HfError as error:
        _FAILED.forget(key)
        _FAILED.put(key, (time.monotonic(), error.code, dict(error.values)))
        raise
    return _FETCHED.put(key, fetched)


def clear_hf_cache() -> None:
    """Forget every fetched model and failure (tests; a server whose answers changed)."""
    _FETCHED.clear()
    _FAILED.clear()


class _Failures(BoundedMemo[tuple[str, str, str], tuple[float, str, dict[str, str]]]):
    """Failures by fetch, each with the time it happened; a newer one replaces an older."""

    def forget(self, key: tuple[str, str, str]) -> None:
        """Drop ``key``'s entry, so the next failure is stored with its own time."""
        with self._lock:
            self._items.pop(key, None)


_FETCHED: BoundedMemo[tuple[str, str, str], HfModel] = BoundedMemo(_KEPT)
_FAILED = _Failures(_KEPT)


def _endpoint(given: str | None) -> str:
    text = (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT) if given is None else given
    base = text.strip().rstrip("/")
    link = urlsplit(base)
    if link.scheme not in ("http", "https") or not link.netloc or not base.isprintable() or len(base) > 200:
        raise HfError("bad_endpoint", endpoint=quoted(text, 60))
    return base


def _timeout(given: float | None) -> float:
    if given is not None:
        seconds: float = given
    else:
        text = os.environ.get("HF_HUB_DOWNLOAD_TIMEOUT", "").strip()
        try:
            seconds = float(text) if text else FETCH_TIMEOUT_S
        except ValueError:
            raise HfError("bad_timeout", value=quoted(text, 30)) from None
    if not 0 < seconds <= 600:  # NaN fails too
        raise HfError("bad_timeout", value=quoted(seconds, 30))
    return seconds


def _file_url(endpoint: str, repo_id: str, file: str) -> str:
    return f"{endpoint}/{repo_id}/resolve/main/{file}"


def _fetch(endpoint: str, repo_id: str, token: str, seconds: float) -> HfModel:
    body = _get(endpoint, repo_id, "config.json", token, seconds, MAX_CONFIG_BYTES, whole=True)
    if body is None:
        raise HfError("no_config", repo=repo_id)
    try:
        config = parse_hf_config(body, "config.json")
    except CatalogError as error:
        raise HfError("not_config", repo=repo_id, detail=str(error).split(": ", 1)[-1][:100]) from None
    source = (
        f"https://huggingface.co/{repo_id}/blob/main/config.json, read from {endpoint} "
        f"(model_type {str(config.get('model_type', ''))[:40] or 'not given'})"
    )
    try:
        row = model_row_from_hf_config(config, repo_id.replace("_", " "), "config.json", source=source)
        row["id"] = _row_id(repo_id)
        preset = model_from_row(Row(row, repo_id, 0), user=True)
    except CatalogError as error:
        raise HfError("unsupported", repo=repo_id, detail=str(error)[:300]) from None
    index = _get(endpoint, repo_id, "model.safetensors.index.json", token, seconds, MAX_INDEX_BYTES, whole=False)
    stored, basis = _stored_params(index, config) if index is not None else (None, "")
    notes: tuple[HfNote, ...] = ()
    if stored is not None:
        row["official_params"] = stored
        row["params_source"] = f"model.safetensors.index.json of {repo_id}: {basis}"
        preset = replace(preset, official_params=stored, params_source=row["params_source"])
        counted = preset.architecture.stats.total_params
        if abs(stored / counted - 1.0) > PARAMS_TOLERANCE:
            shown = {"stored": f"{stored / 1e9:,.3g}", "counted": f"{counted / 1e9:,.3g}"}
            notes = (HfNote("checkpoint_params_disagree", {"repo": repo_id, "basis": basis, **shown}),)
    catalog = Catalog(
        gpus=MappingProxyType({}),
        models=MappingProxyType({preset.id: preset}),
        interconnects=MappingProxyType({}),
        networks=MappingProxyType({}),
        prices=(),
    )
    return HfModel(repo_id, endpoint, MappingProxyType(row), catalog, stored, notes)


def _row_id(repo_id: str) -> str:
    """Return the catalog id of ``repo_id``'s row: 'hf-' and the id in lower case, cut to 64 characters."""
    slug = re.sub(r"[^a-z0-9.]+", "-", repo_id.lower()).strip("-.")
    return f"hf-{slug}"[:64].rstrip("-.")


def _stored_params(index: bytes, config: Mapping[str, Any]) -> tuple[float | None, str]:
    """Return the parameters the checkpoint stores, by its index's metadata, and how they were read.

    ``total_parameters`` where the index gives it (huggingface_hub writes it since 0.31); else
    ``total_size`` over the bytes of the config's dtype, when the weights are not quantized
    (a quantization_config stores weights in mixed widths that bytes alone do not count).
    """
    found = _METADATA.search(index)
    if found is None:
        return None, ""
    try:
        metadata = json.loads(found.group(1))
    except ValueError:
        return None, ""
    if not isinstance(metadata, dict):
        return None, ""
    total = metadata.get("total_parameters")
    if isinstance(total, int) and not isinstance(total, bool) and 0 < total < 10**16:
        return float(total), f"total_parameters {total:,}"
    size = metadata.get("total_size")
    nested = config.get("text_config")
    language: Mapping[str, Any] = nested if isinstance(nested, Mapping) else {}
    dtype = config.get("torch_dtype") or config.get("dtype") or language.get("torch_dtype") or language.get("dtype")
    width = _BYTES_PER_WEIGHT.get(str(dtype))
    if config.get("quantization_config") or width is None:
        return None, ""
    if not isinstance(size, int) or isinstance(size, bool) or not 0 < size < 10**17:
        return None, ""
    return size / width, f"total_size {size:,} bytes of {dtype}"


def _get(endpoint: str, repo_id: str, file: str, token: str, seconds: float, cap: int, *, whole: bool) -> bytes | None:
    """Return the file's bytes (None for a file the repository does not have); ``whole``: refuse one over ``cap``.

    Raises:
        HfError: the server cannot be reached or times out, the model is gated, private or
            missing, the server fails, or a whole file is over ``cap`` bytes.
    """
    from http.client import HTTPException
    from urllib.error import HTTPError, URLError
    from urllib.request import Request

    url = _file_url(endpoint, repo_id, file)
    request = Request(url, headers={"User-Agent": "gpu-what-if-explorer (python urllib)", "Accept": "*/*"})
    if token:
        request.add_unredirected_header("Authorization", f"Bearer {token}")
    deadline = time.monotonic() + seconds
    try:
        with _opener().open(request, timeout=seconds) as response:
            return _read(response, repo_id, cap, deadline, whole=whole)
    except HfError:  # too large: a ValueError, which the last clause would call a failed connection
        raise
    except HTTPError as error:
        error.close()
        refusal = _refusal(error.code, error.headers.get("X-Error-Code", ""), repo_id, endpoint, file, token)
        if refusal is None:
            return None
        raise refusal from None
    except TimeoutError:
        raise HfError("timeout", repo=repo_id, endpoint=endpoint, seconds=f"{seconds:g}") from None
    except URLError as error:
        if isinstance(error.reason, TimeoutError):
            raise HfError("timeout", repo=repo_id, endpoint=endpoint, seconds=f"{seconds:g}") from None
        raise HfError("offline", repo=repo_id, endpoint=endpoint, reason=_reason(error.reason)) from None
    except (OSError, ValueError, HTTPException) as error:  # a reset connection, a malformed answer
        raise HfError("offline", repo=repo_id, endpoint=endpoint, reason=_reason(error)) from None


def _refusal(status: int, code: str, repo_id: str, endpoint: str, file: str, token: str) -> HfError | None:
    """Return the error for an HTTP error status, or None for an optional file the repository lacks.

    The Hub answers 401 for a private or missing repository without a token, 401 or 403 for a
    gated one, and 404 with X-Error-Code EntryNotFound for a file the repository does not have
    (huggingface_hub.utils._http.hf_raise_for_status reads the same header).
    """
    if code == "RepoNotFound" and status in (401, 404):
        return HfError(
            "gated" if status == 401 and not token else "missing", repo=repo_id, status=str(status), endpoint=endpoint
        )
    if status in (401, 403):
        return HfError("denied" if token else "gated", repo=repo_id, status=str(status))
    if status == 404:
        if file != "config.json":
            return None
        return HfError("no_config" if code == "EntryNotFound" else "missing", repo=repo_id, endpoint=endpoint)
    return HfError("server", repo=repo_id, endpoint=endpoint, status=str(status))


def _read(response: HTTPResponse, repo_id: str, cap: int, deadline: float, *, whole: bool) -> bytes:
    """Read at most ``cap`` bytes before ``deadline``; a whole file over ``cap`` is refused."""
    length = response.headers.get("Content-Length", "")
    if whole and length.isdigit() and int(length) > cap:
        raise HfError("too_large", repo=repo_id, limit=f"{cap:,}")
    chunks: list[bytes] = []
    size = 0
    while size <= cap:
        if time.monotonic() > deadline:
            raise TimeoutError
        chunk = response.read1(min(65_536, cap + 1 - size))  # what has arrived: a trickle meets the deadline
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if whole and size > cap:
        raise HfError("too_large", repo=repo_id, limit=f"{cap:,}")
    return b"".join(chunks)[:cap]


def _reason(reason: object) -> str:
    text = getattr(reason, "strerror", None) or str(reason) or type(reason).__name__
    return "".join(c if c.isprintable() else " " for c in str(text))[:80]


@functools.cache
def _opener() -> OpenerDirector:
    """Return urllib's opener, following at most 5 redirects, over http(s) only, the token to the same host only."""
    from urllib.request import HTTPRedirectHandler, Request, build_opener

    class Redirects(HTTPRedirectHandler):
        max_redirections = 5

        def redirect_request(
            self, req: Request, fp: Any, code: int, msg: str, headers: Any, newurl: str
        ) -> Request | None:
            target = urlsplit(newurl)
            if target.scheme not in ("http", "https"):
                return None  # urllib then raises the redirect as an HTTPError
            new = super().redirect_request(req, fp, code, msg, headers, newurl)
            token = req.unredirected_hdrs.get("Authorization")
            if new is not None and token and target.netloc == urlsplit(req.full_url).netloc:
                new.add_unredirected_header("Authorization", token)
            return new

    return build_opener(Redirects)
