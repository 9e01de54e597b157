"""The registry of implementations the suite can run.

Built in: every variant of every simulated system of reference/registry.py (the thesis system with
each delivery strategy: `reference`, `reference-multicast`, `reference-lbdd`), the brute-force
Python oracle (`oracle-python`, a self-test: it must agree with the Spark SQL oracle that wrote the
expected files) and the optimised variants (`oracle-indexed`, `reference-array`,
`reference-fast`; more register themselves with `register`). Outside programs are named by
their command line behind the prefix `cmd:` (e.g. `cmd:./my-impl --flag`) and run over the
process protocol (conformance/adapter.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pubsub_spec.conformance.fingerprint import Fingerprint
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.common.oracle import Delivery, expected_deliveries
from pubsub_spec.reference.registry import SYSTEMS
from pubsub_spec.reference.sim.run import run_trace
from pubsub_spec.reference.sim.system import FEATURES, SystemFactory

Runner = Callable[[Trace], list[Delivery]]
OUTSIDE_PREFIX = "cmd:"
ALL_FEATURES = frozenset(FEATURES)


@dataclass(frozen=True)
class Implementation:
    name: str
    run: Runner  # all deliveries of a trace, duplicates kept
    unavailable: str | None = None  # reason to skip, if it cannot run here
    # what it supports (reference/sim/system.py FEATURES); a trace that needs more is skipped
    features: frozenset[str] = ALL_FEATURES
    # the fingerprint of `run`'s deliveries computed without them (conform --ops);
    # must equal fingerprint(run(trace)) on every trace (tests/test_fingerprint.py)
    fingerprint: Callable[[Trace], Fingerprint] | None = None


def _simulated(make: SystemFactory) -> Runner:
    def run(trace: Trace) -> list[Delivery]:
        return run_trace(trace, make, check=False).deliveries

    return run


def _fast_sim(trace: Trace) -> list[Delivery]:
    from pubsub_spec.reference.thesis.substrate_fast import FastTwoDTreeSystem

    return run_trace(trace, FastTwoDTreeSystem.for_trace, check=False).deliveries


def _array_sim(trace: Trace) -> list[Delivery]:
    from pubsub_spec.conformance.variants.thesis_array_sim import array_sim_deliveries

    return array_sim_deliveries(trace)


def _indexed(trace: Trace) -> list[Delivery]:
    from pubsub_spec.conformance.variants.indexed_matcher import indexed_expected

    return indexed_expected(trace)


def _array_sim_fingerprint(trace: Trace) -> Fingerprint:
    from pubsub_spec.conformance.variants.thesis_array_sim import array_sim_fingerprint

    return array_sim_fingerprint(trace)


def _indexed_fingerprint(trace: Trace) -> Fingerprint:
    from pubsub_spec.conformance.variants.indexed_matcher import indexed_fingerprint

    return indexed_fingerprint(trace)


_REGISTERED: dict[str, Implementation] = {}


def register(impl: Implementation) -> None:
    """Add an implementation (an optimised variant, a test double) under its name."""
    if impl.name.startswith(OUTSIDE_PREFIX):
        raise ValueError(f"names starting with {OUTSIDE_PREFIX!r} are outside programs")
    _REGISTERED[impl.name] = impl


def builtin() -> dict[str, Implementation]:
    """Every variant of every registered system (reference/registry.py), with the system's
    features, then the oracles and the optimised variants."""
    impls = {
        v.builtin: Implementation(v.builtin, _simulated(v.make), features=info.features)
        for info in SYSTEMS.values()
        for v in info.variants
    }
    impls |= {
        "oracle-python": Implementation("oracle-python", expected_deliveries),
        "oracle-indexed": Implementation(
            "oracle-indexed", _indexed, fingerprint=_indexed_fingerprint
        ),
        "reference-array": Implementation(
            "reference-array", _array_sim, fingerprint=_array_sim_fingerprint
        ),
        # the thesis system as the trace configures it, on the fast engine (same run)
        "reference-fast": Implementation(
            "reference-fast", _fast_sim, features=SYSTEMS["thesis"].features
        ),
    }
    impls.update(_REGISTERED)
    return impls


def is_outside(name: str) -> bool:
    return name.startswith(OUTSIDE_PREFIX)


def outside(command: str) -> str:
    """The implementation name of an outside program's command line."""
    return OUTSIDE_PREFIX + command


def outside_command(name: str) -> str:
    return name.removeprefix(OUTSIDE_PREFIX)


def resolve(name: str) -> Implementation | None:
    """A built-in or registered implementation by name (None for unknown or outside names)."""
    return None if is_outside(name) else builtin().get(name)
