"""What a Spark task of a run at scale does (`run_partition`): it generates its partition's
traces, writes them as Parquet (`parquet/header`, `parquet/ops`: the tables of
conformance/parquet.py, one file per partition, `trace_id` a column) and runs the
implementations on each trace right there (as the sampling policy says). Per implementation x
trace it writes one result row (`results/`, `RESULT_TABLE`): the deliveries' fingerprint (count
and two sums of CRC-32 of the pairs; the same function Spark SQL computes) or the verdict it
already knows (a crash, a timeout, a skip). Only per-partition counters and peak memory go back
to the driver (`PartStats`)."""

from __future__ import annotations

import resource
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pubsub_spec.conformance.fingerprint import Fingerprint, fingerprint
from pubsub_spec.conformance.scale.planning import Plan
from pubsub_spec.conformance.scale.sampling import is_slow, runs_on
from pubsub_spec.conformance.scale.sink import ParquetSink

NONE: Fingerprint = (0, 0, 0)  # the fingerprint column of a row with a known verdict
RESULTS_DIR = "results"
RESULT_TABLE = (
    ("trace_id", "STRING"),
    ("generator", "STRING"),
    ("trace_index", "BIGINT"),
    ("impl", "STRING"),
    ("ops", "BIGINT"),
    ("publishes", "BIGINT"),
    ("known", "STRING"),  # "" = compare the fingerprint; else the verdict (fail/unknown/skipped)
    ("kind", "STRING"),
    ("reason", "STRING"),
    ("n", "BIGINT"),
    ("h1", "BIGINT"),
    ("h2", "BIGINT"),
    ("seconds", "DOUBLE"),
)
RESULT_DDL = ", ".join(f"{name} {kind}" for name, kind in RESULT_TABLE)


@dataclass(frozen=True)
class Job:
    """What every task needs (pickled to the executors once per task)."""

    plan: Plan
    out: str
    impls: tuple[str, ...]
    slow_fraction: float
    cross_fraction: float
    op_timeout: float = 5.0
    total_timeout: float = 120.0


@dataclass
class PartStats:
    """What one task sends back: counters and the peak RSS of its Python worker."""

    partition: int
    traces: int = 0
    ops: int = 0
    results: int = 0
    seconds: float = 0.0
    worker_peak_mb: float = 0.0
    runs: dict[str, int] = field(default_factory=dict)  # impl -> traces it ran on


def _run_impl(name: str, trace: Any, job: Job) -> tuple[str, str, str, Fingerprint, float]:
    """(known verdict or "", kind, reason, fingerprint of the deliveries, seconds) of one
    implementation on one trace. The fast built-ins run in the task's own process (a fork per
    trace would cost more than they do), through their `fingerprint` where they have one; a
    crash is caught. The slow built-ins run isolated (isolate.py), outside
    programs through the adapter, under the same limits as in `conform` without --ops."""
    from pubsub_spec.conformance.impls import is_outside, outside_command, resolve
    from pubsub_spec.conformance.supervisor import Limits
    from pubsub_spec.reference.sim.system import missing_features

    start = time.monotonic()
    if is_outside(name):
        from pubsub_spec.conformance.adapter import run_outside

        o = run_outside(outside_command(name), trace, job.op_timeout, job.total_timeout)
        secs = time.monotonic() - start
        if o.verdict != "ok":
            return o.verdict, o.kind, o.reason, NONE, secs
        return "", "", "", fingerprint(o.deliveries), secs
    impl = resolve(name)
    if impl is None:
        return "skipped", "unknown-impl", "unknown implementation", NONE, 0.0
    if impl.unavailable:
        return "skipped", "unavailable", impl.unavailable, NONE, 0.0
    lacking = missing_features(trace, impl.features)
    if lacking:
        return "skipped", "feature", lacking, NONE, 0.0
    if not is_slow(name):
        try:
            fp = impl.fingerprint(trace) if impl.fingerprint else fingerprint(impl.run(trace))
        except Exception as e:  # a crash of a built-in is its fail, never the task's
            return "fail", "crash", f"{type(e).__name__}: {e}"[:500], NONE, time.monotonic() - start
        return "", "", "", fp, time.monotonic() - start
    from pubsub_spec.conformance.isolate import run_isolated

    ran = run_isolated(impl.run, trace, Limits(job.op_timeout, total_timeout=job.total_timeout))
    if ran.status != "ok":
        verdict = "fail" if ran.status in ("crash", "killed") else "unknown"
        kind = "crash" if verdict == "fail" else ran.status
        return verdict, kind, ran.reason[:500], NONE, ran.seconds
    return "", "", "", fingerprint(ran.deliveries), ran.seconds


def run_partition(job: Job, partition: int) -> PartStats:
    """One Spark task: generate the partition's traces, write them and the result rows."""
    from pubsub_spec.conformance.generators import GENERATORS
    from pubsub_spec.conformance.parquet import (
        HEADER_DIR,
        HEADER_TABLE,
        OPS_DIR,
        OPS_TABLE,
        rows_from_trace,
    )
    from pubsub_spec.reference.common.ops import Publish

    began = time.monotonic()
    p = job.plan
    start, end = p.partitions[partition]
    name = f"part-{partition:05d}.parquet"
    root = Path(job.out)
    heads = ParquetSink(root / "parquet" / HEADER_DIR / name, HEADER_TABLE)
    ops = ParquetSink(root / "parquet" / OPS_DIR / name, OPS_TABLE)
    results = ParquetSink(root / RESULTS_DIR / name, RESULT_TABLE)
    stats = PartStats(partition)
    for number in range(start, end):
        gen, index = p.task(number)
        trace = GENERATORS[gen](p.seed, index, p.profile)
        tid = trace.trace_id
        header, op_rows = rows_from_trace(trace)
        heads.add([header])
        ops.add(op_rows)
        publishes = sum(1 for op in trace.ops if isinstance(op, Publish))
        stats.traces += 1
        stats.ops += len(trace.ops)
        for impl in job.impls:
            if not runs_on(job, impl, number):
                continue
            known, kind, reason, (n, s1, s2), secs = _run_impl(impl, trace, job)
            results.add(
                [(tid, gen, index, impl, len(trace.ops), publishes, known, kind, reason, n, s1,
                  s2, secs)]
            )  # fmt: skip
            stats.results += 1
            stats.runs[impl] = stats.runs.get(impl, 0) + 1
    for sink in (heads, ops, results):
        sink.close()
    stats.seconds = time.monotonic() - began
    stats.worker_peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return stats


def partition_task(job: Job) -> Callable[[int, Iterator[int]], Iterator[dict[str, Any]]]:
    def body(_: int, rows: Iterator[int]) -> Iterator[dict[str, Any]]:
        for partition in rows:
            yield asdict(run_partition(job, partition))

    return body

