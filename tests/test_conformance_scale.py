"""Conformance at scale (conformance/scale/): plans sized by ops with bounded
partitions, the sampling policy, delivery fingerprints, the executors' Parquet output, and the
streamed `conform --ops` end to end: a faulty implementation found and shrunk, the sampled
implementations run on the stated share, and a wrong SQL oracle caught by the cross-check as a
failure of the suite itself."""

from __future__ import annotations

import json
import math
import os
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pubsub_spec.conformance.fingerprint import fingerprint
from pubsub_spec.conformance.generators import GENERATORS, PROFILES
from pubsub_spec.conformance.scale.arguments import SCALE_DRIVER_MEMORY, SCALE_JAVA_OPTIONS
from pubsub_spec.conformance.scale.executor import Job, run_partition
from pubsub_spec.conformance.scale.planning import (
    MAX_PARTITION_OPS,
    MIN_PARTITIONS,
    Plan,
    plan,
)
from pubsub_spec.conformance.scale.run import run_scale
from pubsub_spec.conformance.scale.sampling import (
    CROSS_CHECK,
    CROSS_OPS_BUDGET,
    SLOW_OPS_BUDGET,
    default_fractions,
    effective,
    in_sample,
    runs_on,
)
from pubsub_spec.reference.common.oracle import Delivery
from tests.spark_fixtures import spark

__all__ = ["spark"]
FAULTY = Path(__file__).resolve().parent.parent / "conformance" / "examples" / "faulty.py"
FAST_GENS = ("uniform", "churn", "partial-lenient", "octopia-stock")


def test_a_plan_reaches_the_ops_asked_for_in_bounded_partitions() -> None:
    p = plan(5_000, FAST_GENS, "tiny", 7, max_partition_ops=400, min_partitions=1)
    ests = [p.estimate[p.task(k)[0]] for k in range(p.traces)]
    assert sum(ests) == p.estimated_ops >= 5_000 > p.estimated_ops - ests[-1]
    assert [p.task(k) for k in range(5)] == [
        ("uniform", 0), ("churn", 0), ("partial-lenient", 0), ("octopia-stock", 0), ("uniform", 1),
    ]  # fmt: skip
    assert p.partitions[0][0] == 0 and p.partitions[-1][1] == p.traces
    for (a, b), (c, _) in zip(p.partitions, p.partitions[1:], strict=False):
        assert b == c and b > a
    for a, b in p.partitions:
        assert b - a == 1 or sum(ests[a:b]) <= 400
    # few ops: still several partitions, so both cores work
    small = plan(200, FAST_GENS, "tiny", 7)
    assert min(8, small.traces) <= len(small.partitions) <= small.traces
    with pytest.raises(ValueError):
        plan(0, FAST_GENS, "tiny", 7)


FILL = 0.9  # every partition but the last holds at least this share of the partition bound


def _bound(p: Plan, max_partition_ops: int, min_partitions: int) -> int:
    """The partition bound `plan` states: max_partition_ops, or less for min_partitions."""
    return min(max_partition_ops, max(1, math.ceil(p.estimated_ops / min_partitions)))


def _assert_filled(p: Plan, bound: int) -> None:
    """Partitions filled, not only bounded: each but the last is closed only because its next
    trace would overflow the bound, and so holds at least FILL of it (the cases below have
    traces of at most a tenth of the bound); hence no more partitions than the ops need."""
    ests = [p.estimate[p.task(k)[0]] for k in range(p.traces)]
    assert max(ests) <= (1 - FILL) * bound
    for a, b in p.partitions[:-1]:
        held = sum(ests[a:b])
        assert held + ests[b] > bound, (a, b, held, bound)  # the next trace did not fit
        assert held >= FILL * bound, (a, b, held, bound)
    assert len(p.partitions) <= math.ceil(p.estimated_ops / (FILL * bound)) + 1


FILL_CASES = [(5_000, "tiny", 400, 1), (20_000, "small", MAX_PARTITION_OPS, MIN_PARTITIONS)]


@pytest.mark.parametrize(("ops", "profile", "max_ops", "min_parts"), FILL_CASES)
def test_a_plan_fills_its_partitions_to_the_bound(
    ops: int, profile: str, max_ops: int, min_parts: int
) -> None:
    p = plan(ops, FAST_GENS, profile, 7, max_partition_ops=max_ops, min_partitions=min_parts)
    bound = _bound(p, max_ops, min_parts)
    _assert_filled(p, bound)
    assert len(p.partitions) >= 2  # the cases exercise the fill, not only one partition
    # under-filling planners are caught: one that fills to half the bound, and one that
    # closes every partition a trace early (both keep the upper bound)
    half = plan(ops, FAST_GENS, profile, 7, max_partition_ops=bound // 2, min_partitions=1)
    starts = [a - 1 if i else 0 for i, (a, _) in enumerate(p.partitions)]
    early = replace(p, partitions=tuple(zip(starts, [*starts[1:], p.traces], strict=True)))
    for bad in (half, early):
        assert bad.partitions[-1][1] == bad.traces and bad.estimated_ops == p.estimated_ops
        with pytest.raises(AssertionError):
            _assert_filled(bad, bound)


def test_the_large_profile_is_larger_for_every_generator() -> None:
    assert PROFILES["large"] > PROFILES["medium"]
    for name, make in GENERATORS.items():
        big, mid = make(1, 0, "large"), make(1, 0, "medium")
        assert big.trace_id == f"{name}-large-0000"
        assert len(big.ops) > len(mid.ops), name


def test_the_sampling_policy() -> None:
    assert default_fractions(SLOW_OPS_BUDGET) == (1.0, 1.0)  # CI sizes: every trace
    assert default_fractions(CROSS_OPS_BUDGET, 2) == (0.05, 1.0)
    slow, cross = default_fractions(10_000_000)
    assert 0 < slow < cross < 1
    # the slow implementations share one budget: 13 of them cost what one costs
    assert default_fractions(10_000_000, 13) == pytest.approx((slow / 13, cross))
    assert default_fractions(SLOW_OPS_BUDGET // 13, 13) == (1.0, 1.0)
    rounds = 4000
    assert all(in_sample(1, i, rounds, 1.0) for i in range(rounds))
    assert sum(in_sample(1, i, rounds, 0.1) for i in range(rounds)) == 400  # exactly 1 in 10
    assert effective(0.3) == pytest.approx(1 / 3)  # 1/fraction is rounded to a stride
    first = [in_sample(1, i, rounds, 0.1) for i in range(rounds)]
    assert first == [in_sample(1, i, rounds, 0.1) for i in range(rounds)]
    assert first != [in_sample(2, i, rounds, 0.1) for i in range(rounds)]  # the seed moves it
    # a set smaller than one stride still has a round in the sample, whatever the seed
    assert all(any(in_sample(s, i, 3, 0.001) for i in range(3)) for s in range(50))


def test_the_sample_takes_every_generator_in_the_same_share() -> None:
    """A random sample of 15 traces once had Kyra skip 6 of them (40 %) for churn, where the
    whole set needs churn in 3 generators of 14 (21 %), and the feature policy (25 %) called a
    sound implementation incomplete. The sample is systematic by round: no such chance."""
    p = plan(10_000_000, tuple(GENERATORS), "medium", 1)
    job = Job(p, "", ("kyra",), 1 / 1300, 1.0)
    gens = [p.task(k)[0] for k in range(p.traces) if runs_on(job, "kyra", k)]
    assert sorted(gens) == sorted(GENERATORS)  # each generator once at this size
    job = Job(p, "", ("kyra",), 0.01, 1.0)
    per_gen = Counter(p.task(k)[0] for k in range(p.traces) if runs_on(job, "kyra", k))
    assert set(per_gen) == set(GENERATORS) and max(per_gen.values()) - min(per_gen.values()) <= 1


def test_the_samples_spread_over_partitions_and_differ_between_implementations() -> None:
    """Sampled by whole rounds, the 14 traces of a sample were consecutive trace numbers: one
    Spark partition got all 13 simulators' work (about a minute of CPU) and held up its stage
    at 10^6 ops. The generators' offsets are spread, and each implementation has its own."""
    p = plan(1_000_000, tuple(GENERATORS), "medium", 1)
    slow = ("reference", "kyra", "tam", "octopia-snr")
    job = Job(p, "", slow, 1 / (p.rounds + 1), 1.0)  # one trace of every generator
    part = [i for i, (a, b) in enumerate(p.partitions) for _ in range(a, b)]
    for impl in slow:
        mine = [k for k in range(p.traces) if runs_on(job, impl, k)]
        assert len(mine) == len(GENERATORS)
        assert len({part[k] for k in mine}) >= len(p.partitions) // 3, impl
    samples = [frozenset(k for k in range(p.traces) if runs_on(job, i, k)) for i in slow]
    assert len(set(samples)) == len(slow)


def test_the_variants_of_a_claim_take_their_references_sample() -> None:
    """With the protocol level a variant is judged against its claim's reference run of the
    same trace; sampled apart, each would run the reference again. `reference-multicast` runs
    where `reference` runs, `tam-fewest-keys` and `tam-all` where `tam` runs; other
    implementations keep samples of their own."""
    from pubsub_spec.conformance.scale.sampling import sample_of

    p = plan(1_000_000, tuple(GENERATORS), "medium", 1)
    impls = ("reference", "reference-multicast", "tam", "tam-fewest-keys", "tam-all", "kyra",
             "reference-lbdd", "reference-fast")  # fmt: skip
    job = Job(p, "", impls, 1 / (p.rounds + 1), 1.0)

    def sample(impl: str) -> frozenset[int]:
        return frozenset(k for k in range(p.traces) if runs_on(job, impl, k))

    assert sample("reference-multicast") == sample("reference")
    assert sample("tam-fewest-keys") == sample("tam-all") == sample("tam")
    own = [sample(i) for i in ("reference", "tam", "kyra", "reference-lbdd", "reference-fast")]
    assert len(set(own)) == len(own) and all(own)
    assert sample_of("cmd:./impl") == "cmd:./impl"
    assert sample_of("oracle-indexed") == "oracle-indexed"


def test_a_fingerprint_tells_delivery_multisets_apart() -> None:
    ds = [Delivery(f"e{i}", f"s{i % 7}") for i in range(50)]
    fp = fingerprint(ds)
    assert fingerprint(reversed(ds)) == fp
    assert fingerprint(ds[1:]) != fp  # missing
    assert fingerprint([*ds, ds[3]]) != fp  # duplicate
    assert fingerprint([*ds[1:], Delivery("e0", "s6")]) != fp  # spurious instead of one
    assert fingerprint([Delivery("s1", "e1")]) != fingerprint([Delivery("e1", "s1")])
    assert fingerprint([]) == (0, 0, 0)


@pytest.mark.parametrize("gen", sorted(GENERATORS))
def test_the_rows_made_from_a_trace_are_those_parsed_from_its_ndjson_lines(gen: str) -> None:
    """`rows_from_trace` (conform --ops) skips writing and parsing the lines: same rows, same
    JSON text of predicates and values (an int stays an int, a float keeps its repr)."""
    from pubsub_spec.conformance.parquet import rows_from_lines, rows_from_trace
    from pubsub_spec.conformance.traceio import trace_to_lines

    for profile, index in (("tiny", 0), ("small", 1)):
        t = GENERATORS[gen](5, index, profile)
        assert rows_from_trace(t) == rows_from_lines(t.trace_id, trace_to_lines(t))


def test_a_partition_writes_its_traces_as_parquet_and_one_result_per_run(tmp_path: Path) -> None:
    """No Spark: one task's body, in process; the Parquet rows rebuild the NDJSON lines."""
    import pyarrow.parquet as pq

    from pubsub_spec.conformance.parquet import lines_from_rows
    from pubsub_spec.conformance.traceio import trace_to_lines

    p = plan(300, ("uniform", "churn"), "tiny", 3, max_partition_ops=200, min_partitions=1)
    job = Job(p, str(tmp_path), ("oracle-indexed", "reference"), 0.5, 1.0)
    stats = run_partition(job, 0)
    a, b = p.partitions[0]
    assert stats.traces == b - a and stats.runs["oracle-indexed"] == b - a
    assert stats.cpu > 0  # the task's CPU, its isolated runs included (report.json: run_cpu)
    assert stats.runs.get("reference", 0) < b - a  # sampled
    name = "part-00000.parquet"
    heads = pq.read_table(tmp_path / "parquet" / "header" / name).to_pylist()
    ops = pq.read_table(tmp_path / "parquet" / "ops" / name).to_pylist()
    for k, head in zip(range(a, b), heads, strict=True):
        trace = GENERATORS[p.task(k)[0]](3, p.task(k)[1], "tiny")
        mine = [o for o in ops if o["trace_id"] == trace.trace_id]
        assert lines_from_rows(head, mine) == trace_to_lines(trace)
    results = pq.read_table(tmp_path / "results" / name).to_pylist()
    assert len(results) == stats.results
    assert {r["known"] for r in results} == {""}
    assert not list(tmp_path.rglob(".*.tmp"))


def _slow_oracle(trace: Any) -> list[Delivery]:
    import time

    from pubsub_spec.reference.common.oracle import expected_deliveries

    time.sleep(0.5)  # longer than the total timeout below: a slow or loaded machine
    return expected_deliveries(trace)


def test_a_built_in_at_scale_is_not_bounded_by_the_wall_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A built-in's run at scale has no total timeout (its generated trace's ops bound it), so
    its verdict does not depend on the machine's speed; with the wall-clock bound the same run
    comes out `unknown` (timeout)."""
    from pubsub_spec.conformance import impls
    from pubsub_spec.conformance.impls import Implementation
    from pubsub_spec.conformance.isolate import run_isolated
    from pubsub_spec.conformance.scale.executor import _run_impl
    from pubsub_spec.conformance.supervisor import Limits
    from pubsub_spec.reference.common.oracle import expected_deliveries

    monkeypatch.setitem(impls._REGISTERED, "test-slow", Implementation("test-slow", _slow_oracle))
    p = plan(100, ("uniform",), "tiny", 3, min_partitions=1)
    trace = GENERATORS["uniform"](3, 0, "tiny")
    job = Job(p, "", ("test-slow",), 1.0, 1.0, total_timeout=0.2)
    (known, kind, reason, fp, _), _level = _run_impl("test-slow", trace, job)
    assert (known, kind, reason) == ("", "", "")
    assert fp == fingerprint(expected_deliveries(trace))
    bounded = run_isolated(_slow_oracle, trace, Limits(5.0, total_timeout=0.2))
    assert bounded.status == "timeout"


@pytest.mark.spark
def test_conform_ops_finds_a_faulty_implementation_and_samples_the_slow_ones(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pubsub_spec.cli import main

    out = tmp_path / "out"
    code = main(
        [
            "conform", "--out", str(out), "--ops", "800", "--profile", "tiny",
            "--generators", ",".join(FAST_GENS), "--seed", "5",
            "--impls", "oracle-python,oracle-indexed,reference-array,reference",
            "--impl", f"{sys.executable} {FAULTY} --mode drop",
            "--sample-slow", "0.25", "--json", str(tmp_path / "r.json"),
        ]
    )  # fmt: skip
    text = capsys.readouterr().out
    assert code == 1, text
    body = json.loads((tmp_path / "r.json").read_text())
    impls = {i["impl"]: i for i in body["implementations"]}
    total = body["traces"]
    # the plan reaches 800 estimated ops; the real traces differ from the estimate a little
    assert body["plan"]["estimated_ops"] >= 800 and 720 <= body["ops"] <= 880
    assert not body["suite_failure"]
    for name in ("oracle-python", "oracle-indexed", "reference-array"):
        assert impls[name]["verdict"] == "pass" and impls[name]["passed"] == total, name
        assert impls[name]["fraction"] == 1.0
    p = plan(800, FAST_GENS, "tiny", 5)
    job = Job(p, "", (), 0.25, 1.0)
    bad_name, bad = next((k, v) for k, v in impls.items() if k.startswith("cmd:"))
    sampled = sum(runs_on(job, "reference", k) for k in range(p.traces))
    assert 0 < sampled < total
    ref = impls["reference"]
    assert (ref["verdict"], ref["traces"], ref["fraction"]) == ("pass", sampled, 0.25)
    assert bad["traces"] == sum(runs_on(job, bad_name, k) for k in range(p.traces))
    assert bad["verdict"] == "fail" and 0 < bad["traces"] < total and bad["failed"] > 0
    fails = body["failures"]
    assert fails and all(f["impl"].startswith("cmd:") for f in fails)
    assert all("missing" in f["detail"] for f in fails)
    assert (out / fails[0]["shrunk"]).is_file()  # the first failure of each is shrunk
    md = (out / "report.md").read_text()
    assert "| reference | pass | a sample of 0.25 (slow) |" in md
    assert "| oracle-indexed | pass | every trace (fast) |" in md
    assert "driver" in text and "ops/min" in text


@pytest.mark.spark
def test_a_wrong_sql_oracle_is_a_failure_of_the_suite(spark: Any, tmp_path: Path) -> None:
    """A mutant of the SQL oracle (it forgets about one delivery in 40): the Python oracle's
    cross-check disagrees, and the run says the suite itself failed."""
    from pyspark.sql import functions as F

    def forget(df: Any) -> Any:
        return df.where(F.crc32(F.concat("trace_id", "event_id", "sub_id")) % 40 != 0)

    r = run_scale(
        spark, tmp_path, ("uniform", "churn"), 600, 2, "tiny", (CROSS_CHECK, "oracle-indexed"),
        shrink=False, corrupt_expected=forget, max_details=2,
    )  # fmt: skip
    assert r.suite_failure and "disagree" in r.suite_failure and r.failed
    cross = next(i for i in r.impls if i.impl == CROSS_CHECK)
    assert cross.failed > 0 and cross.verdict == "fail"
    assert any("missing" not in f.detail and "spurious" in f.detail for f in r.failures)
    # the same run without the mutant: tests/test_conformance_scale.py's conform --ops test


def test_generate_ops_writes_parquet_and_the_sql_oracles_deliveries(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`generate --ops N`: the executors write the trace set as Parquet, the
    SQL oracle's deliveries as Parquet in expected/, and an index.json that states the target,
    the traces and ops written; the traces read back from Parquet are the generators' own, and
    the expected deliveries are the Python oracle's (conformance/FORMAT.md)."""
    from pubsub_spec.cli import main
    from pubsub_spec.conformance.spark_oracle import parquet_frames
    from pubsub_spec.reference.common.oracle import expected_deliveries

    out = tmp_path / "set"
    gens = ("uniform", "churn")
    code = main(
        [
            "generate", "--out", str(out), "--ops", "300", "--profile", "tiny",
            "--generators", ",".join(gens), "--seed", "3",
        ]
    )  # fmt: skip
    assert code == 0, capsys.readouterr()
    index = json.loads((out / "index.json").read_text())
    p = plan(300, gens, "tiny", 3)
    assert (index["target_ops"], index["traces"], index["profile"]) == (300, p.traces, "tiny")
    traces = [GENERATORS[g](3, i, "tiny") for g, i in map(p.task, range(p.traces))]
    assert index["ops"] == sum(len(t.ops) for t in traces) >= 270
    heads, ops = parquet_frames(spark, out / "parquet")
    assert sorted(r.trace_id for r in heads.select("trace_id").collect()) == sorted(
        t.trace_id for t in traces
    )
    assert ops.count() == index["ops"]
    got = {
        (r.trace_id, r.event_id, r.sub_id)
        for r in spark.read.parquet(str(out / "expected")).collect()
    }
    want = {(t.trace_id, d.event_id, d.sub_id) for t in traces for d in expected_deliveries(t)}
    assert got == want and want


@pytest.mark.parametrize(
    ("argv", "heap", "gc"),
    [
        (["--ops", "1000"], SCALE_DRIVER_MEMORY, SCALE_JAVA_OPTIONS),  # counts reach the driver
        (["--ops", "1000", "--driver-memory", "3g"], "3g", SCALE_JAVA_OPTIONS),
        ([], None, None),  # without --ops, Spark's own defaults (1g, G1)
        (["--driver-memory", "2g"], "2g", None),
    ],
)
@pytest.mark.parametrize("command", ["conform", "generate"])
def test_the_commands_ask_spark_for_the_driver_jvm_of_their_mode(
    command: str,
    argv: list[str],
    heap: str | None,
    gc: str | None,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    from pyspark.sql import SparkSession

    from pubsub_spec import cli
    from pubsub_spec.conformance import spark_session

    asked: list[tuple[str | None, str | None]] = []

    class Stop(Exception):
        pass

    def fake(
        master: str | None = None,
        app: str = "",
        driver_memory: str | None = None,
        java_options: str | None = None,
    ) -> None:
        asked.append((driver_memory, java_options))
        raise Stop

    monkeypatch.setattr(spark_session, "get_spark", fake)
    monkeypatch.setattr(SparkSession, "getActiveSession", staticmethod(lambda: None))
    with pytest.raises(Stop):
        cli.main([command, "--out", str(tmp_path / "out"), *argv])
    assert asked == [(heap, gc)]


def test_the_sampler_finds_an_executor_jvm_of_its_application_on_this_machine() -> None:
    """A stand-in process whose command line is an executor's: found by application id, its
    memory measured; in local mode (no executor JVM) the executors are the driver's JVM."""
    import subprocess
    import time

    from pubsub_spec.conformance.scale.memory import Sampler, executor_pids

    argv = [sys.executable, "-c", "import time; b = bytearray(64 << 20); time.sleep(60)",
            "org.apache.spark.executor.CoarseGrainedExecutorBackend", "--app-id", "app-t-42"]
    proc = subprocess.Popen(argv)  # fmt: skip
    try:
        time.sleep(1.0)
        assert executor_pids("app-t-42") == [proc.pid]
        assert executor_pids("app-t-43") == []
        with Sampler(None, "app-t-42") as m:
            pass
        assert m.executor > 64
        assert m.stage("s", 1.0).executor_jvm_peak_mb == m.executor
    finally:
        proc.kill()
        proc.wait()
    with Sampler(os.getpid()) as local:
        pass
    assert local.stage("s", 1.0).executor_jvm_peak_mb == local.jvm > 0
