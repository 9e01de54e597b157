"""Running implementations on a trace set: sequentially, or distributed over Spark partitions
with mapInPandas (one row per implementation x trace), aggregated into verdicts.

Nothing an implementation or a trace does stops the run: a malformed trace (or expected file)
becomes a `skipped` verdict naming file, line and field for every implementation, a crash of
a built-in implementation a `fail` naming the exception, and an outside program's misbehaviour
the adapter's outcome (conformance/adapter.py). Verdicts come back in a deterministic order:
by implementation (as given), then by trace (as given).

For Spark, the project's packages are zipped at run time and shipped with `addPyFile`
(`ship_project_code`), so the executors need nothing but pyspark.
"""

from __future__ import annotations

import functools
import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pubsub_spec.conformance.supervisor import Limits
from pubsub_spec.conformance.traceio import check_trace_id, ndjson_lines, read_text_file
from pubsub_spec.conformance.verdict import Verdict, judge
from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.ops import Publish, Trace
from pubsub_spec.reference.common.oracle import Delivery
from pubsub_spec.reference.sim.system import missing_features

RESULT_SCHEMA = (
    "task INT, impl STRING, trace_id STRING, generator STRING, verdict STRING, checked INT, "
    "expected INT, missing STRING, duplicate STRING, spurious STRING, reason STRING, "
    "seconds DOUBLE, kind STRING, protocol STRING, protocol_detail STRING"
)
TASK_SCHEMA = "task INT, impl STRING, trace STRING, expected STRING, source STRING"
CODE_ZIP = "pubsub_spec_code.zip"

Progress = Callable[[int, int, Verdict], None]


@dataclass(frozen=True)
class Task:
    """One implementation on one trace; `expected` None means: ask the Python oracle."""

    task: int
    impl: str
    trace: str
    expected: str | None
    source: str


def expected_path(trace_path: Path) -> Path:
    """`X.ndjson` -> `X.expected.ndjson` (conformance/FORMAT.md)."""
    return trace_path.with_name(trace_path.name.removesuffix(".ndjson") + ".expected.ndjson")


def _trace_id_of(source: str) -> str:
    return Path(source).name.removesuffix(".ndjson")


def _expected(
    trace: Trace, text: str | None, source: str
) -> tuple[list[Delivery], int, str | None]:
    """(expected deliveries, publishes, error): from the expected file, checked against the
    trace (one line per publish, in trace order), or from the Python oracle."""
    from pubsub_spec.conformance.traceio import parse_expected_lines
    from pubsub_spec.reference.common.oracle import expected_deliveries

    events = [op.event.id for op in trace.ops if isinstance(op, Publish)]
    if text is None:
        return expected_deliveries(trace), len(events), None
    lines = ndjson_lines(text)  # not splitlines: U+2028 may be inside a JSON string
    try:
        deliveries = parse_expected_lines(lines, source)
    except InputError as e:
        return [], 0, str(e)
    listed = [json.loads(line)["event"] for line in lines]
    if listed != events:
        first = next(
            (i for i, (a, b) in enumerate(zip(listed, events, strict=False)) if a != b),
            min(len(listed), len(events)),
        )
        return [], 0, (
            f"{source} line {first + 1}: field 'event': the expected file lists "
            f"{len(listed)} publishes, the trace {len(events)}; they first differ at "
            f"publish #{first + 1}"
        )
    return deliveries, len(events), None


def run_one(
    impl_name: str,
    trace_text: str,
    expected_text: str | None,
    source: str,
    op_timeout: float = 5.0,
    total_timeout: float = 120.0,
    limits: Limits | None = None,
    protocol: bool = False,
) -> Verdict:
    """One implementation on one trace; bad input and crashes become verdicts, never escape.
    `limits` (default: the two timeouts and the supervisor's defaults) bound outside programs
    and built-ins alike. With `protocol`, the verdict also carries the protocol level
    (conformance/observed.py): an outside program's observations from the same run, a
    built-in's from an observed run of its claim."""
    v = _run_one(impl_name, trace_text, expected_text, source, op_timeout, total_timeout,
                 limits, protocol)  # fmt: skip
    if protocol and not v.protocol:
        v = replace(v, protocol="not reported", protocol_detail=f"not reported: {v.verdict}")
    return v


def _protocol_of_builtin(impl_name: str, trace: Trace) -> tuple[str, str]:
    """(label, detail) of a built-in's protocol level; an error in judging is `not reported`
    naming it (the delivery level has already been judged)."""
    from pubsub_spec.conformance.observed import protocol_verdict

    try:
        pv = protocol_verdict(impl_name, trace)
    except Exception as e:  # a rule or an observed run that breaks: say so, never crash the run
        return "not reported", f"not reported: the protocol check failed: {e!r}"
    return pv.label(), pv.describe()


def _run_one(
    impl_name: str,
    trace_text: str,
    expected_text: str | None,
    source: str,
    op_timeout: float,
    total_timeout: float,
    limits: Limits | None,
    protocol: bool,
) -> Verdict:
    from pubsub_spec.conformance.impls import is_outside, outside_command, resolve
    from pubsub_spec.conformance.traceio import parse_trace_lines

    try:
        trace = parse_trace_lines(ndjson_lines(trace_text), source)
    except InputError as e:
        return Verdict(
            impl_name, _trace_id_of(source), "?", "skipped", reason=f"bad trace: {e}",
            kind="bad-trace",
        )  # fmt: skip
    tid, gen = trace.trace_id, trace.generator
    expected, publishes, error = _expected(trace, expected_text, expected_source(source))
    if error is not None:
        reason = f"bad expected file: {error}"
        return Verdict(impl_name, tid, gen, "skipped", reason=reason, kind="bad-expected")
    start = time.monotonic()
    if is_outside(impl_name):
        from pubsub_spec.conformance.adapter import run_outside

        outcome = run_outside(
            outside_command(impl_name), trace, op_timeout=op_timeout, total_timeout=total_timeout,
            limits=limits,
        )  # fmt: skip
        secs = time.monotonic() - start
        if outcome.verdict != "ok":
            return Verdict(
                impl_name, tid, gen, outcome.verdict, reason=outcome.reason, seconds=secs,
                kind=outcome.kind,
            )  # fmt: skip
        v = judge(impl_name, tid, gen, expected, outcome.deliveries, publishes, secs)
        if not protocol:
            return v
        from pubsub_spec.conformance.observed import judge_outcome

        try:
            pv = judge_outcome(outcome, trace)
        except Exception as e:  # the reference's run or a rule broke: not the program's fault
            return replace(v, protocol="not reported",
                           protocol_detail=f"not reported: the protocol check failed: {e!r}")
        return replace(v, protocol=pv.label(), protocol_detail=pv.describe())
    impl = resolve(impl_name)
    if impl is None:
        reason = "unknown implementation (see conformance/impls.py)"
        return Verdict(impl_name, tid, gen, "skipped", reason=reason, kind="unknown-impl")
    if impl.unavailable:
        return Verdict(
            impl_name, tid, gen, "skipped", reason=impl.unavailable, kind="unavailable"
        )
    lacking = missing_features(trace, impl.features)
    if lacking:  # docs/design.md#systems: a trace needing a feature not declared is skipped
        return Verdict(impl_name, tid, gen, "skipped", reason=lacking, kind="feature")
    # a built-in runs in a forked child under the same limits as an outside program
    from pubsub_spec.conformance.isolate import run_isolated

    ran = run_isolated(impl.run, trace, limits or Limits(op_timeout, total_timeout=total_timeout))
    if ran.status != "ok":  # crash / killed: fail; timeout / resource (a limit): unknown
        verdict = "fail" if ran.status in ("crash", "killed") else "unknown"
        kind = "crash" if verdict == "fail" else ran.status
        return Verdict(
            impl_name, tid, gen, verdict, reason=ran.reason, seconds=ran.seconds, kind=kind
        )
    v = judge(impl_name, tid, gen, expected, ran.deliveries, publishes, ran.seconds)
    if not protocol:
        return v
    label, detail = _protocol_of_builtin(impl_name, trace)
    return replace(v, protocol=label, protocol_detail=detail)


def _declared_id(text: str, source: str) -> str:
    """The trace id a trace file declares in its header (default: its file name); a header
    that does not parse is left for the full reader to reject in `run_one`."""
    from pubsub_spec.conformance.traceio import _load

    first = text.split("\n", 1)[0]
    try:
        header = _load(first, f"{source} line 1")
    except InputError:
        return _trace_id_of(source)
    tid = header.get("trace_id") if isinstance(header, dict) else None
    return tid if isinstance(tid, str) else _trace_id_of(source)


def expected_source(trace_source: str) -> str:
    return str(expected_path(Path(trace_source))) if trace_source.endswith(".ndjson") else (
        f"{trace_source} (expected)"
    )


def _run_task(t: Task, op_timeout: float, total_timeout: float, protocol: bool = False) -> Verdict:
    return run_one(t.impl, t.trace, t.expected, t.source, op_timeout, total_timeout,
                   protocol=protocol)  # fmt: skip


# --- Spark -------------------------------------------------------------------------------------


def _pairs(items: tuple[Delivery, ...]) -> str:
    return json.dumps([[d.event_id, d.sub_id] for d in items])


def _unpairs(text: str) -> tuple[Delivery, ...]:
    return tuple(Delivery(e, s) for e, s in json.loads(text))


def _to_row(task: int, v: Verdict) -> dict[str, Any]:
    return {
        "task": task,
        "impl": v.impl,
        "trace_id": v.trace_id,
        "generator": v.generator,
        "verdict": v.verdict,
        "checked": v.checked,
        "expected": v.expected,
        "missing": _pairs(v.missing),
        "duplicate": _pairs(v.duplicate),
        "spurious": _pairs(v.spurious),
        "reason": v.reason,
        "seconds": v.seconds,
        "kind": v.kind,
        "protocol": v.protocol,
        "protocol_detail": v.protocol_detail,
    }


def _from_row(r: Any) -> Verdict:
    return Verdict(
        r["impl"],
        r["trace_id"],
        r["generator"],
        r["verdict"],
        int(r["checked"]),
        int(r["expected"]),
        _unpairs(r["missing"]),
        _unpairs(r["duplicate"]),
        _unpairs(r["spurious"]),
        r["reason"],
        float(r["seconds"]),
        kind=r["kind"],
        protocol=r["protocol"] or "",
        protocol_detail=r["protocol_detail"] or "",
    )


def _run_batches(
    batches: Iterator[Any], op_timeout: float, total_timeout: float, protocol: bool = False
) -> Iterator[Any]:
    """mapInPandas body, on the executors: each row is a Task."""
    import pandas as pd

    columns = [c.split()[0] for c in RESULT_SCHEMA.split(", ")]
    for pdf in batches:
        rows = []
        for r in pdf.itertuples(index=False):
            expected = None if pd.isna(r.expected) else str(r.expected)
            task = Task(int(r.task), str(r.impl), str(r.trace), expected, str(r.source))
            rows.append(_to_row(task.task, _run_task(task, op_timeout, total_timeout, protocol)))
        yield pd.DataFrame(rows, columns=columns)


def ship_project_code(spark: Any) -> None:
    """Zip `reference`, `properties`, `conformance` (and `pubsub_spec`) and `addPyFile` them,
    once per SparkContext, so that executors on a real cluster need nothing but pyspark."""
    sc = spark.sparkContext
    if CODE_ZIP in (getattr(sc, "_python_includes", None) or []):
        return
    from pubsub_spec.conformance.spark_session import ship_code

    ship_code(spark)


def _run_on_spark(
    tasks: Sequence[Task], spark: Any, op_timeout: float, total_timeout: float,
    protocol: bool = False,
) -> list[Verdict]:
    if not tasks:
        return []
    ship_project_code(spark)
    rows = [(t.task, t.impl, t.trace, t.expected, t.source) for t in tasks]
    df = spark.createDataFrame(rows, TASK_SCHEMA).repartition(max(1, min(len(rows), 8)), "task")
    body = functools.partial(_run_batches, op_timeout=op_timeout, total_timeout=total_timeout,
                             protocol=protocol)  # fmt: skip
    results = {int(r["task"]): _from_row(r) for r in df.mapInPandas(body, RESULT_SCHEMA).collect()}
    return [results[t.task] for t in tasks]


# --- entry points ------------------------------------------------------------------------------


def _run_tasks(
    tasks: list[Task],
    spark: Any | None,
    op_timeout: float,
    total_timeout: float,
    progress: Progress | None,
    protocol: bool = False,
) -> list[Verdict]:
    if spark is not None:
        verdicts = _run_on_spark(tasks, spark, op_timeout, total_timeout, protocol)
        if progress:
            for i, v in enumerate(verdicts):
                progress(i + 1, len(tasks), v)
        return verdicts
    verdicts = []
    for i, t in enumerate(tasks):
        verdicts.append(_run_task(t, op_timeout, total_timeout, protocol))
        if progress:
            progress(i + 1, len(tasks), verdicts[-1])
    return verdicts


def run_traces(
    impls: Sequence[str],
    paths: Sequence[Path],
    spark: Any | None = None,
    op_timeout: float = 5.0,
    total_timeout: float = 120.0,
    progress: Progress | None = None,
    protocol: bool = False,
) -> list[Verdict]:
    """Every implementation on every trace file `X.ndjson`, against `X.expected.ndjson` (or
    the Python oracle when there is none). Sequential without `spark`; with it, one Spark task
    row per implementation x trace, run by mapInPandas on the executors. `protocol`: judge the
    protocol level too (`Verdict.protocol`)."""
    unreadable: dict[str, str] = {}
    texts: list[tuple[str, str | None, str]] = []
    seen: dict[str, str] = {}
    for p in paths:
        try:  # regular files only, bounded; a trace set's ids are unique and its file names
            text = read_text_file(p)
            check_trace_id(_declared_id(text, str(p)), p, seen)
            exp = expected_path(Path(p))
            exp_text = read_text_file(exp) if os.path.lexists(exp) else None
        except InputError as e:
            unreadable[str(p)] = f"bad trace: {e}"
            text, exp_text = "", None
        texts.append((text, exp_text, str(p)))
    tasks = [
        Task(n, impl, text, exp_text, src)
        for n, (impl, (text, exp_text, src)) in enumerate(
            (impl, t) for impl in impls for t in texts
        )
    ]
    runnable = [t for t in tasks if t.source not in unreadable]
    done = dict(
        zip(
            (t.task for t in runnable),
            _run_tasks(runnable, spark, op_timeout, total_timeout, progress, protocol),
            strict=True,
        )
    )
    for t in tasks:
        if t.source in unreadable:
            done[t.task] = Verdict(
                t.impl, _trace_id_of(t.source), "?", "skipped", reason=unreadable[t.source],
                kind="bad-trace",
            )  # fmt: skip
    return [done[t.task] for t in tasks]


def run_trace_list(
    impls: Sequence[str],
    traces: Sequence[Trace],
    spark: Any | None = None,
    op_timeout: float = 5.0,
    total_timeout: float = 120.0,
    progress: Progress | None = None,
    protocol: bool = False,
) -> list[Verdict]:
    """Every implementation on in-memory traces, against the Python oracle."""
    from pubsub_spec.conformance.traceio import trace_to_lines

    texts = ["\n".join(trace_to_lines(t)) for t in traces]
    tasks = [
        Task(n, impl, text, None, f"{trace.trace_id}.ndjson")
        for n, (impl, (trace, text)) in enumerate(
            (impl, tt) for impl in impls for tt in zip(traces, texts, strict=True)
        )
    ]
    return _run_tasks(tasks, spark, op_timeout, total_timeout, progress, protocol)


# --- shrinking ---------------------------------------------------------------------------------

SHRINKABLE = ("deliveries", "crash", "protocol", "error")


def _file_name(impl: str) -> str:
    """A file-name-safe form of an implementation name; outside commands get a short digest
    (two commands that differ only at the end must not collide)."""
    import hashlib
    import os.path

    from pubsub_spec.conformance.impls import is_outside

    shown = impl
    if is_outside(impl):  # the base names of the command's words, not where it lives
        words = impl.removeprefix("cmd:").split()
        shown = "cmd-" + "_".join(os.path.basename(w.rstrip("/")) or w for w in words)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in shown)
    if safe == impl and len(impl) <= 60:
        return impl
    return f"{safe[:32]}-{hashlib.sha1(impl.encode()).hexdigest()[:8]}"


def shrink_failures(
    verdicts: list[Verdict],
    paths: Sequence[Path],
    out: Path,
    op_timeout: float = 2.0,
    budget: int = 60,
    progress: Callable[[str], None] | None = None,
) -> list[Verdict]:
    """For each failure (wrong deliveries, a crash, a protocol error, a definite error), the
    smallest trace that still fails the same way (shrink.py), written to `out/shrunk/` and
    recorded in the verdict's `extra` (`shrunk`: path relative to `out`, `shrunk_ops`)."""
    from pubsub_spec.conformance.shrink import shrink
    from pubsub_spec.conformance.traceio import read_trace, trace_to_lines, write_trace

    by_id = {_trace_id_of(str(p)): Path(p) for p in paths}
    done: list[Verdict] = []
    for v in verdicts:
        path = by_id.get(v.trace_id)
        if v.verdict != "fail" or v.kind not in SHRINKABLE or path is None:
            done.append(v)
            continue
        if progress:
            progress(f"shrinking {v.trace_id} for {v.impl}")
        try:
            trace = read_trace(path)
        except InputError:
            done.append(v)
            continue

        def still_fails(t: Trace, impl: str = v.impl, kind: str = v.kind) -> bool:
            w = run_one(impl, "\n".join(trace_to_lines(t)), None, f"{t.trace_id}.ndjson",
                        op_timeout=op_timeout)  # fmt: skip
            return w.verdict == "fail" and w.kind == kind

        small = shrink(trace, still_fails, budget=budget)
        target = out / "shrunk" / f"{_file_name(v.impl)}-{v.trace_id}.ndjson"
        target.parent.mkdir(parents=True, exist_ok=True)
        write_trace(small, target)
        again = run_one(v.impl, "\n".join(trace_to_lines(small)), None, str(target),
                        op_timeout=op_timeout)  # fmt: skip
        extra = {
            **v.extra,
            "shrunk": target.relative_to(out).as_posix(),
            "shrunk_ops": str(len(small.ops)),
            "shrunk_verdict": again.describe(),
        }
        done.append(replace(v, extra=extra))
    return done


def shrink_deviations(
    verdicts: list[Verdict],
    paths: Sequence[Path],
    out: Path,
    op_timeout: float = 2.0,
    budget: int = 40,
    progress: Callable[[str], None] | None = None,
) -> list[Verdict]:
    """For the first protocol deviation of each implementation, the smallest trace on which the
    same rule deviates (conformance/observed.py, `protocol_verdict` with a shrink budget),
    written to `out/shrunk/` and recorded in the verdict's `extra` (`protocol_shrunk`: path
    relative to `out`, `protocol_shrunk_ops`)."""
    from pubsub_spec.conformance.observed import protocol_verdict
    from pubsub_spec.conformance.traceio import read_trace, write_trace

    by_id = {_trace_id_of(str(p)): Path(p) for p in paths}
    seen: set[str] = set()
    done: list[Verdict] = []
    for v in verdicts:
        path = by_id.get(v.trace_id)
        if not v.protocol.startswith("deviates") or v.impl in seen or path is None:
            done.append(v)
            continue
        seen.add(v.impl)
        if progress:
            progress(f"shrinking {v.trace_id} for {v.impl}'s {v.protocol}")
        try:
            pv = protocol_verdict(v.impl, read_trace(path), budget, op_timeout)
        except (InputError, ValueError) as e:
            done.append(replace(v, extra={**v.extra, "protocol_shrunk_error": str(e)[:300]}))
            continue
        if pv.shrunk is None:
            done.append(v)
            continue
        target = out / "shrunk" / f"{_file_name(v.impl)}-{v.trace_id}-protocol.ndjson"
        target.parent.mkdir(parents=True, exist_ok=True)
        write_trace(pv.shrunk, target)
        extra = {**v.extra, "protocol_shrunk": target.relative_to(out).as_posix(),
                 "protocol_shrunk_ops": str(len(pv.shrunk.ops))}  # fmt: skip
        done.append(replace(v, extra=extra))
    return done
