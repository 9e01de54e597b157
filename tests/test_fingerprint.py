"""Delivery fingerprints (conformance/fingerprint.py): the batched, record-free sink of
the fast built-ins gives exactly the fingerprint of their delivery records, on arbitrary ids
and on every generator's traces; the CRC-32 composition it rests on holds."""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pubsub_spec.conformance import fingerprint as fpm
from pubsub_spec.conformance.fingerprint import (
    FingerprintSink,
    RecordSink,
    fingerprint,
    shift,
    shift_array,
)
from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.impls import resolve
from pubsub_spec.reference.common.oracle import Delivery

IDS = st.text(min_size=0, max_size=12)  # any Unicode: lengths are UTF-8 bytes, not characters


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=40), st.binary(max_size=40))
def test_crc32_of_a_concatenation_is_the_shifted_crc_of_its_head_xor_that_of_its_tail(
    a: bytes, b: bytes
) -> None:
    assert zlib.crc32(a + b) == shift(zlib.crc32(a), len(b)) ^ zlib.crc32(b)
    v = np.array([zlib.crc32(a), zlib.crc32(b), 0, 0xFFFFFFFF], dtype=np.uint64)
    assert shift_array(v, len(b)).tolist() == [shift(int(x), len(b)) for x in v.tolist()]


@dataclass
class _Table:
    ids: list[str] = field(default_factory=list)

    def ids_of(self, rows: Any) -> list[str]:
        return [self.ids[i] for i in np.arange(len(self.ids))[rows].tolist()]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(IDS, min_size=1, max_size=8), min_size=1, max_size=3),
    st.lists(st.tuples(IDS, st.integers(0, 2), st.lists(st.integers(0, 7)), st.booleans())),
    st.sampled_from([1, 3, 1_000_000]),
)
def test_the_sink_fingerprints_exactly_the_records_it_stands_for(
    tables: list[list[str]],
    events: list[tuple[str, int, list[int], bool]],
    batch: int,
) -> None:
    ts = [_Table() for _ in tables]
    sink, records = FingerprintSink(), RecordSink()
    old, fpm.BATCH_PAIRS = fpm.BATCH_PAIRS, batch  # a small batch reduces between events
    try:
        for k, (event_id, t, picks, as_mask) in enumerate(events):
            table, names = ts[t % len(ts)], tables[t % len(ts)]
            # ids are appended between events, as subscriptions arrive in a trace
            table.ids.extend(names[len(table.ids) : len(table.ids) + 1 + k % 2])
            rows = np.array([p % len(table.ids) for p in picks], dtype=np.int64)
            if as_mask:
                mask = np.zeros(len(table.ids), dtype=bool)
                mask[rows] = True
                rows = mask
            sink.add(event_id, table, rows)
            records.add(event_id, table, rows)
        assert sink.result() == fingerprint(records.records)
    finally:
        fpm.BATCH_PAIRS = old


@settings(max_examples=100, deadline=None)
@given(
    st.lists(IDS, min_size=1, max_size=8),
    st.lists(st.tuples(IDS, st.lists(st.integers(0, 7), max_size=5)), max_size=12),
    st.sampled_from([1, 5, 1_000_000]),
)
def test_many_events_in_one_call_fingerprint_as_one_at_a_time(
    names: list[str], events: list[tuple[str, list[int]]], batch: int
) -> None:
    """`add_many` (events with no delivery among them) gives what one `add` per event gives,
    which is the records' fingerprint."""
    table = _Table(list(names))
    one, many, records = FingerprintSink(), FingerprintSink(), RecordSink()
    old, fpm.BATCH_PAIRS = fpm.BATCH_PAIRS, batch
    try:
        per_event = [np.array([p % len(names) for p in picks], np.int64) for _, picks in events]
        for (event_id, _), rows in zip(events, per_event, strict=True):
            one.add(event_id, table, rows)
            records.add(event_id, table, rows)
        half = len(events) // 2  # two calls, the second after a possible reduce
        for part in (slice(0, half), slice(half, None)):
            chunk = per_event[part]
            many.add_many(
                [e for e, _ in events[part]], table,
                np.concatenate(chunk) if chunk else np.zeros(0, np.int64),
                np.array([r.size for r in chunk], np.int64),
            )  # fmt: skip
        assert one.result() == many.result() == fingerprint(records.records)
    finally:
        fpm.BATCH_PAIRS = old


def test_the_fingerprint_tells_a_dropped_or_a_doubled_delivery() -> None:
    got = [Delivery("e1", "s1"), Delivery("e1", "s2"), Delivery("e2", "s1")]
    assert fingerprint(got[:2]) != fingerprint(got)
    assert fingerprint(got + got[:1]) != fingerprint(got)
    assert fingerprint([Delivery("e1", "s2")]) != fingerprint([Delivery("e2", "s1")])
    assert fingerprint(reversed(got)) == fingerprint(got)


@pytest.mark.parametrize("impl", ["oracle-indexed", "reference-array"])
@pytest.mark.parametrize("gen", sorted(GENERATORS))
def test_a_fast_builtins_fingerprint_is_that_of_its_deliveries(impl: str, gen: str) -> None:
    i = resolve(impl)
    assert i is not None and i.fingerprint is not None
    for index in range(2):
        trace = GENERATORS[gen](11, index, "small")
        got = i.run(trace)
        assert got, f"{gen}/{index}: no delivery, nothing compared"
        assert i.fingerprint(trace) == fingerprint(got)
