"""Trace format v1: round trip, and bad traces rejected with file, line and field named."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings

from conformance.traceio import (
    parse_trace_lines,
    read_expected,
    read_trace,
    read_trace_batch,
    trace_to_lines,
    write_expected,
    write_trace,
)
from properties.strategies import workloads
from reference.errors import InputError
from reference.ops import Trace
from reference.oracle import expected_deliveries

HEADER = (
    '{"format":"pubsub-trace","version":1,"trace_id":"t","seed":1,"generator":"manual",'
    '"schemas":[{"name":"s","attributes":[{"name":"a","type":"float","min":0,"max":100}]}],'
    '"semantics":{"matching":"strict"},"config":{"initial_nodes":3}}'
)
SUB = '{"seq":1,"op":"subscribe","id":"s1","subscriber":"n0","schema":"s","predicates":{"a":[1,5]}}'
PUB = '{"seq":2,"op":"publish","id":"e1","publisher":"n1","schema":"s","values":{"a":3}}'


@settings(max_examples=60)
@given(workloads())
def test_round_trip(trace: Trace) -> None:
    again = parse_trace_lines(trace_to_lines(trace), "rt")
    assert again.ops == trace.ops and again.config == trace.config
    assert again.schemas == trace.schemas and again.matching == trace.matching


def test_good_trace_and_expected_file(tmp_path: Path) -> None:
    trace = parse_trace_lines([HEADER, SUB, PUB], "ok")
    write_trace(trace, tmp_path / "t.ndjson")
    assert read_trace(tmp_path / "t.ndjson").ops == trace.ops
    write_expected(tmp_path / "t.expected.ndjson", trace, expected_deliveries(trace))
    assert read_expected(tmp_path / "t.expected.ndjson") == expected_deliveries(trace)


@pytest.mark.parametrize(
    ("lines", "line", "field", "words"),
    [
        ([HEADER, SUB.replace("[1,5]", "[5,1]")], 2, "predicates.a", "inverted range"),
        ([HEADER, SUB.replace('"a":[1,5]', '"z":[1,5]')], 2, "predicates.z", "unknown attribute"),
        ([HEADER, SUB, PUB.replace('"a":3', '"a":NaN')], 3, "(json)", "NaN"),
        ([HEADER, SUB, PUB.replace('"a":3', '"a":Infinity')], 3, "(json)", "Infinity"),
        ([HEADER, SUB, PUB.replace('"a":3', '"a":300')], 3, "values.a", "outside domain"),
        ([HEADER, SUB.replace('"seq":1,', '"seq":1,"seq":1,')], 2, "(json)", "duplicate key"),
        ([HEADER, SUB[:-5]], 2, "(json)", "invalid JSON"),
        ([HEADER, SUB.replace('"subscribe"', '"subscrib"')], 2, "op", "unknown op"),
        ([HEADER, SUB.replace('"subscriber":"n0",', "")], 2, "subscriber", "required"),
        ([HEADER, SUB.replace('"schema":"s",', '"schema":"s","x":1,')], 2, "x", "unexpected"),
        (
            [HEADER.replace('"initial_nodes":3', '"initial_nodes":3,"bogus":1')],
            1,
            "config.bogus",
            "unknown",
        ),
        ([HEADER.replace('"version":1', '"version":2')], 1, "version", "unsupported"),
        ([HEADER, '{"seq":1,"op":"unsubscribe","id":"nope"}'], 2, "id", "unknown"),
        ([HEADER, SUB, SUB.replace('"seq":1', '"seq":2')], 3, "id", "duplicate"),
    ],
)
def test_bad_trace_names_line_and_field(
    lines: list[str], line: int, field: str, words: str
) -> None:
    with pytest.raises(InputError) as info:
        parse_trace_lines(lines, "bad.ndjson")
    err = info.value
    assert err.where.startswith(f"bad.ndjson line {line}"), str(err)
    assert err.field == field and words in err.message, str(err)


def test_batch_keeps_going_after_a_bad_trace(tmp_path: Path) -> None:
    (tmp_path / "a.ndjson").write_text("\n".join([HEADER, SUB, PUB]) + "\n")
    (tmp_path / "b.ndjson").write_text("\n".join([HEADER, SUB.replace("[1,5]", "[5,1]")]) + "\n")
    (tmp_path / "c.ndjson").write_text("\n".join([HEADER, PUB]) + "\n")
    good, bad = read_trace_batch(sorted(tmp_path.glob("*.ndjson")))
    assert len(good) == 2 and [Path(r.path).name for r in bad] == ["b.ndjson"]
    assert "line 2" in str(bad[0].error) and "predicates.a" in str(bad[0].error)
