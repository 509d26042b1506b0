"""Values computed from the whole corpus (the papers by id, key-term document frequencies, the
topics and their map, the explorer's columns), each kept until the corpus changes: keyed on the
corpus version, in one store under one lock (with a lock per value while it is computed).

A long-running app must see what an ingest in another process changed, so every read compares
the version (the catalogue file's modification time) with the one the values were computed for.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

T = TypeVar("T")


class CorpusCache:
    def __init__(self, version: Callable[[], int]) -> None:
        self._version = version
        self._lock = threading.Lock()
        self._values: dict[str, Any] = {}
        self._stamp: int | None = None
        # One computation of a value at a time: the app's first requests arrive together and
        # would each read the catalogue; others wait for it, while other values stay free.
        self._computing: dict[str, threading.Lock] = {}

    def get(self, name: str, compute: Callable[[], T]) -> T:
        """`name`'s value for the corpus as it is now, computed once per corpus version. Computed
        outside the cache's lock (topics take seconds at 20,000 papers; searches go on
        meanwhile) and kept only if the corpus did not change while it was computed."""
        version = self._version()
        with self._lock:
            self._reset_if_changed(version)
            if name in self._values:
                return cast(T, self._values[name])
            computing = self._computing.setdefault(name, threading.Lock())
        with computing:
            with self._lock:
                self._reset_if_changed(version)
                if name in self._values:
                    return cast(T, self._values[name])
            value = compute()
            with self._lock:
                if self._stamp == version == self._version():
                    self._values[name] = value
            return value

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
            self._stamp = None

    def _reset_if_changed(self, version: int) -> None:
        if self._stamp != version:
            self._values.clear()
            self._stamp = version
