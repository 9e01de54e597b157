"""Running implementations on a trace set: sequentially, or distributed over Spark partitions
with mapInPandas (one row per implementation × trace), aggregated into verdicts."""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from conformance.verdict import Verdict, judge
from reference.errors import InputError
from reference.ops import Trace
from reference.oracle import Delivery

RESULT_SCHEMA = (
    "impl STRING, trace_id STRING, generator STRING, verdict STRING, checked INT, "
    "expected INT, missing STRING, duplicate STRING, spurious STRING, reason STRING, "
    "seconds DOUBLE"
)


def _expected(text: str) -> tuple[list[Delivery], int]:
    out: list[Delivery] = []
    n = 0
    for line in text.splitlines():
        obj = json.loads(line)
        n += 1
        out.extend(Delivery(obj["event"], s) for s in obj["deliveries"])
    return out, n


def run_one(
    impl_name: str, trace_text: str, expected_text: str, source: str, op_timeout: float = 5.0
) -> Verdict:
    """One implementation on one trace; bad input and crashes become verdicts, never escape."""
    from conformance.impls import builtin
    from conformance.traceio import parse_trace_lines

    try:
        trace = parse_trace_lines(trace_text.splitlines(), source)
    except InputError as e:
        return Verdict(impl_name, Path(source).stem, "?", "skipped", reason=f"bad trace: {e}")
    if impl_name.startswith("cmd:"):
        return _run_outside(impl_name, trace, expected_text, op_timeout)
    impl = builtin().get(impl_name)
    if impl is None:
        return Verdict(impl_name, trace.trace_id, trace.generator, "skipped", reason="unknown")
    if impl.unavailable:
        return Verdict(
            impl_name, trace.trace_id, trace.generator, "skipped", reason=impl.unavailable
        )
    expected, publishes = _expected(expected_text)
    start = time.monotonic()
    try:
        got = impl.run(trace)
    except Exception as e:  # an implementation that crashes fails, naming the error
        tb = traceback.format_exc(limit=3).strip().splitlines()[-1]
        return Verdict(
            impl_name, trace.trace_id, trace.generator, "fail", reason=f"crashed: {e!r} ({tb})"
        )
    secs = time.monotonic() - start
    return judge(impl_name, trace.trace_id, trace.generator, expected, got, publishes, secs)


def _run_outside(impl_name: str, trace: Trace, expected_text: str, op_timeout: float) -> Verdict:
    """An outside program over the NDJSON protocol (conformance/adapter.py)."""
    from conformance.adapter import run_outside

    expected, publishes = _expected(expected_text)
    start = time.monotonic()
    outcome = run_outside(impl_name[4:], trace, op_timeout=op_timeout)
    secs = time.monotonic() - start
    if outcome.verdict == "ok":
        return judge(
            impl_name,
            trace.trace_id,
            trace.generator,
            expected,
            outcome.deliveries,
            publishes,
            secs,
        )
    return Verdict(
        impl_name,
        trace.trace_id,
        trace.generator,
        outcome.verdict,
        reason=outcome.reason,
        seconds=secs,
    )


def _pairs(items: tuple[Delivery, ...]) -> str:
    return json.dumps([[d.event_id, d.sub_id] for d in items])


def _unpairs(text: str) -> tuple[Delivery, ...]:
    return tuple(Delivery(e, s) for e, s in json.loads(text))


def _to_row(v: Verdict) -> dict[str, Any]:
    return {
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
    )


def _run_batches(batches: Iterator[Any]) -> Iterator[Any]:
    import pandas as pd

    for pdf in batches:
        rows = [
            _to_row(run_one(r.impl, r.trace, r.expected, r.source))
            for r in pdf.itertuples(index=False)
        ]
        yield pd.DataFrame(rows, columns=[c.split()[0] for c in RESULT_SCHEMA.split(", ")])


def run_traces(
    impls: Sequence[str], paths: Sequence[Path], spark: Any | None = None
) -> list[Verdict]:
    """Every implementation on every trace (trace `X.ndjson` with `X.expected.ndjson`)."""
    tasks = []
    for p in paths:
        exp = p.with_name(p.name.replace(".ndjson", ".expected.ndjson"))
        exp_text = exp.read_text(encoding="utf-8") if exp.exists() else ""
        for impl in impls:
            tasks.append((impl, p.read_text(encoding="utf-8"), exp_text, str(p)))
    if spark is None:
        return [run_one(*t) for t in tasks]
    df = spark.createDataFrame(tasks, "impl STRING, trace STRING, expected STRING, source STRING")
    df = df.repartition(max(1, min(len(tasks), 8)))
    rows = df.mapInPandas(_run_batches, RESULT_SCHEMA).collect()
    return sorted((_from_row(r) for r in rows), key=lambda v: (v.impl, v.trace_id))


def shrink_failures(verdicts: list[Verdict], paths: Sequence[Path], out: Path) -> list[Verdict]:
    """For each failure with named pairs, the smallest trace that still fails (shrink.py),
    written to out/shrunk/ and recorded in the verdict's `extra`."""
    from dataclasses import replace as dc_replace

    from conformance.shrink import shrink
    from conformance.traceio import read_trace, write_trace
    from reference.oracle import expected_deliveries
    from reference.run import compare

    by_id = {p.name.removesuffix(".ndjson"): p for p in paths}
    done: list[Verdict] = []
    for v in verdicts:
        path = by_id.get(v.trace_id)
        if v.verdict != "fail" or not (v.missing or v.duplicate or v.spurious) or path is None:
            done.append(v)
            continue
        trace = read_trace(path)

        def still_fails(t: Trace, impl: str = v.impl) -> bool:
            got = _deliveries(impl, t)
            return got is None or not compare(expected_deliveries(t), got).agree

        small = shrink(trace, still_fails, budget=60)
        target = (
            out
            / "shrunk"
            / f"{v.impl.replace('/', '_').replace(' ', '_')[:60]}-{v.trace_id}.ndjson"
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        write_trace(small, target)
        extra = {"shrunk": str(target.relative_to(out)), "shrunk_ops": str(len(small.ops))}
        done.append(dc_replace(v, extra=extra))
    return done


def _deliveries(impl_name: str, trace: Trace) -> list[Delivery] | None:
    """An implementation's deliveries on a trace, or None when it did not complete."""
    from conformance.impls import builtin

    if impl_name.startswith("cmd:"):
        from conformance.adapter import run_outside

        outcome = run_outside(impl_name[4:], trace, op_timeout=2.0)
        return outcome.deliveries if outcome.verdict == "ok" else None
    try:
        return builtin()[impl_name].run(trace)
    except Exception:
        return None
