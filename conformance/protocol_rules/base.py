"""The vocabulary of protocol rules (conformance/OBSERVATIONS.md, "Rules"): a run's observation
log, a rule, and the deviation a rule reports.

A rule reads one `ObservedRun` (the implementation's) and, where it compares costs, the
reference's `ObservedRun` on the same trace; it returns the first offending observation, or
None. Rules are properties of a paper's protocol, each citing its section; they never import a
system's handlers (the reference is one implementation they judge, not their definition)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.common.oracle import Delivery
from pubsub_spec.reference.sim.observe import Observation


@dataclass(frozen=True, slots=True)
class Observed:
    """One observation with the op it was reported under: the `seq` of the last op sent to
    the implementation (0 before the first op; the last op's seq for those reported after it,
    before `end_ok`)."""

    seq: int
    obs: Observation


@dataclass(frozen=True)
class Cost:
    """Totals over a run: messages and hops charged to publishes and to subscribes (the cost
    envelope, conformance/OBSERVATIONS.md; `generic.cost` computes them from a log)."""

    publish_messages: int = 0
    publish_hops: int = 0
    subscribe_messages: int = 0
    subscribe_hops: int = 0
    publishes: int = 0
    subscribes: int = 0


@dataclass(frozen=True)
class ObservedRun:
    """What one implementation did on one trace: the system it claims, its observations in
    the order reported, and its deliveries. `totals`: the run's cost when it is known without
    its log: a reference run summarised for the cost envelope, the only rule that reads a
    reference (`generic.cost` returns it; conformance/observed.py, `judge_run`)."""

    system: str
    trace: Trace
    log: Sequence[Observed]
    deliveries: Sequence[Delivery]
    totals: Cost | None = None


@dataclass(frozen=True)
class Deviation:
    """A rule broken: the rule's id and source, the position in `ObservedRun.log` of the
    first offending observation (None when the offence is an absence, e.g. a message never
    sent) and a sentence naming what was expected."""

    rule: str
    source: str
    index: int | None
    detail: str

    def summary(self) -> str:
        where = f" at observation {self.index}" if self.index is not None else ""
        return f"{self.rule} ({self.source}){where}: {self.detail}"


# check(run, reference) -> the deviation, or None. `reference` is the built-in reference's
# run of the same trace for the claimed system (rules comparing costs need it; others ignore it).
Check = Callable[[ObservedRun, ObservedRun], "Deviation | None"]


@dataclass(frozen=True)
class Rule:
    id: str  # "<system family>/<short-name>", e.g. "thesis/leaf-update-after-split"
    source: str  # the paper and section, e.g. "Li, UBC thesis 2008, §3.3, Program 3.2"
    doc: str  # one sentence: what the rule demands
    check: Check

    def deviation(self, index: int | None, detail: str) -> Deviation:
        return Deviation(self.id, self.source, index, detail)
