"""Fingerprints of delivery multisets, the unit `conform --ops` compares.

A multiset of deliveries (event id, subscription id) is reduced to (count, sum of h1, sum of h2)
with h1 = CRC-32 of `event\\tsub` and h2 = CRC-32 of `sub\\nevent#` (UTF-8): equal multisets
give equal fingerprints, and Spark SQL computes the same from the SQL oracle's rows
(`scale.expected_fingerprints`; Spark's `crc32` is zlib's). Why a fingerprint and how likely a
collision is: docs/conformance.md, "At scale", decision (fingerprints).

Two ways to compute it, which must agree (tests/test_fingerprint.py):

- `fingerprint(deliveries)`: one CRC per pair and string, from `Delivery` records (any
  implementation).
- `FingerprintSink`: for the fast built-ins, which find their deliveries per event as an array
  of subscription numbers of an `IndexedMatcher`. No record or string is made per pair. CRC-32
  composes: crc(A + B) = shift(crc(A), len(B)) xor crc(B), where shift(c, n), the CRC register
  advanced over n zero bytes, is linear over GF(2) in c (zlib's `crc32_combine`). So
  h1 = shift(crc(event + "\\t"), len(sub)) xor crc(sub) and
  h2 = shift(crc(sub + "\\n"), len(event + "#")) xor crc(event + "#"): the subscriptions' CRCs
  are computed once, and a shift by n bytes of a whole array is four lookups in byte tables
  built once per n. The pairs of a trace are batched and reduced in one compiled loop (numba,
  `_pair_sums`: eight table lookups and four xors per pair), so the cost per pair is a few
  nanoseconds, not a Python call (about 0.5 us per pair with `fingerprint`). `add_many` takes
  the deliveries of many events in one call.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import numpy as np

from pubsub_spec.reference.common.oracle import Delivery

Fingerprint = tuple[int, int, int]
BATCH_PAIRS = 1_000_000  # pairs held before they are reduced (bounds the sink's memory)


def h1(event_id: str, sub_id: str) -> int:
    return zlib.crc32(f"{event_id}\t{sub_id}".encode())


def h2(event_id: str, sub_id: str) -> int:
    return zlib.crc32(f"{sub_id}\n{event_id}#".encode())


def fingerprint(deliveries: Iterable[Delivery]) -> Fingerprint:
    """(count, sum of h1, sum of h2) of a multiset of deliveries."""
    n = s1 = s2 = 0
    for d in deliveries:
        n += 1
        s1 += h1(d.event_id, d.sub_id)
        s2 += h2(d.event_id, d.sub_id)
    return n, s1, s2


# --- CRC-32 shifted over zero bytes --------------------------------------------------------------


def shift(crc: int, n: int) -> int:
    """The CRC register `crc` advanced over n zero bytes, without the pre- and post-conditioning:
    crc32(B, crc(A)) = crc(A + B), and crc(A + 0^n) = shift(crc(A), n) xor crc(0^n)."""
    zeros = bytes(n)
    return zlib.crc32(zeros, crc) ^ zlib.crc32(zeros)


_TABLES: dict[int, Any] = {}


def _tables(n: int) -> Any:
    """(4, 256) uint64: row k, column b = shift(b << 8k, n); shift is linear, so the shift of a
    32-bit value is the xor of its four bytes' entries."""
    t = _TABLES.get(n)
    if t is None:
        t = np.array(
            [[shift(b << (8 * k), n) for b in range(256)] for k in range(4)], dtype=np.uint64
        )
        _TABLES[n] = t
    return t


def shift_array(values: Any, n: int) -> Any:
    """`shift` of every element of a uint64 array of CRCs, by the same n."""
    t = _tables(n)
    v = values
    return t[0][v & 0xFF] ^ t[1][(v >> 8) & 0xFF] ^ t[2][(v >> 16) & 0xFF] ^ t[3][v >> 24]


_ALL = np.zeros((0, 4, 256), dtype=np.uint64)  # _ALL[n] = _tables(n) for every n filled so far


def _all_tables(most: int) -> Any:
    """The tables of every shift length 0..most, as one (most + 1, 4, 256) array."""
    global _ALL
    if _ALL.shape[0] <= most:
        grown = max(most + 1, 2 * _ALL.shape[0], 64)
        _ALL = np.concatenate([_ALL] + [_tables(n)[None] for n in range(_ALL.shape[0], grown)])
    return _ALL


_KERNEL: Any = None


def _pair_sums_kernel() -> Any:
    """The compiled reduction (numba, imported and compiled on first use, not cached on disk:
    a compile is well under a second, and a process that never reduces never pays it)."""
    global _KERNEL
    if _KERNEL is None:
        from numba import njit

        @njit(nogil=True)
        def pair_sums(
            rows: Any, counts: Any, e1: Any, e2: Any, n2: Any,
            crc: Any, crc_nl: Any, length: Any, tables: Any,
        ) -> tuple[Any, Any]:  # fmt: skip
            # event j's deliveries are rows[k : k + counts[j]], in order
            s1 = np.uint64(0)
            s2 = np.uint64(0)
            k = 0
            for j in range(counts.size):
                t2 = tables[n2[j]]
                v1, v2 = e1[j], e2[j]
                for _ in range(counts[j]):
                    r = rows[k]
                    k += 1
                    t1 = tables[length[r]]
                    s1 += (
                        t1[0, v1 & 0xFF] ^ t1[1, (v1 >> 8) & 0xFF]
                        ^ t1[2, (v1 >> 16) & 0xFF] ^ t1[3, v1 >> 24] ^ crc[r]
                    )  # fmt: skip
                    w = crc_nl[r]
                    s2 += (
                        t2[0, w & 0xFF] ^ t2[1, (w >> 8) & 0xFF]
                        ^ t2[2, (w >> 16) & 0xFF] ^ t2[3, w >> 24] ^ v2
                    )  # fmt: skip
            return s1, s2

        _KERNEL = pair_sums
    return _KERNEL


# --- the sink of the fast built-ins ------------------------------------------------------------


class SubscriptionTable(Protocol):
    """What a sink needs of a matcher: its subscription ids, by number, append-only."""

    ids: list[str]

    def ids_of(self, rows: Any) -> list[str]: ...


class DeliverySink(Protocol):
    def add(self, event_id: str, table: SubscriptionTable, rows: Any) -> None:
        """The event is delivered to the subscriptions `rows` of `table` (an index array, or a
        boolean mask over its numbers); a number given twice is delivered twice."""


class RecordSink:
    """The deliveries as `Delivery` records, in the order given."""

    def __init__(self) -> None:
        self.records: list[Delivery] = []

    def add(self, event_id: str, table: SubscriptionTable, rows: Any) -> None:
        self.records.extend(Delivery(event_id, s) for s in table.ids_of(rows))


class _SubCrcs:
    """Per subscription number of one table: crc(id), len(id) and crc(id + "\\n")."""

    def __init__(self) -> None:
        self.crc = np.zeros(0, dtype=np.uint64)
        self.crc_nl = np.zeros(0, dtype=np.uint64)
        self.length = np.zeros(0, dtype=np.int64)

    def sync(self, ids: list[str]) -> None:
        if len(ids) == self.crc.size:
            return
        new = [s.encode() for s in ids[self.crc.size :]]
        self.crc = np.concatenate([self.crc, np.array([zlib.crc32(b) for b in new], np.uint64)])
        self.crc_nl = np.concatenate(
            [self.crc_nl, np.array([zlib.crc32(b"\n", zlib.crc32(b)) for b in new], np.uint64)]
        )
        self.length = np.concatenate([self.length, np.array([len(b) for b in new], np.int64)])


class FingerprintSink:
    """The fingerprint of the deliveries, batched per table (see the module's docstring)."""

    def __init__(self) -> None:
        self.n = self.s1 = self.s2 = 0
        self._crcs: dict[int, tuple[SubscriptionTable, _SubCrcs]] = {}
        self._rows: dict[int, list[Any]] = {}
        self._events: dict[int, list[tuple[int, int, int, int]]] = {}  # e1, e2, len(e#), count
        self._held = 0

    def add(self, event_id: str, table: SubscriptionTable, rows: Any) -> None:
        r = np.flatnonzero(rows) if rows.dtype == np.bool_ else np.asarray(rows, dtype=np.int64)
        if r.size:
            self.add_many([event_id], table, r, np.array([r.size], dtype=np.int64))

    def add_many(
        self, event_ids: Sequence[str], table: SubscriptionTable, rows: Any, counts: Any
    ) -> None:
        """Event `event_ids[j]` is delivered to `counts[j]` subscriptions of `table`: `rows`
        (an index array) holds their numbers, event after event (`sum(counts)` of them)."""
        key = id(table)
        if key not in self._crcs:
            self._crcs[key] = (table, _SubCrcs())
            self._rows[key], self._events[key] = [], []
        events = self._events[key]
        for event_id, c in zip(event_ids, np.asarray(counts).tolist(), strict=True):
            if c:
                e = event_id.encode()
                tail = e + b"#"
                events.append((zlib.crc32(b"\t", zlib.crc32(e)), zlib.crc32(tail), len(tail), c))
        r = np.asarray(rows, dtype=np.int64)
        self._rows[key].append(r)
        self._held += r.size
        if self._held >= BATCH_PAIRS:
            self._reduce()

    def _reduce(self) -> None:
        for key, (table, crcs) in self._crcs.items():
            if not self._rows[key]:
                continue
            crcs.sync(table.ids)
            rows = np.concatenate(self._rows[key])
            ev = np.array(self._events[key], dtype=np.int64).reshape(-1, 4)
            if rows.size:
                most = max(int(crcs.length[rows].max()), int(ev[:, 2].max()))
                s1, s2 = _pair_sums_kernel()(
                    rows, ev[:, 3], ev[:, 0].astype(np.uint64), ev[:, 1].astype(np.uint64),
                    ev[:, 2], crcs.crc, crcs.crc_nl, crcs.length, _all_tables(most),
                )  # fmt: skip
                self.n += int(rows.size)
                self.s1 += int(s1)
                self.s2 += int(s2)
            self._rows[key], self._events[key] = [], []
        self._held = 0

    def result(self) -> Fingerprint:
        self._reduce()
        return self.n, self.s1, self.s2
