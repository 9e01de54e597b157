"""Verdicts (docs/design.md#conformance): pass / fail / unknown / skipped(reason). A fail names the
missing, duplicate and spurious (event, subscription) pairs; a run that checked nothing fails.

That is the delivery level. The protocol level (conformance/OBSERVATIONS.md, "Verdict levels";
conformance/observed.py) rides along in `Verdict.protocol` when it was asked for: `conforms`,
`deviates (rule)` or `not reported`; `overall_protocol` is an implementation's over a set."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from pubsub_spec.reference.common.oracle import Delivery
from pubsub_spec.reference.sim.system import FEATURES


@dataclass(frozen=True)
class Verdict:
    impl: str
    trace_id: str
    generator: str
    verdict: str  # pass | fail | unknown | skipped (per trace; `overall` adds incomplete)
    checked: int = 0  # publishes compared
    expected: int = 0
    missing: tuple[Delivery, ...] = ()
    duplicate: tuple[Delivery, ...] = ()
    spurious: tuple[Delivery, ...] = ()
    reason: str = ""
    seconds: float = 0.0
    extra: dict[str, str] = field(default_factory=dict)
    # why it did not pass: deliveries | vacuous | crash | timeout | protocol | error | start |
    # feature | bad-trace | bad-expected | unavailable | unknown-impl | output-limit (fail: more
    # output than the limits allow) | resource (unknown: a built-in hit a memory limit)
    # ("" for a pass)
    kind: str = ""
    # the protocol level: "" (not judged), "conforms", "deviates (rule)" or "not reported",
    # and its one-line detail (the rule's source, the offending observation, ...)
    protocol: str = ""
    protocol_detail: str = ""

    def describe(self) -> str:
        if self.verdict == "pass":
            return f"pass ({self.expected} deliveries over {self.checked} publishes)"
        if self.verdict != "fail" or self.reason:
            return f"{self.verdict}: {self.reason}"
        parts = []
        for label, items in (
            ("missing", self.missing),
            ("duplicate", self.duplicate),
            ("spurious", self.spurious),
        ):
            if items:
                shown = ", ".join(f"({d.event_id}, {d.sub_id})" for d in items[:5])
                more = f" and {len(items) - 5} more" if len(items) > 5 else ""
                parts.append(f"{len(items)} {label}: {shown}{more}")
        return "fail: " + "; ".join(parts)


def judge(
    impl: str,
    trace_id: str,
    generator: str,
    expected: list[Delivery],
    got: list[Delivery],
    publishes: int,
    seconds: float,
) -> Verdict:
    exp = set(expected)
    counts = Counter(got)
    missing = tuple(sorted(exp - counts.keys()))
    duplicate = tuple(sorted(d for d, n in counts.items() if n > 1))
    spurious = tuple(sorted(d for d in counts if d not in exp))
    if publishes == 0:
        return Verdict(
            impl,
            trace_id,
            generator,
            "fail",
            reason="vacuous: no publish to check",
            seconds=seconds,
            kind="vacuous",
        )
    ok = not (missing or duplicate or spurious)
    return Verdict(
        impl,
        trace_id,
        generator,
        "pass" if ok else "fail",
        publishes,
        len(exp),
        missing,
        duplicate,
        spurious,
        seconds=seconds,
        kind="" if ok else "deliveries",
    )


# The feature policy (docs/conformance.md "What passing means"): an implementation
# cannot choose its own exam. It must support the core features to pass, and may skip (for
# features it does not declare) at most this share of a trace set; otherwise its verdict is
# `incomplete` (exit 1), unless the user names the subset of features it is judged on.
CORE_FEATURES: frozenset[str] = frozenset({"strict", "multi-schema"})
MAX_SKIPPED_SHARE = 0.25


def skipped_features(v: Verdict) -> frozenset[str]:
    """The features a `skipped(feature)` verdict names (built-ins: "needs unsupported
    feature(s): ..."; outside programs: "does not support ... (init_ok features)")."""
    if v.verdict != "skipped" or v.kind != "feature":
        return frozenset()
    words = set(re.findall(r"[a-z][a-z-]*", v.reason))
    return frozenset(words & set(FEATURES))


def overall(verdicts: list[Verdict], subset: frozenset[str] | None = None) -> str:
    """One implementation's verdict over a trace set: fail if any trace fails, else unknown if
    any is unknown, else incomplete if it skipped a core feature or more than
    MAX_SKIPPED_SHARE of the traces for lack of features, else pass if something was checked
    (all skipped: skipped). With `subset` (the features the user asks it to be judged on),
    skips for features outside the subset are accepted, and a skip inside it is incomplete."""
    if not verdicts or all(v.verdict == "skipped" for v in verdicts):
        return "skipped"
    if any(v.verdict == "fail" for v in verdicts):
        return "fail"
    if any(v.verdict == "unknown" for v in verdicts):
        return "unknown"
    if sum(v.checked for v in verdicts) == 0:
        return "fail"  # passes that checked nothing prove nothing
    skips = [v for v in verdicts if skipped_features(v)]
    lacking = frozenset().union(*(skipped_features(v) for v in skips))
    if subset is not None:
        return "incomplete" if lacking & subset else "pass"
    if lacking & CORE_FEATURES or len(skips) > MAX_SKIPPED_SHARE * len(verdicts):
        return "incomplete"
    return "pass"


def overall_protocol(verdicts: list[Verdict]) -> str:
    """One implementation's protocol level over a trace set: "" when none was judged; else the
    first `deviates (rule)`; else `not reported` if any trace that ran was not reported (a
    version-1 program, a built-in without a claim, a run that did not complete); else
    `conforms`. Traces skipped at the delivery level are left out."""
    judged = [v for v in verdicts if v.protocol]
    if not judged:
        return ""
    ran = [v for v in judged if v.verdict != "skipped"]
    if not ran:
        return "not reported"
    for v in ran:
        if v.protocol.startswith("deviates"):
            return v.protocol
    if any(v.protocol != "conforms" for v in ran):
        return "not reported"
    return "conforms"
