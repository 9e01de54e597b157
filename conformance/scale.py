"""Conformance at Spark scale (issue 15; docs/conformance.md, "At scale"): a trace set sized by
its number of ops, streamed end to end so that the driver's memory does not grow with it.

1. Plan (driver, small): `plan` turns a target number of ops into trace numbers 0..N-1 (trace
   number k is generator `gens[k % len(gens)]`, index `k // len(gens)`, drawn round-robin) and
   cuts them into partitions of at most `max_partition_ops` estimated ops (the estimate of a
   generator is the length of its trace 0, generated on the driver).
2. Generate and run (executors, `run_partition`): each Spark task generates its traces, writes
   them as Parquet (`parquet/header`, `parquet/ops`: the tables of conformance/parquet.py, one
   file per partition, `trace_id` a column) and runs the implementations on each trace right
   there. Per implementation x trace it writes one result row (`results/`): the deliveries'
   *fingerprint* (count and two sums of CRC-32 of the pairs; the same function Spark SQL
   computes) or the verdict it already knows (a crash, a timeout, a skip). Only per-partition
   counters and peak memory come back to the driver.
3. Judge (Spark SQL): the Spark SQL oracle (spark_oracle.py) reads the Parquet tables; its
   deliveries are reduced to one fingerprint per trace, joined with the result rows, and the
   verdicts are counted in Spark. The driver collects the counts per implementation, and the
   failing (implementation, trace) pairs up to `max_details` per implementation.
4. Details (driver, small): each collected failure's trace is generated again, its expected
   deliveries are computed by the SQL oracle for that trace alone, the implementation runs on it
   (runner.run_one, giving the missing/duplicate/spurious pairs) and it is shrunk.

Sampling (the report says which ran where): the fast built-ins (`FAST`) run on every trace;
the slow ones (the reference simulators, outside programs) on a deterministic, systematic
sample of `slow_fraction` of the traces (`in_sample`: every s-th trace of each generator, s =
1/fraction rounded, from an offset drawn from the seed and the implementation's name, spread
over the generators); `oracle-python` is the cross-check of the SQL oracle: it runs on a sample
of `cross_fraction`, and any trace where it does not pass is a failure of the suite itself (the
two oracles disagree), not of an implementation.

A fingerprint collision would hide a wrong delivery set; with a count and two independent
32-bit sums, a fault that is not built to collide is missed with probability about 2^-64.
The executors write their files straight to `out` (tmp file + rename, so a retried task
overwrites its own output): `out` must be a folder every executor shares with the driver (on
one machine, local mode and the loopback cluster of cluster.py, it always is).
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import random
import resource
import shutil
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pubsub_spec.conformance.fingerprint import Fingerprint, fingerprint
from pubsub_spec.reference.common.oracle import Delivery

# The fast built-ins run on every trace (0.05-0.2 ms per op); the cross-check oracle on a
# sample; everything else (the simulators: ~1.3 ms per op; outside programs) is "slow".
FAST: tuple[str, ...] = ("oracle-indexed", "reference-array")
CROSS_CHECK = "oracle-python"
MAX_PARTITION_OPS = 50_000
MIN_PARTITIONS = 8
SHUFFLE_OPS = 250_000  # ops per Spark SQL shuffle partition of the oracle's query
# Sampling policy: the slow implementations share SLOW_OPS_BUDGET ops (each runs on
# SLOW_OPS_BUDGET / (ops x number of slow ones) of the traces, all of them at CI sizes) and the
# cross-check runs on CROSS_OPS_BUDGET / ops, so their cost stays about constant as the set
# grows and as implementations are added.
SLOW_OPS_BUDGET = 100_000
CROSS_OPS_BUDGET = 1_000_000
MAX_DETAILS = 5
# The driver JVM of `conform --ops`/`generate --ops` (docs/conformance.md, "Driver memory"): a
# 512m heap (spark.driver.memory; Spark's default is 1g), since only counts and a few failures
# reach the driver, with the throughput collector: in local mode that JVM runs the SQL oracle,
# which at 10^7 ops took 123 s with 1g and G1 (1.44 GB resident), 163 s with 512m and G1, and
# 110 s with 512m and the parallel collector (0.93 GB resident).
SCALE_DRIVER_MEMORY = "512m"
SCALE_JAVA_OPTIONS = "-XX:+UseParallelGC"
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


def default_fractions(ops: int, slow_impls: int = 1) -> tuple[float, float]:
    """(slow fraction, cross-check fraction) of the sampling policy for a set of `ops` ops run
    by `slow_impls` slow implementations (they share one budget)."""
    share = SLOW_OPS_BUDGET / (ops * max(1, slow_impls))
    return min(1.0, share), min(1.0, CROSS_OPS_BUDGET / ops)


def stride(fraction: float) -> int:
    """The sample of `fraction` takes every `stride`-th round: 1/fraction, rounded."""
    return 1 if fraction >= 1.0 else max(1, round(1 / fraction))


def effective(fraction: float) -> float:
    """The share of the rounds a sample of `fraction` really takes (1/stride)."""
    return 1 / stride(fraction)


@functools.cache
def sample_offset(seed: int, width: int, what: str) -> int:
    """The sample's first round, drawn from the seed below `width` = min(stride, rounds), so
    that a set of at least one full round always has a round in the sample."""
    return random.Random(f"{seed}:{what}").randrange(width)


def in_sample(
    seed: int,
    index: int,
    rounds: int,
    fraction: float,
    what: str = "sample",
    lane: int = 0,
    lanes: int = 1,
) -> bool:
    """Whether trace `index` of generator number `lane` (of `lanes`) is in the deterministic
    sample `what` of `fraction` (1.0: every trace) of a set of `rounds` full rounds.
    Systematic: the indices o, o + stride, o + 2 stride, ... of every generator, so every
    generator is in the sample in the same share (within one trace), and the share of traces
    an implementation skips for lack of a feature is that of the whole set, not a chance of
    the draw (the feature policy judges it; verdict.py). The generators' offsets o are spread
    over the stride, so that the sampled traces, consecutive trace numbers if they shared a
    round, do not all fall in one Spark partition."""
    if fraction >= 1.0:
        return True
    step = stride(fraction)
    width = min(step, max(1, rounds))
    o = (sample_offset(seed, width, what) + lane * max(1, width // lanes)) % width
    return index % step == o


def is_slow(impl: str) -> bool:
    return impl not in FAST and impl != CROSS_CHECK


# --- fingerprints ------------------------------------------------------------------------------


def expected_fingerprints(expected: Any) -> Any:
    """The SQL oracle's deliveries (trace_id, event_id, sub_id) as one fingerprint per trace."""
    from pyspark.sql import functions as F

    h1 = F.crc32(F.concat("event_id", F.lit("\t"), "sub_id"))
    h2 = F.crc32(F.concat("sub_id", F.lit("\n"), "event_id", F.lit("#")))
    return expected.groupBy("trace_id").agg(
        F.count(F.lit(1)).alias("en"), F.sum(h1).alias("eh1"), F.sum(h2).alias("eh2")
    )


# --- the plan ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    generators: tuple[str, ...]
    profile: str
    seed: int
    target_ops: int
    estimate: dict[str, int]  # ops of each generator's trace 0
    traces: int
    estimated_ops: int
    partitions: tuple[tuple[int, int], ...]  # [start, end) trace numbers

    @property
    def rounds(self) -> int:
        """The full rounds (one trace of every generator each); at least 1."""
        return max(1, self.traces // len(self.generators))

    def task(self, number: int) -> tuple[str, int]:
        """(generator, index) of trace number `number`."""
        return self.generators[number % len(self.generators)], number // len(self.generators)


def plan(
    ops: int,
    generators: Sequence[str],
    profile: str,
    seed: int,
    max_partition_ops: int = MAX_PARTITION_OPS,
    min_partitions: int = MIN_PARTITIONS,
) -> Plan:
    """The traces (round-robin over the generators) whose estimated ops first reach `ops`,
    in partitions of at most `max_partition_ops` estimated ops (one trace at least), and
    smaller when that leaves fewer than `min_partitions` (so that every core has work)."""
    from pubsub_spec.conformance.generators import GENERATORS, PROFILES

    gens = tuple(generators)
    if not gens or any(g not in GENERATORS for g in gens) or profile not in PROFILES:
        raise ValueError(f"unknown generator(s) in {gens} or profile {profile!r}")
    if ops < 1 or max_partition_ops < 1:
        raise ValueError("ops and max_partition_ops must be >= 1")
    est = {g: max(1, len(GENERATORS[g](seed, 0, profile).ops)) for g in gens}
    per_round = sum(est[g] for g in gens)
    rounds = (ops - 1) // per_round
    traces, total = rounds * len(gens), rounds * per_round
    while total < ops:
        total += est[gens[traces % len(gens)]]
        traces += 1
    bound = min(max_partition_ops, max(1, math.ceil(total / max(1, min_partitions))))
    parts: list[tuple[int, int]] = []
    start, acc = 0, 0
    for k in range(traces):
        e = est[gens[k % len(gens)]]
        if k > start and acc + e > bound:
            parts.append((start, k))
            start, acc = k, 0
        acc += e
    parts.append((start, traces))
    return Plan(gens, profile, seed, ops, est, traces, total, tuple(parts))


# --- the executors -----------------------------------------------------------------------------


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


def _arrow(table: tuple[tuple[str, str], ...]) -> Any:
    import pyarrow as pa

    types = {
        "STRING": pa.string(),
        "INT": pa.int32(),
        "BIGINT": pa.int64(),
        "DOUBLE": pa.float64(),
        "ARRAY<STRING>": pa.list_(pa.string()),
    }
    return pa.schema([(name, types[kind]) for name, kind in table])


class _Sink:
    """Rows to one Parquet file, flushed every `batch` rows (bounded memory), published by
    rename when closed."""

    def __init__(self, path: Path, table: tuple[tuple[str, str], ...], batch: int = 20_000):
        import pyarrow.parquet as pq

        path.parent.mkdir(parents=True, exist_ok=True)
        self.path, self.tmp = path, path.with_name(f".{path.name}.{os.getpid()}.tmp")
        self.schema = _arrow(table)
        self.writer = pq.ParquetWriter(str(self.tmp), self.schema)
        self.rows: list[tuple[Any, ...]] = []
        self.batch = batch

    def add(self, rows: Iterable[tuple[Any, ...]]) -> None:
        self.rows.extend(rows)
        if len(self.rows) >= self.batch:
            self.flush()

    def flush(self) -> None:
        import pyarrow as pa

        if not self.rows:
            return
        cols = list(zip(*self.rows, strict=True))
        arrays = [pa.array(list(c), type=f.type) for c, f in zip(cols, self.schema, strict=True)]
        self.writer.write_table(pa.table(arrays, schema=self.schema))
        self.rows = []

    def close(self) -> None:
        self.flush()
        self.writer.close()
        os.replace(self.tmp, self.path)


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


def runs_on(job: Job, impl: str, number: int) -> bool:
    """The sampling policy for one implementation and trace number `number`. Each slow
    implementation has a sample of its own (its offset drawn from the seed and its name), so
    that their work spreads over more traces and partitions."""
    p = job.plan
    lanes = len(p.generators)
    lane, index = number % lanes, number // lanes
    if impl == CROSS_CHECK:
        return in_sample(p.seed, index, p.rounds, job.cross_fraction, "cross-check", lane, lanes)
    if is_slow(impl):
        return in_sample(p.seed, index, p.rounds, job.slow_fraction, f"sample:{impl}", lane, lanes)
    return True


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
    heads = _Sink(root / "parquet" / HEADER_DIR / name, HEADER_TABLE)
    ops = _Sink(root / "parquet" / OPS_DIR / name, OPS_TABLE)
    results = _Sink(root / RESULTS_DIR / name, RESULT_TABLE)
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


def _task(job: Job) -> Callable[[int, Iterator[int]], Iterator[dict[str, Any]]]:
    def body(_: int, rows: Iterator[int]) -> Iterator[dict[str, Any]]:
        for partition in rows:
            yield asdict(run_partition(job, partition))

    return body


# --- memory ------------------------------------------------------------------------------------


def _rss_mb(pid: int | str = "self") -> float:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def executor_pids(app_id: str) -> list[int]:
    """The executor JVMs of application `app_id` running on this machine (a loopback or
    single-host cluster; on a real cluster they are elsewhere and this is empty)."""
    found: list[int] = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if b"CoarseGrainedExecutorBackend" in cmd and app_id.encode() in cmd:
            found.append(int(entry.name))
    return found


class Sampler:
    """Peak RSS of the driver's Python process, of its JVM (when pyspark started one here) and
    of the largest executor JVM of application `app_id` on this machine, while a stage runs,
    sampled every `every` seconds in a thread (the executors are looked up every 5 samples)."""

    def __init__(self, jvm_pid: int | None, app_id: str | None = None, every: float = 0.2):
        self.jvm_pid, self.app_id, self.every = jvm_pid, app_id, every
        self.python = self.jvm = self.executor = 0.0
        self._executors: list[int] = []
        self._samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _sample(self) -> None:
        self.python = max(self.python, _rss_mb())
        if self.jvm_pid is not None:
            self.jvm = max(self.jvm, _rss_mb(self.jvm_pid))
        if self.app_id is not None:
            if self._samples % 5 == 0:
                self._executors = executor_pids(self.app_id)
            self.executor = max([self.executor, *map(_rss_mb, self._executors)])
        self._samples += 1

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            self._sample()

    def __enter__(self) -> Sampler:
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

    def stage(self, name: str, seconds: float, worker_mb: float = 0.0) -> Stage:
        """The stage's record; with no executor JVM of its own (local mode), the executors
        ran in the driver's JVM."""
        return Stage(name, seconds, self.python, self.jvm, worker_mb, self.executor or self.jvm)


def jvm_pid(spark: Any) -> int | None:
    """The pid of the JVM pyspark launched for this driver (None if it attached to one)."""
    proc = getattr(getattr(spark.sparkContext, "_gateway", None), "proc", None)
    pid = getattr(proc, "pid", None)
    return pid if isinstance(pid, int) else None


@dataclass
class Stage:
    name: str
    seconds: float
    driver_peak_mb: float  # the driver's Python process
    driver_jvm_peak_mb: float  # its JVM (in local mode also the executors' JVM); 0 if unknown
    worker_peak_mb: float = 0.0  # the largest Python worker (executor side)
    executor_jvm_peak_mb: float = 0.0  # the largest executor JVM (local mode: the driver's)


# --- the run -----------------------------------------------------------------------------------


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

    @property
    def ops_per_minute(self) -> float:
        return self.ops / self.seconds * 60 if self.seconds else 0.0

    @property
    def failed(self) -> bool:
        return bool(self.suite_failure) or any(
            i.verdict in ("fail", "unknown", "incomplete") for i in self.impls
        )


def _overall(s: ImplSummary, subset: frozenset[str] | None) -> str:
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
        verdict.alias("verdict"), kind.alias("kind"),
    )  # fmt: skip


def _details(
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
) -> ScaleResult:
    """The streaming conformance run (module docstring). `impls` may be empty (generate only:
    the trace set and the SQL oracle's deliveries, written as Parquet under `out/expected`).
    `corrupt_expected` (tests only) rewrites the SQL oracle's deliveries, to show that the
    cross-check catches a wrong oracle."""
    from pyspark.sql import functions as F
    from pyspark.sql.window import Window

    from pubsub_spec.conformance.runner import ship_project_code
    from pubsub_spec.conformance.spark_oracle import expected_frame, parquet_frames

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
    job = Job(pl, str(root), tuple(impls), slow, cross, op_timeout, total_timeout)
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
        rdd = spark.sparkContext.parallelize(range(n), n).mapPartitionsWithIndex(_task(job))
        parts = rdd.map(lambda d: (d["traces"], d["ops"], d["worker_peak_mb"], d["runs"]))
        # reduce, not collect: one small tuple reaches the driver whatever the partition count
        traces, total_ops, worker_mb, runs = parts.reduce(
            lambda a, b: (a[0] + b[0], a[1] + b[1], max(a[2], b[2]),
                          {k: a[3].get(k, 0) + b[3].get(k, 0) for k in a[3].keys() | b[3]})
        )  # fmt: skip
    stages.append(m.stage("generate+run", time.monotonic() - t, worker_mb))
    say(f"generated {traces} traces ({total_ops} ops) and ran {sum(runs.values())} runs")

    # stage 2: the SQL oracle (a DataFrame, never collected) and the verdicts (counted in Spark)
    t = time.monotonic()
    shuffle = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", str(max(4, total_ops // SHUFFLE_OPS)))
    heads, op_frame = parquet_frames(spark, root / "parquet")
    expected = expected_frame(spark, heads, op_frame)
    if corrupt_expected is not None:
        expected = corrupt_expected(expected)
    summaries: dict[str, ImplSummary] = {}
    failures: list[Failure] = []
    with Sampler(pid, app) as m:
        if not impls:
            try:
                expected.write.mode("overwrite").parquet(str(root / "expected"))
            finally:
                spark.conf.set("spark.sql.shuffle.partitions", shuffle)
        else:
            v = judged(spark, root, expected).cache()
            try:  # restores the shuffle partitions in any case
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
            finally:
                v.unpersist()
                spark.conf.set("spark.sql.shuffle.partitions", shuffle)
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
            for s in summaries.values():
                s.verdict = _overall(s, features)
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
        _details(spark, root, pl, failures, job, shrink, corrupt_expected, say)
    stages.append(m.stage("details+shrink", time.monotonic() - t))
    return ScaleResult(
        pl, traces, total_ops, len(pl.partitions), list(summaries.values()), failures, stages,
        suite_failure, time.monotonic() - began,
        spark.sparkContext.getConf().get("spark.driver.memory", "1g"),
    )  # fmt: skip


# --- reporting ---------------------------------------------------------------------------------


def result_json(r: ScaleResult) -> dict[str, Any]:
    p = asdict(r.plan)
    p.pop("partitions")
    return {
        "plan": {**p, "partitions": r.partitions},
        "traces": r.traces,
        "ops": r.ops,
        "seconds": round(r.seconds, 3),
        "ops_per_minute": round(r.ops_per_minute),
        "suite_failure": r.suite_failure,
        "driver_heap": r.driver_heap,
        "implementations": [asdict(i) for i in r.impls],
        "failures": [asdict(f) for f in r.failures],
        "stages": [asdict(s) for s in r.stages],
    }


def write_scale_report(out: Path, r: ScaleResult, master: str) -> Path:
    """`out/report.md` and `out/report.json` of a run sized by ops."""
    lines = [
        "# Conformance report (at scale)",
        "",
        f"{r.traces} traces, {r.ops} ops ({', '.join(r.plan.generators)}), profile "
        f"{r.plan.profile}, seed {r.plan.seed}, {r.partitions} partitions, Spark master "
        f"{master}; {r.seconds:.1f} s, {r.ops_per_minute:,.0f} ops/min.",
        "",
        "Expected deliveries: the Spark SQL oracle (compared by fingerprint, docs/conformance.md"
        ' "At scale"). `oracle-python` is its cross-check: a trace where they disagree is a '
        "failure of the suite itself.",
        "",
    ]
    if r.suite_failure:
        lines += [f"**SUITE FAILURE**: {r.suite_failure}.", ""]
    lines += [
        "| implementation | verdict | runs on | traces | pass | fail | unknown | skipped |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for i in r.impls:
        share = "every trace" if i.fraction >= 1.0 else f"a sample of {i.fraction:.4g}"
        lines.append(
            f"| {i.impl} | {i.verdict} | {share} ({i.role}) | {i.traces} | {i.passed} | "
            f"{i.failed} | {i.unknown} | {i.skipped} |"
        )
    lines += ["", "## Failures", ""]
    for f in r.failures:
        lines.append(f"- {f.impl} on {f.trace_id}: {f.detail or f.verdict + ': ' + f.reason}")
        if f.shrunk:
            lines.append(f"  - smallest failing trace: {f.shrunk}")
    if not r.failures:
        lines.append("None.")
    lines += ["", "## Stages", "", f"Driver JVM heap (spark.driver.memory): {r.driver_heap}; "
              "memory below is resident (RSS) peaks.", "",
              "| stage | seconds | driver MB | driver JVM MB | executor JVM MB | worker MB |",
              "|---|---|---|---|---|---|"]  # fmt: skip
    for s in r.stages:
        lines.append(
            f"| {s.name} | {s.seconds:.1f} | {s.driver_peak_mb:.0f} | "
            f"{s.driver_jvm_peak_mb:.0f} | {s.executor_jvm_peak_mb:.0f} | {s.worker_peak_mb:.0f} |"
        )
    md = out / "report.md"
    md.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "report.json").write_text(json.dumps(result_json(r), indent=1) + "\n", "utf-8")
    return md


def fraction(text: str) -> float:
    """argparse type of --sample-slow / --cross-check: a number in (0, 1]."""
    import argparse

    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (0.0 < x <= 1.0) or math.isnan(x):
        raise argparse.ArgumentTypeError(f"must be in (0, 1]: {text}")
    return x


def scale_session(args: Any) -> tuple[str | None, str | None]:
    """(driver_memory, java_options) of get_spark for a command's arguments: with --ops, a 512m
    driver heap unless --driver-memory says otherwise, and the parallel collector; without,
    Spark's defaults (or --driver-memory)."""
    ops = getattr(args, "ops", None)
    memory = getattr(args, "driver_memory", None)
    return memory or (SCALE_DRIVER_MEMORY if ops else None), SCALE_JAVA_OPTIONS if ops else None
