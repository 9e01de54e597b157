"""The streaming run at scale (`run_scale`, the package's docstring): plan, then generate and
run on the executors, then the SQL oracle and the verdicts in Spark, then the details of the
collected failures, each stage with its time and peak memory (`ScaleResult`)."""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pubsub_spec.conformance.scale.executor import RESULTS_DIR, Job, partition_task
from pubsub_spec.conformance.scale.judging import (
    Failure,
    ImplSummary,
    ProtocolDeviation,
    detail_failures,
    judged,
    overall_protocol,
    overall_verdict,
)
from pubsub_spec.conformance.scale.memory import Sampler, Stage, jvm_pid
from pubsub_spec.conformance.scale.planning import MAX_PARTITION_OPS, Plan, plan
from pubsub_spec.conformance.scale.sampling import (
    CROSS_CHECK,
    default_fractions,
    effective,
    is_slow,
)

SHUFFLE_OPS = 250_000  # ops per Spark SQL shuffle partition of the oracle's query
MAX_DETAILS = 5


@dataclass
class ScaleResult:
    plan: Plan
    traces: int
    ops: int
    partitions: int
    impls: list[ImplSummary]
    failures: list[Failure]
    stages: list[Stage]
    suite_failure: str  # "" or why the suite itself failed (the oracles disagree)
    seconds: float = 0.0
    driver_heap: str = "1g"  # spark.driver.memory of the session that ran it
    deviations: list[ProtocolDeviation] = field(default_factory=list)  # the first ones per impl
    run_cpu: float = 0.0  # CPU seconds of the generate+run tasks (workers and their children)

    @property
    def ops_per_minute(self) -> float:
        return self.ops / self.seconds * 60 if self.seconds else 0.0

    @property
    def failed(self) -> bool:
        return bool(self.suite_failure) or any(
            i.verdict in ("fail", "unknown", "incomplete") for i in self.impls
        )


def run_scale(
    spark: Any,
    out: str | Path,
    generators: Sequence[str],
    ops: int,
    seed: int,
    profile: str,
    impls: Sequence[str],
    slow_fraction: float | None = None,
    cross_fraction: float | None = None,
    max_partition_ops: int = MAX_PARTITION_OPS,
    op_timeout: float = 5.0,
    total_timeout: float = 120.0,
    shrink: bool = True,
    features: frozenset[str] | None = None,
    max_details: int = MAX_DETAILS,
    progress: Callable[[str], None] | None = None,
    corrupt_expected: Callable[[Any], Any] | None = None,
    protocol: bool = False,
) -> ScaleResult:
    """The streaming conformance run (module docstring). `impls` may be empty (generate only:
    the trace set and the SQL oracle's deliveries, written as Parquet under `out/expected`).
    `corrupt_expected` (tests only) rewrites the SQL oracle's deliveries, to show that the
    cross-check catches a wrong oracle. `protocol`: the executors also judge the protocol level
    (executor.py), counted per implementation in Spark like the verdicts."""
    from pyspark.sql import functions as F
    from pyspark.sql.window import Window

    from pubsub_spec.conformance.runner import ship_project_code
    from pubsub_spec.conformance.spark_oracle import (
        COPARTITION,
        expected_frame,
        parquet_frames,
        session_settings,
    )

    say = progress or (lambda _m: None)
    began = time.monotonic()
    root = Path(out)
    for sub in ("parquet", RESULTS_DIR, "expected", "failing", "shrunk"):
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(root / sub)
    root.mkdir(parents=True, exist_ok=True)
    dflt_slow, dflt_cross = default_fractions(ops, sum(map(is_slow, impls)))
    slow = effective(dflt_slow if slow_fraction is None else slow_fraction)
    cross = effective(dflt_cross if cross_fraction is None else cross_fraction)
    pl = plan(ops, generators, profile, seed, max_partition_ops)
    job = Job(pl, str(root), tuple(impls), slow, cross, op_timeout, total_timeout, protocol)
    pid = jvm_pid(spark)
    sc = spark.sparkContext
    app = None if sc.master.startswith("local") else sc.applicationId  # executors' own JVMs
    stages: list[Stage] = []
    ship_project_code(spark)
    say(f"{pl.traces} traces (~{pl.estimated_ops} ops) in {len(pl.partitions)} partitions")

    # stage 1: generate, write, run (executors)
    t = time.monotonic()
    with Sampler(pid, app) as m:
        n = len(pl.partitions)
        task = partition_task(job)
        rdd = spark.sparkContext.parallelize(range(n), n).mapPartitionsWithIndex(task)
        parts = rdd.map(
            lambda d: (d["traces"], d["ops"], d["worker_peak_mb"], d["runs"], d["cpu"])
        )
        # reduce, not collect: one small tuple reaches the driver whatever the partition count
        traces, total_ops, worker_mb, runs, run_cpu = parts.reduce(
            lambda a, b: (a[0] + b[0], a[1] + b[1], max(a[2], b[2]),
                          {k: a[3].get(k, 0) + b[3].get(k, 0) for k in a[3].keys() | b[3]},
                          a[4] + b[4])
        )  # fmt: skip
    stages.append(m.stage("generate+run", time.monotonic() - t, worker_mb))
    say(f"generated {traces} traces ({total_ops} ops) and ran {sum(runs.values())} runs")

    # stage 2: the SQL oracle (a DataFrame, never collected) and the verdicts (counted in Spark)
    t = time.monotonic()
    # the stage's shuffle partitions, and the oracle's joins reusing its partitioning by trace;
    # both put back after the stage's actions
    settings = {"spark.sql.shuffle.partitions": str(max(4, total_ops // SHUFFLE_OPS)),
                **COPARTITION}  # fmt: skip
    heads, op_frame = parquet_frames(spark, root / "parquet")
    expected = expected_frame(spark, heads, op_frame)
    if corrupt_expected is not None:
        expected = corrupt_expected(expected)
    summaries: dict[str, ImplSummary] = {}
    failures: list[Failure] = []
    deviations: list[ProtocolDeviation] = []
    with Sampler(pid, app) as m, session_settings(spark, settings):
        if not impls:
            expected.write.mode("overwrite").parquet(str(root / "expected"))
        else:
            v = judged(spark, root, expected).cache()
            try:
                counts = (
                    v.groupBy("impl", "verdict", "kind")
                    .agg(F.count(F.lit(1)).alias("traces"), F.sum("ops").alias("ops"),
                         F.sum(F.when(F.col("verdict") != "skipped", F.col("publishes"))
                               .otherwise(0)).alias("checked"))
                    .collect()
                )  # fmt: skip
                skips = (
                    v.where("verdict = 'skipped'").select("impl", "reason").distinct()
                    .limit(1000).collect()
                )  # fmt: skip
                w = Window.partitionBy("impl").orderBy("trace_id")
                bad = (
                    v.where(F.col("verdict").isin("fail", "unknown"))
                    .withColumn("rank", F.row_number().over(w))
                    .where(F.col("rank") <= max_details)
                    .collect()
                )
                level = (
                    F.when(F.col("protocol").startswith("deviates"), "deviates")
                    .otherwise(F.col("protocol"))
                )
                levels = (
                    v.where((F.col("verdict") != "skipped") & (F.col("protocol") != ""))
                    .groupBy("impl", level.alias("level")).count().collect()
                ) if protocol else []  # fmt: skip
                deviating = (
                    v.where(F.col("protocol").startswith("deviates"))
                    .withColumn("rank", F.row_number().over(w))
                    .where(F.col("rank") <= max_details)
                    .collect()
                ) if protocol else []  # fmt: skip
            finally:
                v.unpersist()
            for name in impls:
                role = "cross-check" if name == CROSS_CHECK else "slow" if is_slow(name) else "fast"
                frac = cross if role == "cross-check" else slow if role == "slow" else 1.0
                summaries[name] = ImplSummary(name, role, frac)
            for r in counts:
                s = summaries[r["impl"]]
                k = int(r["traces"])
                s.traces += k
                s.ops += int(r["ops"] or 0)
                s.checked += int(r["checked"] or 0)
                if r["verdict"] == "pass":
                    s.passed += k
                elif r["verdict"] == "fail":
                    s.failed += k
                elif r["verdict"] == "unknown":
                    s.unknown += k
                else:
                    s.skipped += k
            for r in skips:
                summaries[r["impl"]].skip_reasons.append(r["reason"])
            for r in levels:
                s = summaries[r["impl"]]
                k = int(r["count"])
                if r["level"] == "conforms":
                    s.conforms += k
                elif r["level"] == "deviates":
                    s.deviates += k
                else:
                    s.not_reported += k
            deviations = [
                ProtocolDeviation(r["impl"], r["trace_id"], r["generator"], r["protocol"],
                                  r["protocol_detail"] or "")
                for r in sorted(deviating, key=lambda r: (r["impl"], r["trace_id"]))
            ]  # fmt: skip
            for s in summaries.values():
                s.verdict = overall_verdict(s, features)
                first = next((d for d in deviations if d.impl == s.impl), None)
                s.protocol = overall_protocol(s, first)
            failures = [
                Failure(r["impl"], r["trace_id"], r["generator"], int(r["trace_index"]),
                        r["verdict"], r["kind"], r["reason"] or "")
                for r in sorted(bad, key=lambda r: (r["impl"], r["trace_id"]))
            ]  # fmt: skip
    stages.append(m.stage("oracle+verdicts", time.monotonic() - t))
    cross_sum = summaries.get(CROSS_CHECK)
    suite_failure = ""
    if cross_sum is not None and (cross_sum.failed or cross_sum.unknown):
        suite_failure = (
            f"the Spark SQL oracle and the Python oracle disagree on "
            f"{cross_sum.failed + cross_sum.unknown} of the {cross_sum.traces} traces "
            f"cross-checked: the expected deliveries cannot be trusted"
        )
    say(f"{len(failures)} failures to detail")

    # stage 3: details and shrinking of the collected failures (driver, small)
    t = time.monotonic()
    with Sampler(pid, app) as m:
        detail_failures(spark, root, pl, failures, job, shrink, corrupt_expected, say)
    stages.append(m.stage("details+shrink", time.monotonic() - t))
    return ScaleResult(
        pl, traces, total_ops, len(pl.partitions), list(summaries.values()), failures, stages,
        suite_failure, time.monotonic() - began,
        spark.sparkContext.getConf().get("spark.driver.memory", "1g"), deviations, run_cpu,
    )  # fmt: skip

