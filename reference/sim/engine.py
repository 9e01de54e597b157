"""A deterministic discrete-event engine: one thread, items processed in time order, ties
broken by a sequence number; every processed item is folded into an event-log hash, so that a
trace plus a seed reproduces a run bit for bit (and the hash shows it)."""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Engine(Generic[T]):
    def __init__(self) -> None:
        self.now = 0.0
        self._queue: list[tuple[float, int, T]] = []
        self._seq = 0
        self._log = hashlib.sha256()
        self._pending: list[str] = []  # log lines not yet hashed (hashed in batches)
        self.processed = 0

    def schedule(self, at: float, item: T) -> None:
        if at < self.now:
            raise ValueError(f"cannot schedule in the past ({at} < {self.now})")
        self._seq += 1
        heapq.heappush(self._queue, (at, self._seq, item))

    def __len__(self) -> int:
        return len(self._queue)

    def next_time(self) -> float | None:
        return self._queue[0][0] if self._queue else None

    def step(self, handle: Callable[[T], str]) -> None:
        """Process the earliest item; `handle` returns the text logged for it."""
        at, seq, item = heapq.heappop(self._queue)
        self.now = at
        self.processed += 1
        self._pending.append(f"{at!r}|{seq}|{handle(item)}\n")
        if len(self._pending) >= 4096:
            self._flush()

    def _flush(self) -> None:
        """Hash the pending lines: hashing their concatenation equals hashing one by one."""
        if self._pending:
            self._log.update("".join(self._pending).encode())
            self._pending.clear()

    def advance_to(self, t: float) -> None:
        if t > self.now:
            self.now = t

    def note(self, text: str) -> None:
        """Fold an external input (an op of the trace) into the log."""
        self._pending.append(f"{self.now!r}|op|{text}\n")
        if len(self._pending) >= 4096:
            self._flush()

    def log_hash(self) -> str:
        self._flush()
        return self._log.hexdigest()
