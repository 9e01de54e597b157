"""The protocol fault kit's catch rate: every fault of conformance/examples/protocol_faults.py
run over a few small traces of the default `conform` generators that fit its system, judged at
both levels by the suite's own functions (the delivery comparison of `verify` and the protocol
judge of conformance/observed.py, against the built-in reference's observed run of the same
trace). Per fault: the delivery verdict (must be `pass`), the protocol verdict, the rule that
caught it and the rule expected; then the catch rate (a fault counts as caught when it acts on at
least one trace and every trace it acts on deviates for its own rule; `n/a` counts the traces
that give it nothing to act on, e.g. no split on a tiny trace: its log is the reference's, which
conforms). Prints figures; asserts nothing (the tests do:
tests/test_protocol_faults.py).

Run: python -m benchmarks.bench_protocol_faults [--count 2] [--profile small] [--fault NAME]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

from pubsub_spec.conformance.examples.protocol_faults import (
    FAULTS,
    GENERATORS_OF,
    Fault,
    observed_run,
    traces_for,
)
from pubsub_spec.conformance.observed import judge_protocol, reference_run
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.common.oracle import expected_deliveries
from pubsub_spec.reference.sim.run import compare

NOT_APPLICABLE = "n/a"  # the fault found nothing to act on in the trace (its log is unchanged)


@dataclass(frozen=True)
class Outcome:
    fault: str
    trace: str
    delivery: str  # "pass" or "fail"
    protocol: str  # "conforms", "deviates (rule)", "not reported", or NOT_APPLICABLE
    rule: str | None  # the rule that caught it, if it deviates
    expected: str | None  # the fault's own rule (None: the reference, must conform)

    @property
    def applies(self) -> bool:
        return self.protocol != NOT_APPLICABLE

    @property
    def caught(self) -> bool:
        """Delivered right and deviating for its own rule (the reference: conforming)."""
        if self.delivery != "pass":
            return False
        if self.expected is None:
            return self.protocol == "conforms"
        return self.rule == self.expected


def judge(claim: str, fault: Fault | None, trace: Trace) -> Outcome:
    """Both levels of the program with `fault` on `trace`; NOT_APPLICABLE when the fault leaves
    the reference's observations as they are (e.g. a split fault on a trace without a split)."""
    run = observed_run(claim, fault, trace)
    ok = compare(expected_deliveries(trace), list(run.deliveries)).agree
    reference = reference_run(claim, trace)
    verdict = judge_protocol(run, reference)
    same = [(o.seq, o.obs) for o in run.log] == [(o.seq, o.obs) for o in reference.log]
    return Outcome(
        fault.name if fault else f"(none: {claim})",
        trace.trace_id,
        "pass" if ok else "fail",
        NOT_APPLICABLE if fault is not None and same else verdict.label(),
        verdict.rule or None,
        fault.rule if fault else None,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--count", type=int, default=2, help="traces per generator")
    ap.add_argument("--profile", default="small")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fault", action="append", choices=sorted(FAULTS), help="only these")
    args = ap.parse_args()
    start = time.monotonic()
    chosen = [FAULTS[n] for n in args.fault] if args.fault else list(FAULTS.values())
    print(f"{'fault':<28}{'system':<13}{'traces':>7}{'n/a':>5}  {'delivery':<9}"
          f"{'caught by':<36}{'expected':<36}{'rate':>6}")  # fmt: skip
    caught = 0
    for f in chosen:
        traces = traces_for(f.system, args.count, args.profile, args.seed)
        outs = [judge(f.system, f, t) for t in traces]
        delivery = "pass" if all(o.delivery == "pass" for o in outs) else "FAIL"
        acting = [o for o in outs if o.applies]
        rules = sorted({o.rule or o.protocol for o in acting}) or ["-"]
        rate = sum(o.caught for o in acting) / len(acting) if acting else 0.0
        caught += bool(acting) and rate == 1.0
        print(f"{f.name:<28}{f.system:<13}{len(outs):>7}{len(outs) - len(acting):>5}  "
              f"{delivery:<9}{', '.join(rules):<36}{f.rule:<36}{rate:>6.0%}")  # fmt: skip
    refs = sorted(GENERATORS_OF)  # every claimable system
    conforming = 0
    for claim in refs:
        traces = traces_for(claim, args.count, args.profile, args.seed)
        outs = [judge(claim, None, t) for t in traces]
        conforming += all(o.caught for o in outs)
        bad = [f"{o.trace}: {o.protocol}" for o in outs if not o.caught]
        verdict = "conforms" if not bad else "; ".join(bad)
        print(f"un-faulted {claim:<17}{'':13}{len(outs):>7}{'':5}  {verdict}")
    print(
        f"catch rate {caught / len(chosen):.0%} ({caught} of {len(chosen)} faults, each for its "
        f"own rule); the un-faulted program conforms for {conforming} of {len(refs)} systems; "
        f"{time.monotonic() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
