"""Streamlit sessions without a browser: one websocket each, speaking the protobufs a browser sends.

A session opens ``/_stcore/stream``, asks for its first run with a query string and page (as the
browser's first BackMsg does), then acts as a person would: one step along the Cards slider,
another precision or another page, each a ``rerun_script`` naming only the widget it changes (the
server keeps the others' values). A rerun's latency is the time from sending the action to the
``script_finished`` it causes. An exception element in the deltas, a compile error, a closed
socket or a rerun that does not finish in time is an error. Used by ``benchmarks.capacity`` and
``benchmarks.soak``, which pin the server to one core with :func:`pinned_server`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from benchmarks.server import running_server

RERUN_TIMEOUT_S = 60.0
_DONE = (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)
WATCHED = ("cards", "precision")
"""The widgets' user keys: their ids are ``$$ID-<hash>-<key>``, found in each run's deltas."""
LINKS = (
    "/tokens?model=llama-3.1-70b&gpu=h200&cards=16&precision=fp8&batch=64",
    "/?model=llama-3.1-8b&gpu=h100-sxm&cards=8",
    "/vram?goal=finetune&finetune=qlora&model=llama-3.1-8b&gpu=rtx-4090&cards=1",
    "/costs?model=deepseek-r1&gpu=h20&cards=8&precision=fp8&price=2",
    "/compare?model=llama-3.1-70b&cards=64",
    "/?lang=zh&model=llama-3.1-70b&gpu=h100-sxm&cards=64",
)
"""Shared links a visitor arrives by: several pages, scenarios and the Chinese interface."""


def _strings(values: Any) -> WidgetState:
    state = WidgetState()
    state.string_array_value.data.extend(values)
    return state


def _picked(widget: Any, options: list[str], server: Any) -> list[str]:
    return list(server) if widget.set_value else [options[int(i)] for i in widget.default]


def _slider(widget: Any) -> WidgetState:
    if widget.type == widget.SELECT_SLIDER:
        return _strings(_picked(widget, list(widget.options), widget.raw_value))
    state = WidgetState()
    state.double_array_value.data.extend(widget.value if widget.set_value else widget.default)
    return state


def _has(widget: Any, field: str) -> bool:
    return not widget.DESCRIPTOR.fields_by_name[field].has_presence or widget.HasField(field)


def _single(field: str) -> Any:
    def encode(widget: Any) -> WidgetState:
        state = WidgetState()
        if widget.set_value and _has(widget, field):
            value = getattr(widget, field)
        elif _has(widget, "default"):
            value = widget.default
        else:
            return state  # no value, as the browser sends an empty number box
        if widget.DESCRIPTOR.name == "Selectbox" and field == "raw_value" and not widget.set_value:
            value = widget.options[value]
        if widget.DESCRIPTOR.name == "NumberInput":
            if widget.data_type == widget.INT:
                state.int_value = int(value)
            else:
                state.double_value = value
        else:
            setattr(state, "bool_value" if isinstance(value, bool) else "string_value", value)
        return state

    return encode


_VALUES = {
    "slider": _slider,
    "button_group": lambda w: _strings(_picked(w, [o.content for o in w.options], w.raw_values)),
    "multiselect": lambda w: _strings(_picked(w, list(w.options), w.raw_values)),
    "selectbox": _single("raw_value"),
    "number_input": _single("value"),
    "checkbox": _single("value"),
    "text_input": _single("value"),
    "text_area": _single("value"),
}
"""How the browser reports each kind of widget's value (what it holds after the last run)."""


def _split(path: str) -> tuple[str, str]:
    """Return a link's page name ('' for the default page) and query string."""
    page, _, query = path.lstrip("/").partition("?")
    return page, query


class WireSession:
    """One visitor over a websocket: open with a link, then :meth:`act` until :meth:`close`."""

    def __init__(self, url: str, link: str, rng: random.Random) -> None:
        self.stream = url.replace("http://", "ws://") + "/_stcore/stream"
        self.url = url
        self.page_name, self.query = _split(link)
        self.rng = rng
        self.locale = "zh-CN" if "lang=zh" in link else "en-US"
        self.errors: list[str] = []
        self.widgets: dict[str, dict[str, Any]] = {}
        self.pages: dict[str, str] = {}
        self.page_hash = ""
        self._drawn: dict[str, tuple[WidgetState, bool]] = {}  # this run's widgets, in the sidebar or not
        self._shown: dict[str, tuple[WidgetState, bool]] = {}  # the last finished run's
        self._mine: dict[str, WidgetState] = {}  # values this visitor set, until the server sets them
        self._socket: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._finished = asyncio.Event()
        self._closing = False

    async def open(self) -> float | None:
        """Connect and run the link's page; seconds to its first run's end, None on an error."""
        started = time.perf_counter()
        self._socket = await websockets.connect(
            self.stream, subprotocols=["streamlit"], max_size=None, open_timeout=RERUN_TIMEOUT_S
        )
        self._reader = asyncio.create_task(self._read())
        return await self._rerun(started, page_name=self.page_name, query=self.query)

    async def act(self) -> tuple[str, float | None]:
        """Do one thing that changes the page: the action's name and its rerun's seconds (None: error)."""
        roll = self.rng.random()
        if roll < 0.5 and "cards" in self.widgets:
            cards = self.widgets["cards"]
            at = cards["options"].index(cards["value"]) if cards["value"] in cards["options"] else 0
            step = self.rng.choice((1, -1))
            if not 0 <= at + step < len(cards["options"]):
                step = -step
            return "cards", await self._change("cards", cards["options"][at + step])
        if roll < 0.7 and "precision" in self.widgets:
            precision = self.widgets["precision"]
            choice = self.rng.choice([p for p in precision["options"] if p != precision["value"]])
            return "precision", await self._change("precision", choice)
        others = [h for h in self.pages.values() if h != self.page_hash]
        started = time.perf_counter()
        sidebar = [state for state, in_sidebar in self._shown.values() if in_sidebar]  # the page's go
        return "page", await self._rerun(started, page_hash=self.rng.choice(others), widgets=sidebar)

    async def close(self) -> None:
        """Close the websocket (the server then ends the session, as when a tab is closed)."""
        self._closing = True
        if self._socket is not None:
            await self._socket.close()
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._reader, 10)

    async def _change(self, key: str, value: str) -> float | None:
        widget = self.widgets[key]
        widget["value"] = value
        state = _strings([value]) if widget["listed"] else WidgetState(string_value=value)
        state.id = widget["id"]
        self._mine[state.id] = state
        states = [state if wid == state.id else shown for wid, (shown, _) in self._shown.items()]
        return await self._rerun(time.perf_counter(), widgets=states, query=self.query)

    async def _rerun(
        self, started: float, page_name: str = "", page_hash: str = "", query: str = "", widgets: list | None = None
    ) -> float | None:
        message = BackMsg()
        client = message.rerun_script
        client.query_string = query
        client.page_name = page_name
        client.page_script_hash = page_hash
        client.widget_states.widgets.extend(widgets or [])
        context = client.context_info
        context.timezone, context.timezone_offset, context.locale = "UTC", 0, self.locale
        context.url, context.is_embedded, context.color_scheme = f"{self.url}/{self.page_name}", False, "light"
        self._finished.clear()
        self._drawn = {}
        errors = len(self.errors)
        try:
            await self._socket.send(message.SerializeToString())
            await asyncio.wait_for(self._finished.wait(), RERUN_TIMEOUT_S)
        except TimeoutError:
            self.errors.append(f"a rerun did not finish in {RERUN_TIMEOUT_S:g} s")
            return None
        except websockets.ConnectionClosed as closed:
            self.errors.append(f"the websocket closed: {closed}")
            return None
        return None if len(self.errors) > errors else time.perf_counter() - started

    async def _read(self) -> None:
        try:
            async for frame in self._socket:
                self._received(frame if isinstance(frame, bytes) else frame.encode())
        except websockets.ConnectionClosed as closed:
            if not self._closing:
                self.errors.append(f"the server closed the websocket: {closed}")
        except Exception as error:  # a message this client cannot read: report it, not hang
            self.errors.append(f"this client could not read a message: {type(error).__name__}: {error}")
            raise
        finally:
            self._finished.set()

    def _received(self, frame: bytes) -> None:
        message = ForwardMsg()
        message.ParseFromString(frame)
        kind = message.WhichOneof("type")
        if kind == "delta" and message.delta.WhichOneof("type") == "new_element":
            self._element(message.delta.new_element, list(message.metadata.delta_path))
        elif kind == "navigation":
            self.pages = {page.page_name: page.page_script_hash for page in message.navigation.app_pages}
            self.page_hash = message.navigation.page_script_hash
        elif kind == "page_info_changed":
            self.query = message.page_info_changed.query_string
        elif kind == "page_not_found":
            self.errors.append(f"page not found: {message.page_not_found.page_name!r}")
        elif kind == "script_finished":
            status = message.script_finished
            if status == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                self.errors.append("the script did not compile")
            if status in _DONE or status == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                self._shown = self._drawn
                self._finished.set()

    def _element(self, element: Any, path: list[int]) -> None:
        kind = element.WhichOneof("type")
        if kind == "exception":
            shown = element.exception
            if not shown.is_warning:
                trace = "\n".join(shown.stack_trace[-6:])
                self.errors.append(f"an exception is drawn: {shown.type}: {shown.message[:300]}\n{trace}")
            return
        if kind not in _VALUES:
            return
        widget = getattr(element, kind)
        if widget.set_value:
            self._mine.pop(widget.id, None)
        state = self._mine.get(widget.id) or _VALUES[kind](widget)
        state.id = widget.id
        self._drawn[widget.id] = (state, bool(path) and path[0] == 1)
        key = widget.id.split("-", 2)[-1]
        if key in WATCHED:
            options = [getattr(o, "content", o) for o in widget.options]
            # A slider or button group reports a list of strings; a selectbox (the precision) one string.
            listed = state.WhichOneof("value") == "string_array_value"
            value = state.string_array_value.data[0] if listed else state.string_value
            self.widgets[key] = {"id": widget.id, "options": options, "value": value, "listed": listed}


@dataclass
class Tally:
    """What the visitors saw: each rerun as (when it ended, seconds, action), first runs, errors."""

    reruns: list[tuple[float, float, str]] = field(default_factory=list)
    first_runs: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    opened: int = 0
    closed: int = 0


async def visitor(
    url: str, link: str, rng: random.Random, until: float, think: tuple[float, float], tally: Tally
) -> None:
    """Open ``link``, act every ``think`` seconds (uniform) until ``until`` (monotonic), then leave."""
    session = WireSession(url, link, rng)
    tally.opened += 1
    try:
        first = await session.open()
        if first is not None:
            tally.first_runs.append(first)
        while not session.errors and time.monotonic() + think[0] < until:
            await asyncio.sleep(min(rng.uniform(*think), max(0.0, until - time.monotonic())))
            action, seconds = await session.act()
            if seconds is not None:
                tally.reruns.append((time.monotonic(), seconds, action))
    except (OSError, websockets.WebSocketException) as error:
        session.errors.append(f"could not connect: {type(error).__name__}: {error}")
    finally:
        await session.close()
        tally.closed += 1
        tally.errors += [f"{link}: {error}" for error in session.errors]


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def cpu_seconds(pid: int) -> float:
    """A process's user and system CPU time so far, all its threads, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def allowed_cores(pid: int) -> str:
    """The cores a process may run on (its Cpus_allowed_list), to print with the figures."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Cpus_allowed_list:"):
            return line.split()[1]
    return "?"


@contextlib.contextmanager
def pinned_server(log: Path, server_core: int = 0, client_core: int = 1) -> Iterator[tuple[Any, str]]:
    """:func:`running_server` with the server pinned to ``server_core`` and this process to ``client_core``.

    The server inherits this process's affinity when it starts; browsers or websocket clients
    started afterwards inherit ``client_core``.
    """
    original = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {server_core})
    try:
        with running_server(log) as (process, url):
            os.sched_setaffinity(0, {client_core})
            yield process, url
    finally:
        os.sched_setaffinity(0, original)


def server_errors(log: Path) -> list[str]:
    """The tracebacks in a server log: the line before (its time), the last frames, the exception (400 characters)."""
    chunks = log.read_text(encoding="utf-8", errors="replace").split("Traceback")
    found = []
    for before, chunk in itertools.pairwise(chunks):
        lines = chunk.splitlines()
        end = next((n for n, line in enumerate(lines[1:], 1) if line and not line.startswith(" ")), len(lines) - 1)
        frames = lines[max(1, end - 14) : end]
        found.append(
            "\n".join([before.rstrip().rsplit("\n", 1)[-1][-160:], "Traceback" + lines[0], *frames, lines[end][:400]])
        )
    return found
