"""Running a trace on the thesis system: `reference.sim.run` with `TwoDTreeSystem` (or one of
its mutants, properties/thesis/mutants.py) as the system."""

from __future__ import annotations

from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.sim.run import Comparison, Progress, RunResult
from pubsub_spec.reference.sim.run import run_and_compare as _run_and_compare
from pubsub_spec.reference.sim.run import run_trace as _run_trace
from pubsub_spec.reference.thesis.system import TwoDTreeSystem


def run_trace(
    trace: Trace,
    progress: Progress | None = None,
    check: bool = True,
    system_class: type[TwoDTreeSystem] = TwoDTreeSystem,
) -> RunResult[TwoDTreeSystem]:
    """Run every op of the trace on the thesis system (validating it first unless check=False)."""
    return _run_trace(trace, system_class.for_trace, progress, check)


def run_and_compare(
    trace: Trace, system_class: type[TwoDTreeSystem] = TwoDTreeSystem
) -> tuple[RunResult[TwoDTreeSystem], Comparison]:
    return _run_and_compare(trace, system_class.for_trace)
