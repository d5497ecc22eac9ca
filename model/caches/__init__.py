"""Caches that several threads share: Streamlit runs each session's script in its own thread.

:class:`BoundedMemo` holds the layout searches. Two sessions evicting the same oldest entry from a
plain dict raised KeyError (found by the soak, ``benchmarks.soak``), so every change happens under
one lock; reads need none (a dict lookup is atomic under the GIL, and a value computed twice by two
threads is the same value). :func:`once` loads a file-backed table once per process even when
twenty sessions ask for it at the same moment (``functools.cache`` would let each of them parse
the YAML: the meeting burst, ``benchmarks.burst``, spent a third of its time doing so).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

__all__ = ["BoundedMemo", "once"]

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")


def once(load: Callable[..., T] | None = None, *, maxsize: int | None = None) -> Any:
    """Cache ``load`` by its arguments (``functools.lru_cache``), computing each value in one thread only.

    Callers that arrive while a value is being computed wait for it instead of computing it again.
    Use as ``@once`` (unbounded) or ``@once(maxsize=256)``.
    """

    def wrap(function: Callable[..., T]) -> Callable[..., T]:
        cached = functools.lru_cache(maxsize=maxsize)(function)
        lock = threading.Lock()

        @functools.wraps(function)
        def loaded(*args: Any) -> T:
            with lock:  # a cache hit holds the lock for a dict lookup; a miss makes the others wait
                return cached(*args)

        return loaded

    return wrap(load) if load is not None else wrap


class BoundedMemo(Generic[K, V]):
    """Remember at most ``kept`` values; past that, the oldest is forgotten first."""

    def __init__(self, kept: int) -> None:
        self._kept = kept
        self._items: dict[K, V] = {}
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """Return the value remembered for ``key``, or None."""
        return self._items.get(key)

    def put(self, key: K, value: V) -> V:
        """Remember ``value`` for ``key`` (the value another thread stored first wins) and return it."""
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                return found
            if len(self._items) >= self._kept:
                del self._items[next(iter(self._items))]
            self._items[key] = value
            return value

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)
