"""The verdicts of a run at scale. In Spark SQL (`judged`): the SQL oracle's deliveries reduced
to one fingerprint per trace (`expected_fingerprints`), joined with the executors' result rows;
the driver collects the counts per implementation (`ImplSummary`, judged by verdict.py's rules in
`overall_verdict`) and the failing (implementation, trace) pairs up to a bound (`Failure`). On
the driver (`detail_failures`): each collected failure's trace is generated again, its expected
deliveries are computed by the SQL oracle for that trace alone, the implementation runs on it
(runner.run_one, giving the missing/duplicate/spurious pairs) and it is shrunk.

A fingerprint collision would hide a wrong delivery set; with a count and two independent
32-bit sums, a fault that is not built to collide is missed with probability about 2^-64."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pubsub_spec.conformance.scale.executor import RESULT_DDL, RESULTS_DIR, Job
from pubsub_spec.conformance.scale.planning import Plan
from pubsub_spec.conformance.scale.sampling import CROSS_CHECK
from pubsub_spec.reference.common.oracle import Delivery


def expected_fingerprints(expected: Any) -> Any:
    """The SQL oracle's deliveries (trace_id, event_id, sub_id) as one fingerprint per trace."""
    from pyspark.sql import functions as F

    h1 = F.crc32(F.concat("event_id", F.lit("\t"), "sub_id"))
    h2 = F.crc32(F.concat("sub_id", F.lit("\n"), "event_id", F.lit("#")))
    return expected.groupBy("trace_id").agg(
        F.count(F.lit(1)).alias("en"), F.sum(h1).alias("eh1"), F.sum(h2).alias("eh2")
    )


@dataclass
class ImplSummary:
    impl: str
    role: str  # fast | slow | cross-check
    fraction: float
    traces: int = 0  # traces it ran on
    ops: int = 0
    passed: int = 0
    failed: int = 0
    unknown: int = 0
    skipped: int = 0
    checked: int = 0  # publishes compared
    skip_reasons: list[str] = field(default_factory=list)
    verdict: str = ""
    # the protocol level (conform --ops --level protocol; conformance/OBSERVATIONS.md): traces
    # that conform, deviate, are not reported (skipped traces left out), and the overall level
    conforms: int = 0
    deviates: int = 0
    not_reported: int = 0
    protocol: str = ""


@dataclass
class Failure:
    impl: str
    trace_id: str
    generator: str
    trace_index: int
    verdict: str
    kind: str
    reason: str
    detail: str = ""
    shrunk: str = ""


@dataclass
class ProtocolDeviation:
    """One trace on which an implementation deviates at the protocol level (the first ones
    of each implementation, by trace id)."""

    impl: str
    trace_id: str
    generator: str
    protocol: str  # deviates (rule)
    detail: str


def overall_protocol(s: ImplSummary, first: ProtocolDeviation | None) -> str:
    """verdict.overall_protocol's rules on the counts: "" when not judged."""
    if not (s.conforms or s.deviates or s.not_reported):
        return ""
    if s.deviates:
        return first.protocol if first is not None else "deviates"
    return "not reported" if s.not_reported else "conforms"


def overall_verdict(s: ImplSummary, subset: frozenset[str] | None) -> str:
    """verdict.overall's rules on the counts (verdict.py)."""
    from pubsub_spec.conformance.verdict import (
        CORE_FEATURES,
        MAX_SKIPPED_SHARE,
        Verdict,
        skipped_features,
    )

    if s.traces == 0 or s.skipped == s.traces:
        return "skipped"
    if s.failed:
        return "fail"
    if s.unknown:
        return "unknown"
    if s.checked == 0:
        return "fail"
    lacking = frozenset().union(
        *(skipped_features(Verdict(s.impl, "", "", "skipped", reason=r, kind="feature"))
          for r in s.skip_reasons)
    )  # fmt: skip
    if subset is not None:
        return "incomplete" if lacking & subset else "pass"
    if lacking & CORE_FEATURES or s.skipped > MAX_SKIPPED_SHARE * s.traces:
        return "incomplete"
    return "pass"


def judged(spark: Any, out: Path, expected: Any) -> Any:
    """The result rows with their verdict and kind (Spark SQL), against the fingerprints."""
    from pyspark.sql import functions as F

    res = spark.read.schema(RESULT_DDL).parquet(str(out / RESULTS_DIR))
    fp = expected_fingerprints(expected)
    j = res.join(fp, "trace_id", "left")
    same = (
        (F.coalesce("en", F.lit(0)) == F.col("n"))
        & (F.coalesce("eh1", F.lit(0)) == F.col("h1"))
        & (F.coalesce("eh2", F.lit(0)) == F.col("h2"))
    )
    verdict = (
        F.when(F.col("known") != "", F.col("known"))
        .when(F.col("publishes") == 0, "fail")
        .when(same, "pass")
        .otherwise("fail")
    )
    kind = (
        F.when(F.col("known") != "", F.col("kind"))
        .when(F.col("publishes") == 0, "vacuous")
        .when(same, "")
        .otherwise("deliveries")
    )
    return j.select(
        "trace_id", "generator", "trace_index", "impl", "ops", "publishes", "reason",
        verdict.alias("verdict"), kind.alias("kind"), "protocol", "protocol_detail",
    )  # fmt: skip


def detail_failures(
    spark: Any,
    out: Path,
    plan_: Plan,
    failures: list[Failure],
    job: Job,
    shrink: bool,
    corrupt: Callable[[Any], Any] | None,
    say: Callable[[str], None],
) -> None:
    """For the collected failures: the trace again, its SQL-oracle expected file, the full
    verdict (missing/duplicate/spurious pairs) and, unless `shrink` is False, the smallest
    trace that still fails the same way."""
    from pyspark.sql import functions as F

    from pubsub_spec.conformance.generators import GENERATORS
    from pubsub_spec.conformance.runner import run_one, shrink_failures
    from pubsub_spec.conformance.spark_oracle import expected_frame, parquet_frames
    from pubsub_spec.conformance.traceio import trace_to_lines, write_expected, write_trace

    if not failures:
        return
    ids = sorted({f.trace_id for f in failures})
    heads, ops = parquet_frames(spark, out / "parquet")
    heads, ops = heads.where(F.col("tkey").isin(ids)), ops.where(F.col("tkey").isin(ids))
    exp = expected_frame(spark, heads, ops)
    if corrupt is not None:
        exp = corrupt(exp)
    pairs: dict[str, list[Delivery]] = {}
    for r in exp.collect():
        pairs.setdefault(r["trace_id"], []).append(Delivery(r["event_id"], r["sub_id"]))
    folder = out / "failing"
    folder.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    shrunk: set[str] = set()  # the first failure of each implementation is shrunk
    for f in failures:
        trace = GENERATORS[f.generator](plan_.seed, f.trace_index, plan_.profile)
        path = folder / f"{f.trace_id}.ndjson"
        if f.trace_id not in paths:
            write_trace(trace, path)
            write_expected(
                path.with_name(f"{f.trace_id}.expected.ndjson"), trace,
                sorted(pairs.get(f.trace_id, [])),
            )  # fmt: skip
            paths[f.trace_id] = path
        v = run_one(
            f.impl, "\n".join(trace_to_lines(trace)),
            path.with_name(f"{f.trace_id}.expected.ndjson").read_text(encoding="utf-8"),
            str(path), job.op_timeout, job.total_timeout,
        )  # fmt: skip
        f.detail = v.describe()
        if shrink and f.impl != CROSS_CHECK and v.verdict == "fail" and f.impl not in shrunk:
            shrunk.add(f.impl)
            say(f"shrinking {f.trace_id} for {f.impl}")
            (w,) = shrink_failures([v], [path], out, op_timeout=min(job.op_timeout, 2.0))
            f.shrunk = w.extra.get("shrunk", "")

