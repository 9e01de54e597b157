"""The Spark pipeline: generation independent of the partitioning, Parquet written by
Spark read back as the same traces, the Spark SQL oracle agreeing with the Python oracle on
every generator, on hand-made edge cases and on Hypothesis workloads, and `pubsub-spec
generate` end to end."""

from __future__ import annotations

import json
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.parquet import read_parquet, write_parquet
from pubsub_spec.conformance.spark_generate import generate_trace_set
from pubsub_spec.conformance.spark_oracle import spark_expected, spark_expected_parquet
from pubsub_spec.conformance.traceio import (
    parse_trace_lines,
    read_expected,
    read_trace,
    write_trace,
)
from pubsub_spec.properties.thesis.strategies import workloads
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.common.oracle import expected_deliveries
from tests.spark_fixtures import spark

__all__ = ["spark"]
pytestmark = pytest.mark.spark


def python_pairs(trace: Trace) -> list[tuple[str, str]]:
    return [(d.event_id, d.sub_id) for d in expected_deliveries(trace)]


def agree(spark: Any, traces: list[Trace], directory: Path) -> int:
    """Both oracles, on NDJSON files and on a Parquet set; returns the number of deliveries."""
    paths = []
    for t in traces:
        paths.append(directory / f"{t.trace_id}.ndjson")
        write_trace(t, paths[-1])
    write_parquet(traces, directory / "parquet")
    from_ndjson = spark_expected(spark, paths)
    from_parquet = spark_expected_parquet(spark, directory / "parquet")
    want = {t.trace_id: python_pairs(t) for t in traces}
    want = {k: v for k, v in want.items() if v}
    assert from_ndjson == want
    assert from_parquet == want
    return sum(len(v) for v in want.values())


# Hand-made edge cases: closed bounds, lenient vacuous match, unsubscribe, leave and fail of a
# subscriber, a later publish by a joined node, int attributes, two schemas.
EDGE = [
    '{"format":"pubsub-trace","version":1,"trace_id":"edge-LENIENT","seed":0,"generator":"manual",'
    '"schemas":[{"name":"s","attributes":[{"name":"a","type":"float","min":0,"max":10},'
    '{"name":"b","type":"int","min":-5,"max":5}]},'
    '{"name":"t","attributes":[{"name":"a","type":"float","min":0,"max":10}]}],'
    '"semantics":{"matching":"lenient"},"config":{"initial_nodes":4}}',
    '{"seq":1,"op":"subscribe","id":"s1","subscriber":"n0","schema":"s","predicates":{"a":[2,4]}}',
    '{"seq":2,"op":"subscribe","id":"s2","subscriber":"n1","schema":"s",'
    '"predicates":{"a":[4,4],"b":[-5,0]}}',
    '{"seq":3,"op":"subscribe","id":"s3","subscriber":"n2","schema":"t","predicates":{"a":[0,10]}}',
    '{"seq":4,"op":"subscribe","id":"s4","subscriber":"n3","schema":"s","predicates":{"b":[1,1]}}',
    '{"seq":5,"op":"publish","id":"e1","publisher":"n0","schema":"s","values":{"a":4}}',
    '{"seq":6,"op":"publish","id":"e2","publisher":"n0","schema":"s","values":{"b":0}}',
    '{"seq":7,"op":"unsubscribe","id":"s1"}',
    '{"seq":8,"op":"publish","id":"e3","publisher":"n1","schema":"s","values":{"a":2.0,"b":1}}',
    '{"seq":9,"op":"leave","node":"n1"}',
    '{"seq":10,"op":"join","node":"n4"}',
    '{"seq":11,"op":"fail","nodes":["n3","n0"]}',
    '{"seq":12,"op":"publish","id":"e4","publisher":"n4","schema":"s","values":{"a":4,"b":1}}',
    '{"seq":13,"op":"publish","id":"e5","publisher":"n4","schema":"t","values":{"a":10}}',
]


def test_generation_does_not_depend_on_partitioning(spark: Any, tmp_path: Path) -> None:
    gens = ["zipf", "churn", "partial-lenient"]
    a = generate_trace_set(spark, tmp_path / "a", gens, 2, 7, "tiny", partitions=1)
    b = generate_trace_set(spark, tmp_path / "b", gens, 2, 7, "tiny", partitions=3)
    assert len(a) == 6 and [p.name for p in a] == [p.name for p in b]
    for x, y in zip(a, b, strict=True):
        assert x.read_bytes() == y.read_bytes()
        ex, ey = (p.with_name(p.name.replace(".ndjson", ".expected.ndjson")) for p in (x, y))
        assert ex.read_bytes() == ey.read_bytes()
    index = json.loads((tmp_path / "a" / "index.json").read_text())
    assert index == json.loads((tmp_path / "b" / "index.json").read_text())
    assert [e["trace"] for e in index["traces"]] == [f"traces/{p.name}" for p in a]
    # the Parquet written by Spark is the same trace set, and the expected files are right
    traces = [read_trace(p) for p in a]
    assert read_parquet(tmp_path / "a" / "parquet") == sorted(traces, key=lambda t: t.trace_id)
    for p, t in zip(a, traces, strict=True):
        exp = read_expected(p.with_name(f"{t.trace_id}.expected.ndjson"))
        assert exp == expected_deliveries(t)


def test_both_oracles_agree_on_every_generator_and_edge_case(spark: Any, tmp_path: Path) -> None:
    traces = [
        gen(11, i, profile)
        for gen in GENERATORS.values()
        for profile in ("tiny", "small")
        for i in range(2)
    ]
    edge = parse_trace_lines(EDGE, "edge")
    strict = parse_trace_lines(
        [EDGE[0].replace("LENIENT", "STRICT").replace("lenient", "strict"), *EDGE[1:]], "edge"
    )
    assert python_pairs(edge) == [
        ("e1", "s1"),
        ("e1", "s2"),
        ("e1", "s4"),  # lenient: s4's only attribute is missing, so it matches vacuously
        ("e2", "s1"),
        ("e2", "s2"),
        ("e3", "s4"),
        ("e5", "s3"),  # closed upper bound
    ]
    assert python_pairs(strict) == [("e1", "s1"), ("e3", "s4"), ("e5", "s3")]
    assert agree(spark, [*traces, edge, strict], tmp_path) > 200


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(workloads(), min_size=1, max_size=8))
def test_both_oracles_agree_on_hypothesis_workloads(spark: Any, traces: list[Trace]) -> None:
    named = [replace(t, trace_id=f"h{i}") for i, t in enumerate(traces)]
    with tempfile.TemporaryDirectory() as d:
        agree(spark, named, Path(d))


def test_generate_command(spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pubsub_spec.cli import main

    out = tmp_path / "set"
    args = ["generate", "--out", str(out), "--generators", "uniform,cutoff", "--count", "1"]
    assert main([*args, "--profile", "tiny", "--seed", "3"]) == 0
    assert "2 traces" in capsys.readouterr().out
    names = sorted(p.name for p in (out / "traces").iterdir())
    assert names == [
        "cutoff-tiny-0000.expected.ndjson",
        "cutoff-tiny-0000.ndjson",
        "uniform-tiny-0000.expected.ndjson",
        "uniform-tiny-0000.ndjson",
    ]
    assert (out / "index.json").is_file() and (out / "parquet" / "ops").is_dir()
    assert spark.range(1).count() == 1  # the command left the shared session running

    assert main(["generate", "--out", str(out), "--generators", "nope"]) == 2
    assert "unknown generator" in capsys.readouterr().err

    # --check: a malformed trace is reported with file, line and field; the others still run
    bad = out / "traces" / "zz-bad.ndjson"
    good = out / "traces" / "uniform-tiny-0000.ndjson"
    lines = good.read_text().splitlines()
    bad.write_text("\n".join([lines[0], *lines[1:3], '{"seq":99,"op":"unsubscribe","id":"x"}']))
    (out / "traces" / "cutoff-tiny-0000.expected.ndjson").unlink()
    assert main(["generate", "--check", str(out / "traces")]) == 1
    text = capsys.readouterr().out
    assert f"rejected {bad}: {bad} line 4 (op seq 99): field 'id'" in text
    assert "ok " in text and (out / "traces" / "cutoff-tiny-0000.expected.ndjson").is_file()


# The format's numeric extremes: seq from 0 to 2^53-1, the format's limit (a publish
# at 2^63-1, the old limit, once collided with the SQL oracle's "never ends" sentinel), float
# domains at the double range, an int domain at +-(2^53-1), a subnormal value and -0.0 against a
# bound of 0.0.
EXTREMES = [
    '{"format":"pubsub-trace","version":1,"trace_id":"extremes","seed":0,"generator":"manual",'
    '"schemas":[{"name":"s","attributes":[{"name":"a","type":"float",'
    '"min":-1.7976931348623157e308,"max":1.7976931348623157e308},'
    '{"name":"b","type":"int","min":-9007199254740991,"max":9007199254740991}]}],'
    '"semantics":{"matching":"strict"},"config":{"initial_nodes":2}}',
    '{"seq":0,"op":"subscribe","id":"s1","subscriber":"n0","schema":"s",'
    '"predicates":{"a":[-1.7976931348623157e308,1.7976931348623157e308],'
    '"b":[9007199254740991,9007199254740991]}}',
    '{"seq":1,"op":"subscribe","id":"s2","subscriber":"n1","schema":"s",'
    '"predicates":{"a":[0.0,5e-324]}}',
    '{"seq":2,"op":"publish","id":"e0","publisher":"n0","schema":"s","values":{"a":-0.0,"b":0}}',
    '{"seq":3,"op":"publish","id":"e1","publisher":"n0","schema":"s","values":{"a":1e-320}}',
    '{"seq":9007199254740991,"op":"publish","id":"e2","publisher":"n1","schema":"s",'
    '"values":{"a":5e-324,"b":9007199254740991}}',
]


def test_both_oracles_agree_at_the_formats_extremes(spark: Any, tmp_path: Path) -> None:
    trace = parse_trace_lines(EXTREMES, "extremes")
    assert python_pairs(trace) == [("e0", "s2"), ("e2", "s1"), ("e2", "s2")]
    assert agree(spark, [trace], tmp_path) == 3


MUTANTS = [
    # a predicate's attribute taken one place further in its schema's list
    ("array_position(sa.names, p.key) - 1", "array_position(sa.names, p.key)"),
    # lenient: an absent value fails the predicate instead of being ignored
    ("get(e.vals, p.pos) IS NULL)", "false)"),
    # the values ordered by the event, not by the schema's list
    ("transform(sa.names, x -> try_element_at(vals, x))", "map_values(vals)"),
]


def test_the_sql_oracles_positions_are_checked(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Predicates and values meet by attribute position in the SQL oracle; each mutant of that
    rule disagrees with the Python oracle on the edge cases, where the rule as written agrees
    (`test_both_oracles_agree_on_every_generator_and_edge_case`)."""
    from pubsub_spec.conformance import spark_oracle

    edge = parse_trace_lines(EDGE, "edge")
    path = tmp_path / f"{edge.trace_id}.ndjson"
    write_trace(edge, path)
    want = {edge.trace_id: python_pairs(edge)}
    sql = spark_oracle.SQL
    for rule, mutant in MUTANTS:
        assert sql.count(rule) == 1, rule
        monkeypatch.setattr(spark_oracle, "SQL", sql.replace(rule, mutant))
        assert spark_expected(spark, [path]) != want, mutant
