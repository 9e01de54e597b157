"""The fault kit against a trace set: which realistic faults
(conformance/examples/faultkit.py) the set catches, for the right reason, and how small the
shrunk failing traces are. Used by tests/test_conformance_faultkit.py and by
benchmarks/bench_conformance_faults.py (the catch rate of docs/conformance.md)."""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

from pubsub_spec.conformance.examples.faultkit import FAULTS, INCOMPLETE
from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.impls import outside
from pubsub_spec.conformance.runner import run_one, run_trace_list
from pubsub_spec.conformance.shrink import shrink
from pubsub_spec.conformance.traceio import trace_to_lines
from pubsub_spec.conformance.verdict import Verdict, overall
from pubsub_spec.reference.common.ops import Trace

KIT = Path(__file__).resolve().parent / "examples" / "faultkit.py"


def kit_impl(fault: str | None) -> str:
    """The implementation name of the kit's program with `fault` (None: the correct one)."""
    flag = f" --fault {fault}" if fault else ""
    return outside(f"{sys.executable} {KIT}{flag}")


def default_traces(seed: int = 1, count: int = 3, profile: str = "small") -> list[Trace]:
    """The default `pubsub-spec conform` trace set: every generator, `count` traces each."""
    return [gen(seed, i, profile) for gen in GENERATORS.values() for i in range(count)]


@dataclass(frozen=True)
class FaultResult:
    fault: str
    verdict: str  # the overall verdict over the set
    caught: bool  # not pass
    right_reason: bool  # fail on deliveries (incomplete for a feature fault)
    failing: int  # traces that fail
    example: str  # the first failing trace and why
    shrunk_ops: int | None  # ops of the smallest trace that still fails (if shrunk)


def run_fault(
    fault: str, traces: list[Trace], shrink_budget: int = 0, op_timeout: float = 5.0
) -> FaultResult:
    impl = kit_impl(fault)
    verdicts = run_trace_list([impl], traces, op_timeout=op_timeout)
    verdict = overall(verdicts)
    failing = [v for v in verdicts if v.verdict == "fail"]
    if fault in INCOMPLETE:
        right = verdict == "incomplete"
    else:
        right = verdict == "fail" and all(v.kind == "deliveries" for v in failing)
    example = f"{failing[0].trace_id}: {failing[0].describe()}" if failing else verdict
    shrunk = None
    if failing and shrink_budget:
        shrunk = _shrunk_ops(impl, failing[0], traces, shrink_budget, op_timeout)
    return FaultResult(fault, verdict, verdict != "pass", right, len(failing), example, shrunk)


def _shrunk_ops(
    impl: str, v: Verdict, traces: list[Trace], budget: int, op_timeout: float
) -> int:
    trace = next(t for t in traces if t.trace_id == v.trace_id)

    def still_fails(t: Trace) -> bool:
        w = run_one(impl, "\n".join(trace_to_lines(t)), None, f"{t.trace_id}.ndjson", op_timeout)
        return w.verdict == "fail" and w.kind == v.kind

    return len(shrink(trace, still_fails, budget=budget).ops)


def catch_rate(results: list[FaultResult]) -> float:
    return sum(r.caught and r.right_reason for r in results) / len(results) if results else 0.0


def median_shrunk(results: list[FaultResult]) -> float | None:
    sizes = [r.shrunk_ops for r in results if r.shrunk_ops is not None]
    return statistics.median(sizes) if sizes else None


def run_kit(
    traces: list[Trace], shrink_budget: int = 0, faults: list[str] | None = None
) -> list[FaultResult]:
    return [run_fault(f, traces, shrink_budget) for f in (faults or sorted(FAULTS))]
