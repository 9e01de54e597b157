"""Verdicts (DESIGN.md, Conformance): pass / fail / unknown / skipped(reason). A fail names the
missing, duplicate and spurious (event, subscription) pairs; a run that checked nothing fails."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from reference.common.oracle import Delivery


@dataclass(frozen=True)
class Verdict:
    impl: str
    trace_id: str
    generator: str
    verdict: str  # pass | fail | unknown | skipped
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


def overall(verdicts: list[Verdict]) -> str:
    """One implementation's verdict over a trace set: fail if any trace fails, else unknown if
    any is unknown, else pass if something was checked (all skipped: skipped)."""
    if not verdicts or all(v.verdict == "skipped" for v in verdicts):
        return "skipped"
    if any(v.verdict == "fail" for v in verdicts):
        return "fail"
    if any(v.verdict == "unknown" for v in verdicts):
        return "unknown"
    if sum(v.checked for v in verdicts) == 0:
        return "fail"  # passes that checked nothing prove nothing
    return "pass"
