"""What a Spark task of a run at scale does (`run_partition`): it generates its partition's
traces, writes them as Parquet (`parquet/header`, `parquet/ops`: the tables of
conformance/parquet.py, one file per partition, `trace_id` a column) and runs the
implementations on each trace right there (as the sampling policy says). Per implementation x
trace it writes one result row (`results/`, `RESULT_TABLE`): the deliveries' fingerprint (count
and two sums of CRC-32 of the pairs; the same function Spark SQL computes) or the verdict it
already knows (a crash, a timeout, a skip). Only per-partition counters and peak memory go back
to the driver (`PartStats`).

With `Job.protocol` (`conform --ops N --level protocol`), each row also carries the protocol level
(conformance/OBSERVATIONS.md), judged here beside the implementation: an outside program's
observations from the same run; a built-in claiming a system is run once, observed, in its
isolated child, which judges it there against the claim's reference run of the same trace (the
same run when it is the reference) and sends back the deliveries and the verdict. Nothing but
the row's two strings leaves the executor, so the driver's memory stays as flat as without."""

from __future__ import annotations

import json
import resource
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, astuple, dataclass, field
from pathlib import Path
from typing import Any

from pubsub_spec.conformance.fingerprint import Fingerprint, fingerprint
from pubsub_spec.conformance.protocol_rules.base import Cost
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
    ("protocol", "STRING"),  # "" (not judged), conforms, deviates (rule), not reported
    ("protocol_detail", "STRING"),
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
    total_timeout: float = 120.0  # outside programs only (built-ins: `_run_impl`)
    protocol: bool = False  # judge the protocol level too (module doc)


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
    cpu: float = 0.0  # CPU seconds of the task: its worker and the children it reaped


Run = tuple[str, str, str, Fingerprint, float]
PROTOCOL_SENTINEL = ""  # the event id of the pair carrying the protocol verdict out of the child
DETAIL_CHARS = 2000  # a protocol detail is cut to this length in its row


COST_TAG = "cost "  # a sentinel pair carrying the reference's cost (`_observed`)


def _observed(name: str, shared: Cost | None) -> Callable[[Any], list[Any]]:
    """The isolated child's work for a built-in claiming a system: its observed run (its
    deliveries are the run's: observing changes nothing), judged; the verdict rides back as one
    extra pair whose event id is empty (no trace event has an empty id), and the cost of the
    claim's reference run on the trace as another (`COST_TAG`), so that the next variant of the
    same claim on this trace is judged against it instead of running the reference again
    (`shared`: the cost an earlier child sent; the cost envelope is all a rule reads of a
    reference, conformance/observed.py `summary`)."""

    def run(trace: Any) -> list[Any]:
        from pubsub_spec.conformance.observed import (
            REFERENCE,
            claim_of,
            judge_run,
            observed_run,
            reference_run,
            summary,
        )
        from pubsub_spec.conformance.protocol_rules.generic import cost
        from pubsub_spec.reference.common.oracle import Delivery

        got = observed_run(name, trace)
        claim = claim_of(name)
        carried: list[Any] = []
        try:
            is_reference = claim is not None and REFERENCE[claim] == name
            ref = None
            if claim is not None and not is_reference:
                ref = summary(claim, trace, shared) if shared else reference_run(claim, trace)
            pv = judge_run(got, is_reference=is_reference, reference=ref)
            verdict = (pv.label(), pv.describe())
            totals = cost(got if is_reference or ref is None else ref)
            carried.append(Delivery(PROTOCOL_SENTINEL, COST_TAG + json.dumps(astuple(totals))))
        except Exception as e:  # a rule that breaks: said, never the delivery level's fault
            verdict = ("not reported", f"not reported: the protocol check failed: {e!r}")
        return [*got.deliveries, *carried, Delivery(PROTOCOL_SENTINEL, "\n".join(verdict))]

    return run


Level = tuple[str, str]  # (protocol label, detail); ("", "") when not judged
UNJUDGED: Level = ("", "")


def _run_impl(
    name: str,
    trace: Any,
    job: Job,
    shared: dict[str, Cost] | None = None,
    need: frozenset[str] | None = None,
) -> tuple[Run, Level]:
    """(known verdict or "", kind, reason, fingerprint of the deliveries, seconds) of one
    implementation on one trace, and its protocol level when `job.protocol` (`shared`: the
    reference costs known on this trace by claimed system, read and filled; `need`: the trace's
    features, found once per trace). The fast built-ins
    run in the task's own process (a fork per trace would cost more than they do), through their
    `fingerprint` where they have one; a crash is caught. The slow built-ins run isolated
    (isolate.py) under the same limits as in `conform` without --ops except the total timeout
    (a generated trace's ops bound their work: no wall-clock bound, so no verdict depends on
    the machine's speed); outside programs run through the adapter under all of them."""
    from pubsub_spec.conformance.impls import is_outside, outside_command, resolve
    from pubsub_spec.conformance.supervisor import Limits
    from pubsub_spec.reference.sim.system import missing_features

    start = time.monotonic()
    unjudged = ("not reported", "not reported: no claim") if job.protocol else UNJUDGED
    if is_outside(name):
        from pubsub_spec.conformance.adapter import run_outside

        o = run_outside(outside_command(name), trace, job.op_timeout, job.total_timeout)
        secs = time.monotonic() - start
        if o.verdict != "ok":
            return (o.verdict, o.kind, o.reason, NONE, secs), _not_run(job, o.verdict)
        level = _outside_level(o, trace) if job.protocol else UNJUDGED
        return ("", "", "", fingerprint(o.deliveries), secs), level
    impl = resolve(name)
    if impl is None:
        return ("skipped", "unknown-impl", "unknown implementation", NONE, 0.0), unjudged
    if impl.unavailable:
        return ("skipped", "unavailable", impl.unavailable, NONE, 0.0), unjudged
    lacking = missing_features(trace, impl.features, need)
    if lacking:
        return ("skipped", "feature", lacking, NONE, 0.0), _not_run(job, "skipped")
    if not is_slow(name):
        try:
            fp = impl.fingerprint(trace) if impl.fingerprint else fingerprint(impl.run(trace))
        except Exception as e:  # a crash of a built-in is its fail, never the task's
            secs = time.monotonic() - start
            return ("fail", "crash", f"{type(e).__name__}: {e}"[:500], NONE, secs), unjudged
        return ("", "", "", fp, time.monotonic() - start), unjudged
    from pubsub_spec.conformance.isolate import run_isolated
    from pubsub_spec.conformance.observed import claim_of

    claim = claim_of(name) if job.protocol else None
    shared = {} if shared is None else shared
    limits = Limits(job.op_timeout, total_timeout=job.total_timeout)
    work = _observed(name, shared.get(claim)) if claim is not None else impl.run
    # no wall-clock bound: the generated trace's ops bound a built-in's run, and a verdict
    # must not depend on the machine's load (docs/conformance.md, "At scale")
    ran = run_isolated(work, trace, limits, wall_bound=False)
    if ran.status != "ok":
        verdict = "fail" if ran.status in ("crash", "killed") else "unknown"
        kind = "crash" if verdict == "fail" else ran.status
        return (verdict, kind, ran.reason[:500], NONE, ran.seconds), _not_run(job, verdict)
    if claim is None:
        return ("", "", "", fingerprint(ran.deliveries), ran.seconds), unjudged
    pairs = [d for d in ran.deliveries if d.event_id != PROTOCOL_SENTINEL]
    carried = [d.sub_id for d in ran.deliveries if d.event_id == PROTOCOL_SENTINEL]
    for text in carried:
        if text.startswith(COST_TAG):
            shared[claim] = Cost(*json.loads(text.removeprefix(COST_TAG)))
    carried = [t for t in carried if not t.startswith(COST_TAG)]
    label, _, detail = (carried[-1] if carried else "not reported\nnot reported").partition("\n")
    return ("", "", "", fingerprint(pairs), ran.seconds), (label, detail[:DETAIL_CHARS])


def _not_run(job: Job, verdict: str) -> Level:
    return ("not reported", f"not reported: {verdict}") if job.protocol else UNJUDGED


def _outside_level(outcome: Any, trace: Any) -> tuple[str, str]:
    from pubsub_spec.conformance.observed import judge_outcome

    try:
        pv = judge_outcome(outcome, trace)
    except Exception as e:  # the reference's run or a rule broke: not the program's fault
        return "not reported", f"not reported: the protocol check failed: {e!r}"
    return pv.label(), pv.describe()[:DETAIL_CHARS]


def run_partition(job: Job, partition: int) -> PartStats:
    """One Spark task: generate the partition's traces, write them and the result rows."""
    from pubsub_spec.conformance.generators import GENERATORS
    from pubsub_spec.conformance.observed import few_collections
    from pubsub_spec.conformance.parquet import (
        HEADER_DIR,
        HEADER_TABLE,
        OPS_DIR,
        OPS_TABLE,
        rows_from_trace,
    )
    from pubsub_spec.reference.common.ops import Publish
    from pubsub_spec.reference.sim.system import needed_features

    began, cpu = time.monotonic(), _cpu()
    p = job.plan
    start, end = p.partitions[partition]
    name = f"part-{partition:05d}.parquet"
    root = Path(job.out)
    heads = ParquetSink(root / "parquet" / HEADER_DIR / name, HEADER_TABLE)
    ops = ParquetSink(root / "parquet" / OPS_DIR / name, OPS_TABLE)
    results = ParquetSink(root / RESULTS_DIR / name, RESULT_TABLE)
    stats = PartStats(partition)
    # a task makes some 10^6 short-lived objects (each trace's ops, rows and runs): with
    # Python's default threshold the collector runs every 700 allocations, about a tenth of
    # the task's CPU; raised for the task, restored after (what is collected is the same)
    with few_collections():
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
            shared: dict[str, Cost] = {}  # the claims' reference costs on this trace
            need = needed_features(trace)  # once, not per implementation (a scan of the ops)
            for impl in job.impls:
                if not runs_on(job, impl, number):
                    continue
                (known, kind, reason, (n, s1, s2), secs), (level, detail) = _run_impl(
                    impl, trace, job, shared, need
                )
                results.add(
                    [(tid, gen, index, impl, len(trace.ops), publishes, known, kind, reason, n, s1,
                      s2, secs, level, detail)]
                )  # fmt: skip
                stats.results += 1
                stats.runs[impl] = stats.runs.get(impl, 0) + 1
    for sink in (heads, ops, results):
        sink.close()
    stats.seconds = time.monotonic() - began
    stats.cpu = _cpu() - cpu
    stats.worker_peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return stats


def _cpu() -> float:
    """User + system CPU seconds of this process and of its reaped children (the isolated runs
    and outside programs of a task are its children): a task's CPU is the difference."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def partition_task(job: Job) -> Callable[[int, Iterator[int]], Iterator[dict[str, Any]]]:
    def body(_: int, rows: Iterator[int]) -> Iterator[dict[str, Any]]:
        for partition in rows:
            yield asdict(run_partition(job, partition))

    return body

