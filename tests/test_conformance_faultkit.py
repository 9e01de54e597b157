"""The fault kit: the default trace set's generators catch every realistic fault of
conformance/examples/faultkit.py for the right reason (wrong deliveries; `incomplete` for the
one that opts out of features), and the kit's correct program passes. One trace per generator
here (the benchmark benchmarks/bench_conformance_faults.py runs the whole default set and
prints the catch rate and the median shrunk size)."""

from __future__ import annotations

import pytest

from pubsub_spec.conformance.examples.faultkit import FAULTS
from pubsub_spec.conformance.faults import default_traces, kit_impl, run_fault
from pubsub_spec.conformance.runner import run_trace_list
from pubsub_spec.conformance.verdict import overall
from pubsub_spec.reference.common.ops import Trace

_TRACES: list[Trace] = []


def traces() -> list[Trace]:
    if not _TRACES:
        _TRACES.extend(default_traces(count=1))
    return _TRACES


def test_the_correct_program_passes() -> None:
    verdicts = run_trace_list([kit_impl(None)], traces())
    assert overall(verdicts) == "pass", [v.describe() for v in verdicts if v.verdict != "pass"]


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_every_fault_is_caught_for_the_right_reason(fault: str) -> None:
    result = run_fault(fault, traces())
    assert result.caught and result.right_reason, result
