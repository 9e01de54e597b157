"""The protocol level of a verdict (conformance/OBSERVATIONS.md, "Verdict levels"): observed runs
of the built-in systems, the claimed system -> reference built-in map, and the judgement of an
observed run by the generic rules and its claimed system's rules.

`observed_run(builtin, trace)` runs a built-in variant with an observer that records every
observation with the `seq` of the op being applied (`reference.sim.run.Driver`; observations
reported while the run settles after the last op carry the last op's seq, those reported when
the observer is set carry 0), the same numbering an outside program reports under
(PROTOCOL.md, "Version 2"). Observing changes nothing in the run (reference/sim/observe.py).

`judge_protocol(run, reference)` applies `generic.RULES`, then `FAMILY_RULES[run.system]`,
and returns the first deviation (rule, source, observation index, the observation as JSON,
detail) or `conforms`; no run is `not reported`. `protocol_verdict(impl, trace)` does it all
for a built-in or an outside program (`cmd:...`), with a shrunk trace for a deviation when
asked (conformance/shrink.py, re-running the implementation on sub-traces and keeping those on
which the same rule deviates).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pubsub_spec.conformance.protocol_rules import FAMILY_RULES, generic
from pubsub_spec.conformance.protocol_rules.base import Cost, Deviation, Observed, ObservedRun
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.sim.observe import Observation
from pubsub_spec.reference.sim.system import System, Variant

if TYPE_CHECKING:
    from pubsub_spec.conformance.adapter import AdapterOutcome

CONFORMS = "conforms"
DEVIATES = "deviates"
NOT_REPORTED = "not reported"

# claimed system -> the built-in variant whose run is the reference for it (the cost envelope)
REFERENCE: dict[str, str] = {
    "thesis": "reference",
    "lbdd": "reference-lbdd",
}
REFERENCE |= {
    name: name
    for name in ("kyra", "siena", "mcgroups", "octopia-snr", "octopia-idr", "tid", "tam",
                 "tam-basic")
}  # fmt: skip


# claimed system -> the other built-in variants that run one of the paper's own options for it;
# the cost envelope admits a run inside the envelope of any of them (conformance/OBSERVATIONS.md,
# "The cost envelope"): Tam et al. §3.6 lets a subscription register on one index or on every
# applicable one (`tam-fewest-keys`, `tam-all`), thesis §3.4.2 probes by unicast or by
# prefix-grouped multicast (`reference-multicast`).
ALTERNATIVES: dict[str, tuple[str, ...]] = {
    "thesis": ("reference-multicast",),
    "tam": ("tam-fewest-keys", "tam-all"),
}


def _variants() -> dict[str, tuple[str, Variant]]:
    """built-in name -> (registered system, variant)."""
    from pubsub_spec.reference.registry import SYSTEMS

    return {v.builtin: (info.name, v) for info in SYSTEMS.values() for v in info.variants}


def claim_of(builtin: str) -> str | None:
    """The system a built-in claims (OBSERVATIONS.md, "Opting in"): the thesis variants claim
    `thesis`, except `reference-lbdd` (`lbdd`); every other variant its system's name; the
    oracles and the optimised variants (not a registry variant) none."""
    entry = _variants().get(builtin)
    if entry is None:
        return None
    system = entry[0]
    if system == "thesis":
        return "lbdd" if builtin == REFERENCE["lbdd"] else "thesis"
    return system if system in FAMILY_RULES else None


def observed_run(builtin: str, trace: Trace) -> ObservedRun:
    """The built-in variant's run of `trace` with every observation it reports (module doc).
    ValueError for a built-in that claims no system."""
    system_name = claim_of(builtin)
    if system_name is None:
        raise ValueError(f"built-in {builtin!r} claims no system (OBSERVATIONS.md)")
    return observe(_variants()[builtin][1].make(trace), trace, system_name)


# The collector's first threshold while a log is built or judged (Python's default: 700).
GC_THRESHOLD = 20_000


@contextlib.contextmanager
def few_collections() -> Iterator[None]:
    """An observed run keeps one object per observation (some 30,000 on a medium trace), and
    with the default threshold the collector walks the growing log again and again: about a
    third of an observed run's CPU (the thesis reference on a medium `uniform` trace: 0.67 s,
    0.47 s with this threshold). Raised for the block, restored after; nothing else changes."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], GC_THRESHOLD), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def observe(system: System[Any], trace: Trace, claim: str) -> ObservedRun:
    """Drive `system` through `trace` (reference.sim.run.Driver) with an observer that records
    each observation under the seq of the op being applied; the run claims `claim`."""
    from pubsub_spec.reference.sim.run import Driver

    log: list[Observed] = []
    seq = 0

    def record(obs: Observation) -> None:
        log.append(Observed(seq, obs))

    system.observer = record
    with few_collections():
        driver = Driver(trace, system)
        for op in trace.ops:
            seq = op.seq
            driver.apply(op)
        result = driver.finish()
    return ObservedRun(claim, trace, tuple(log), tuple(result.deliveries))


@dataclass(frozen=True)
class ProtocolVerdict:
    """The protocol level of one run: `conforms`, `deviates` (with the first deviation, the
    offending observation as JSON when there is one, and a shrunk trace when one was asked
    for) or `not reported`; `system` is the claim judged."""

    status: str
    system: str = ""
    deviation: Deviation | None = None
    observation: dict[str, Any] | None = None
    shrunk: Trace | None = None
    reason: str = ""  # why not reported

    @property
    def rule(self) -> str:
        return self.deviation.rule if self.deviation is not None else ""

    def label(self) -> str:
        """The column value: `conforms`, `deviates (rule)` or `not reported`."""
        return f"{DEVIATES} ({self.rule})" if self.status == DEVIATES else self.status

    def describe(self) -> str:
        """One line: the label, and for a deviation its summary and offending observation."""
        if self.deviation is None:
            return self.label() + (f": {self.reason}" if self.reason else "")
        import json

        text = f"{DEVIATES}: {self.deviation.summary()}"
        if self.observation is not None:
            text += f"; observation {json.dumps(self.observation, separators=(',', ':'))}"
        if self.shrunk is not None:
            text += f"; shrunk to {len(self.shrunk.ops)} ops"
        return text

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"level": "protocol", "verdict": self.status, "label": self.label()}
        if self.system:
            out["system"] = self.system
        if self.reason:
            out["reason"] = self.reason
        d = self.deviation
        if d is not None:
            out["deviation"] = {"rule": d.rule, "source": d.source, "index": d.index,
                                "detail": d.detail, "observation": self.observation}  # fmt: skip
            if self.shrunk is not None:
                out["shrunk_ops"] = [op.seq for op in self.shrunk.ops]
        return out


def not_reported(reason: str) -> ProtocolVerdict:
    return ProtocolVerdict(NOT_REPORTED, reason=reason)


def judge_protocol(
    run: ObservedRun | None,
    reference: ObservedRun | None,
    too_many: bool = False,
    alternatives: Callable[[], Sequence[ObservedRun]] | None = None,
) -> ProtocolVerdict:
    """The generic rules, then the claimed system's rules, in order; the first deviation is the
    verdict. `too_many`: the program reported more observations than the limit (the log is
    cut): `deviates (limits/too-many-observations)`. `alternatives`: the runs of the paper's
    other options for the claim (`ALTERNATIVES`), made only when the cost envelope around
    `reference` is left; the run is inside the envelope if it is inside any of theirs."""
    if run is None:
        return not_reported("no claim (a version-1 program or a built-in without a claim)")
    ref = reference if reference is not None else run
    if too_many:
        from pubsub_spec.conformance.protocol import MAX_OBSERVATIONS

        limit = generic.TOO_MANY_OBSERVATIONS
        many = limit.deviation(None, f"more than {MAX_OBSERVATIONS} observations on one trace")
        return ProtocolVerdict(DEVIATES, run.system, many)
    with few_collections():
        return _first_deviation(run, ref, alternatives)


def _first_deviation(
    run: ObservedRun,
    ref: ObservedRun,
    alternatives: Callable[[], Sequence[ObservedRun]] | None,
) -> ProtocolVerdict:
    for rule in generic.RULES + FAMILY_RULES.get(run.system, ()):
        d: Deviation | None
        try:
            d = rule.check(run, ref)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
            # an outside program's fields the rule cannot read are a deviation of that rule
            d = rule.deviation(None, f"the observations lack what the rule reads: {e!r}")
        if (
            d is not None
            and rule is generic.COST_ENVELOPE
            and alternatives is not None
            and any(rule.check(run, alt) is None for alt in alternatives())
        ):
            d = None
        if d is not None:
            obs = None
            if d.index is not None and 0 <= d.index < len(run.log):
                from pubsub_spec.conformance.protocol import reply_to_json

                obs = reply_to_json(run.log[d.index])
            return ProtocolVerdict(DEVIATES, run.system, d, obs)
    return ProtocolVerdict(CONFORMS, run.system)


RunObserved = Callable[[Trace], tuple[ObservedRun | None, bool, str]]


def _outside_run(
    command: str, trace: Trace, op_timeout: float
) -> tuple[ObservedRun | None, bool, str]:
    from pubsub_spec.conformance.adapter import run_outside

    out = run_outside(command, trace, op_timeout=op_timeout)
    if out.verdict != "ok":
        return None, False, f"the run did not complete ({out.verdict})"
    if out.protocol != 2:
        return None, False, "a version-1 program (no protocol 2 and system in init_ok)"
    run = ObservedRun(out.system, trace, tuple(out.observations), tuple(out.deliveries))
    return run, out.too_many_observations, ""


def judge_outcome(outcome: AdapterOutcome, trace: Trace) -> ProtocolVerdict:
    """The protocol level of an outside program's run (conformance/adapter.py) of `trace`."""
    if outcome.verdict != "ok":
        return not_reported(f"the run did not complete ({outcome.verdict})")
    if outcome.protocol != 2:
        return not_reported("a version-1 program (no protocol 2 and system in init_ok)")
    run = ObservedRun(outcome.system, trace, tuple(outcome.observations),
                      tuple(outcome.deliveries))  # fmt: skip
    return judge_run(run, outcome.too_many_observations)


def reference_run(system: str, trace: Trace) -> ObservedRun:
    """The reference built-in's observed run of `trace` for a claimed system."""
    return observed_run(REFERENCE[system], trace)


def summary(system: str, trace: Trace, totals: Cost) -> ObservedRun:
    """A run of `trace` known by its cost only: what the rules read of a reference (the cost
    envelope), so that the variants of one claim share one reference run per trace (conform
    --ops, conformance/scale/executor.py)."""
    return ObservedRun(system, trace, (), (), totals)


def judge_run(
    run: ObservedRun | None,
    too_many: bool = False,
    reason: str = "",
    is_reference: bool = False,
    reference: ObservedRun | None = None,
) -> ProtocolVerdict:
    """`judge_protocol` against the claimed system's reference run of the same trace
    (`is_reference`: `run` is that run, a built-in reference judged against itself;
    `reference`: that run, or its `summary`, when already made; else it is run here)."""
    if run is None:
        return not_reported(reason)
    if is_reference:
        ref = run
    else:
        ref = reference if reference is not None else reference_run(run.system, run.trace)
    trace = run.trace

    def alternatives() -> list[ObservedRun]:
        return [observed_run(v, trace) for v in ALTERNATIVES.get(run.system, ())]

    return judge_protocol(run, ref, too_many, alternatives)


def protocol_verdict(
    impl: str,
    trace: Trace,
    shrink_budget: int = 0,
    op_timeout: float = 5.0,
    run: RunObserved | None = None,
) -> ProtocolVerdict:
    """The protocol level of `impl` (a built-in name or `cmd:...`) on `trace`; with a positive
    `shrink_budget`, a deviation comes with a shrunk trace on which the same rule deviates.
    `run` replaces how the implementation is run (tests)."""
    from pubsub_spec.conformance.impls import is_outside, outside_command

    claim = None if is_outside(impl) else claim_of(impl)
    is_reference = claim is not None and REFERENCE[claim] == impl
    if run is None:
        if is_outside(impl):
            command = outside_command(impl)

            def run(t: Trace) -> tuple[ObservedRun | None, bool, str]:
                return _outside_run(command, t, op_timeout)
        else:

            def run(t: Trace) -> tuple[ObservedRun | None, bool, str]:
                if claim is None:
                    return None, False, f"built-in {impl} claims no system"
                return observed_run(impl, t), False, ""

    got, too_many, reason = run(trace)
    verdict = judge_run(got, too_many, reason, is_reference)
    if verdict.status != DEVIATES or shrink_budget <= 0:
        return verdict
    from dataclasses import replace

    from pubsub_spec.conformance.shrink import shrink

    rule = verdict.rule

    def still_deviates(t: Trace) -> bool:
        r, many, why = run(t)
        return judge_run(r, many, why, is_reference).rule == rule

    return replace(verdict, shrunk=shrink(trace, still_deviates, budget=shrink_budget))
