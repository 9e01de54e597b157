"""Running a trace on a simulated system (reference.sim.system.System) and comparing its
deliveries with the oracle.

Op timing (decision D-OPS in docs/thesis.md): ops arrive with the thesis' exponential
inter-arrival times (Table 4.1: t_sub, t_pub). A publish is injected and runs concurrently with
what follows; a subscribe runs until its points are stored (it "came before" every later
publish, docs/design.md#active); unsubscribe, leave and fail first let everything in flight finish;
a join takes effect at once and its peer becomes ready later (§3.6).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pubsub_spec.reference.common.ops import (
    Fail,
    Join,
    Leave,
    Op,
    Publish,
    Subscribe,
    Trace,
    Unsubscribe,
    validate_trace,
)
from pubsub_spec.reference.common.oracle import Delivery, expected_deliveries
from pubsub_spec.reference.sim.metrics import Metrics
from pubsub_spec.reference.sim.system import System

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Comparison:
    expected: int
    delivered: int
    missed: tuple[Delivery, ...]
    duplicate: tuple[Delivery, ...]
    spurious: tuple[Delivery, ...]

    @property
    def agree(self) -> bool:
        return not (self.missed or self.duplicate or self.spurious)

    def summary(self) -> str:
        word = "agree" if self.agree else "DISAGREE"
        return (
            f"oracle: {word} ({self.expected} deliveries, {len(self.missed)} missed, "
            f"{len(self.duplicate)} duplicate, {len(self.spurious)} spurious)"
        )


def compare(expected: list[Delivery], got: list[Delivery]) -> Comparison:
    exp = set(expected)
    counts = Counter(got)
    missed = tuple(sorted(exp - counts.keys()))
    duplicate = tuple(sorted(d for d, n in counts.items() if n > 1 and d in exp))
    spurious = tuple(sorted(d for d in counts if d not in exp))
    return Comparison(len(exp), len(got), missed, duplicate, spurious)


Sys = TypeVar("Sys", bound=System[Any])


@dataclass
class RunResult(Generic[Sys]):
    deliveries: list[Delivery]
    metrics: Metrics
    event_log_hash: str
    system: Sys
    sim_time_ms: float


class Driver(Generic[Sys]):
    """Applies the ops of a trace one by one to a system, with the timing of decision D-OPS
    (module doc). `run_trace` and the Hypothesis state machine both drive through it."""

    def __init__(self, trace: Trace, system: Sys) -> None:
        self.trace = trace
        self.system = system
        self.t = 0.0

    def apply(self, op: Op) -> None:
        system, timing, rng = self.system, self.trace.timing, self.system.rng
        system.engine.note(f"{type(op).__name__}:{op.seq}")
        if isinstance(op, Publish):
            self.t = max(
                system.engine.now, self.t + rng.expovariate(1.0 / timing.pub_interarrival_ms)
            )
            system.run_until_time(self.t)
            system.publish(op.event, op.seq)
        elif isinstance(op, Subscribe):
            self.t = max(
                system.engine.now, self.t + rng.expovariate(1.0 / timing.sub_interarrival_ms)
            )
            system.run_until_time(self.t)
            system.subscribe(op.sub, op.seq)
            sid = op.sub.id
            system.run_until(lambda: system.installed(sid))
        elif isinstance(op, Join):
            system.run_until_time(self.t)
            system.join(op.node)
        elif isinstance(op, Unsubscribe | Leave | Fail):
            system.run_to_quiescence()
            if isinstance(op, Unsubscribe):
                system.unsubscribe(op.sub_id)
            elif isinstance(op, Leave):
                system.leave(op.node)
            else:
                system.fail(op.nodes)
            system.run_to_quiescence()
        else:  # a system-specific op (e.g. an advertisement): quiescent before and after
            system.run_to_quiescence()
            system.apply_other(op)
            system.run_to_quiescence()
        self.t = max(self.t, system.engine.now)

    def finish(self) -> RunResult[Sys]:
        system = self.system
        system.run_to_quiescence()
        return RunResult(
            list(system.deliveries),
            system.metrics,
            system.engine.log_hash(),
            system,
            system.engine.now,
        )


def run_trace(
    trace: Trace,
    make: Callable[[Trace], Sys],
    progress: Progress | None = None,
    check: bool = True,
) -> RunResult[Sys]:
    """Run every op of the trace on the system `make(trace)` (validating it first unless
    check=False)."""
    if check:
        validate_trace(trace)
    driver = Driver(trace, make(trace))
    total = len(trace.ops)
    for i, op in enumerate(trace.ops):
        driver.apply(op)
        if progress is not None:
            progress(i + 1, total)
    return driver.finish()


def run_and_compare(
    trace: Trace, make: Callable[[Trace], Sys]
) -> tuple[RunResult[Sys], Comparison]:
    result = run_trace(trace, make)
    return result, compare(expected_deliveries(trace), result.deliveries)
