"""Trace format v1: round trip, and bad traces rejected with file, line and field named."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pubsub_spec.conformance.parquet import read_parquet, read_parquet_lines, write_parquet
from pubsub_spec.conformance.traceio import (
    parse_trace_lines,
    read_expected,
    read_trace,
    read_trace_batch,
    trace_to_lines,
    write_expected,
    write_trace,
)
from pubsub_spec.properties.thesis.strategies import workloads
from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.ops import Publish, Subscribe, Trace
from pubsub_spec.reference.common.oracle import expected_deliveries
from pubsub_spec.reference.thesis.config import config_of

HEADER = (
    '{"format":"pubsub-trace","version":1,"trace_id":"t","seed":1,"generator":"manual",'
    '"schemas":[{"name":"s","attributes":[{"name":"a","type":"float","min":0,"max":100}]}],'
    '"semantics":{"matching":"strict"},"config":{"initial_nodes":3}}'
)
SUB = '{"seq":1,"op":"subscribe","id":"s1","subscriber":"n0","schema":"s","predicates":{"a":[1,5]}}'


def _cfg(extra: str) -> str:
    return HEADER.replace('"initial_nodes":3', '"initial_nodes":3,' + extra)


PUB = '{"seq":2,"op":"publish","id":"e1","publisher":"n1","schema":"s","values":{"a":3}}'


@settings(max_examples=60)
@given(workloads())
def test_round_trip(trace: Trace) -> None:
    lines = trace_to_lines(trace)
    again = parse_trace_lines(lines, "rt")
    assert again == trace
    assert trace_to_lines(again) == lines


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
        ([HEADER.replace('"version":1', '"version":3')], 1, "version", "unsupported"),
        ([HEADER, '{"seq":1,"op":"unsubscribe","id":"nope"}'], 2, "id", "unknown"),
        ([HEADER, SUB, SUB.replace('"seq":1', '"seq":2')], 3, "id", "duplicate"),
        ([HEADER, SUB, PUB.replace('"a":3', '"a":1e400')], 3, "(json)", "range of a double"),
        (
            [HEADER.replace('"initial_nodes":3', '"initial_nodes":3.0')],
            1,
            "config.initial_nodes",
            "integer",
        ),
        ([HEADER.replace('"seed":1', '"seed":1.0')], 1, "seed", "integer"),
        ([_cfg('"delivery":"smoke"')], 1, "config.delivery", "one of"),
        ([_cfg('"pub_p":1.5')], 1, "config.pub_p", "[0, 1]"),
        ([_cfg('"capacity_min":0')], 1, "config.capacity_min", ">= 1"),
        ([_cfg('"capacity_min":5,"capacity_max":4')], 1, "config.capacity_max", "capacity_min"),
        ([_cfg('"cutoff":{"s/zz":2}')], 1, "config.cutoff.s/zz", "qualified"),
        ([_cfg('"cutoff":{"s/a":0}')], 1, "config.cutoff.s/a", "positive"),
        ([_cfg('"cutoff":{"s/a":5},"cutoff_h":{"s/a":5}')], 1, "config.cutoff_h.s/a", "h < c"),
        ([_cfg('"cutoff_h":{"s/a":5}')], 1, "config.cutoff_h.s/a", "cutoff"),
        (
            [HEADER.replace('"type":"float","min":0,"max":100', '"type":"int","min":0,"max":1e20')],
            1,
            "schemas[s].attributes[a].max",
            "",
        ),
        (
            [
                HEADER.replace(
                    '"type":"float","min":0,"max":100',
                    '"type":"int","min":0,"max":9007199254740992',
                )
            ],
            1,
            "schemas[s].attributes[a].max",
            "I-JSON",
        ),
        ([HEADER, SUB.replace("[1,5]", "[1,5,7]")], 2, "predicates.a", "long"),
        (
            [HEADER, PUB.replace('"n1"', '"n9"').replace('"seq":2', '"seq":1')],
            2,
            "publisher",
            "not live",
        ),
        ([HEADER, '{"seq":1,"op":"fail","nodes":["n0","n1","n2"]}'], 2, "node", "last live"),
        ([HEADER, '{"seq":1,"op":"join","node":"n2"}'], 2, "node", "duplicate node"),
        ([HEADER, SUB, PUB.replace('"seq":2', '"seq":1')], 3, "seq", "increase"),
        ([], 1, "(file)", "no header"),
        ([HEADER, ""], 2, "(line)", "empty line"),
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
    def head(tid: str) -> str:  # in a batch a trace id equals its file name
        return HEADER.replace('"trace_id":"t"', f'"trace_id":"{tid}"')

    (tmp_path / "a.ndjson").write_text("\n".join([head("a"), SUB, PUB]) + "\n")
    (tmp_path / "b.ndjson").write_text("\n".join([head("b"), SUB.replace("[1,5]", "[5,1]")]) + "\n")
    (tmp_path / "c.ndjson").write_text("\n".join([head("c"), PUB]) + "\n")
    good, bad = read_trace_batch(sorted(tmp_path.glob("*.ndjson")))
    assert len(good) == 2 and [Path(r.path).name for r in bad] == ["b.ndjson"]
    assert "line 2" in str(bad[0].error) and "predicates.a" in str(bad[0].error)


def test_float_attribute_integer_literals_are_doubles() -> None:
    trace = parse_trace_lines([HEADER, SUB, PUB], "ok")
    sub, pub = trace.ops
    assert isinstance(sub, Subscribe) and isinstance(pub, Publish)
    assert all(isinstance(x, float) for x in (sub.sub.predicates[0].lo, pub.event.values[0][1]))
    assert all(isinstance(x, float) for x in (trace.schemas[0].attributes[0].min,))


def test_config_objects_keep_their_order() -> None:
    lines = [_cfg('"cutoff":{"s/a":20,"s/b":4},"widening":{"s/b":1,"s/a":0}')]
    lines[0] = lines[0].replace(
        '{"name":"a","type":"float","min":0,"max":100}',
        '{"name":"a","type":"float","min":0,"max":100},{"name":"b","type":"int","min":0,"max":9}',
    )
    trace = parse_trace_lines(lines, "cfg")
    assert config_of(trace).widening == (("s/b", 1.0), ("s/a", 0.0))
    assert parse_trace_lines(trace_to_lines(trace), "again") == trace


@pytest.mark.parametrize(
    ("text", "line", "field"),
    [
        ('{"event":"e1","deliveries":["s1"]}\n{"event":"e1","deliveries":[]}', 2, "event"),
        ('{"event":"e1","deliveries":["s1","s1"]}', 1, "deliveries"),
        ('{"event":"e1","deliveries":[1]}', 1, "deliveries"),
        ('{"event":"e1"}', 1, "(line)"),
        ('{"event":"e1","deliveries":[]', 1, "(json)"),
    ],
)
def test_bad_expected_file(tmp_path: Path, text: str, line: int, field: str) -> None:
    path = tmp_path / "x.expected.ndjson"
    path.write_text(text + "\n")
    with pytest.raises(InputError) as info:
        read_expected(path)
    assert info.value.where == f"{path} line {line}" and info.value.field == field


@settings(max_examples=20)
@given(st.lists(workloads(), min_size=1, max_size=4))
def test_parquet_round_trip(traces: list[Trace]) -> None:
    named = [replace(t, trace_id=f"t{i}") for i, t in enumerate(traces)]
    with tempfile.TemporaryDirectory() as d:
        write_parquet(named, d)
        assert read_parquet(d) == named
        lines = read_parquet_lines(d)
        assert [lines[t.trace_id] for t in named] == [trace_to_lines(t) for t in named]


def test_parquet_reader_validates_like_ndjson(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    write_parquet([parse_trace_lines([HEADER, SUB, PUB], "ok")], tmp_path)
    (part,) = (tmp_path / "ops").rglob("*.parquet")
    table = pq.read_table(part)
    col = table.column_names.index("values_json")
    pq.write_table(table.set_column(col, "values_json", [[None, '{"a":300}']]), part)
    with pytest.raises(InputError) as info:
        read_parquet(tmp_path)
    assert info.value.where.startswith(f"{tmp_path}/trace_id=t line 3")
    assert info.value.field == "values.a"
