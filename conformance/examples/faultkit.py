#!/usr/bin/env python3
"""The fault kit: a correct brute-force implementation of the process protocol
(conformance/PROTOCOL.md) and, with `--fault NAME`, one realistic fault of the kind an
implementer writes from the docs, each a few lines below. The default conformance trace set must
catch every one (tests/test_conformance_faultkit.py; the catch rate is a figure of
benchmarks/bench_conformance_faults.py and docs/conformance.md).

  python3 faultkit.py                   correct: must pass
  python3 faultkit.py --fault float32   compares in 32-bit floats

Standard library only.
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
from typing import Any

# name -> what the fault does (the expected verdict is `fail`, except for the feature fault,
# which must be `incomplete`).
FAULTS: dict[str, str] = {
    "float32": "compares values and bounds as 32-bit floats",
    "tolerance": "compares with a 1e-9 tolerance",
    "fixed3": "compares in 3-decimal fixed point",
    "open-upper": "treats ranges as [lo, hi)",
    "open-lower": "treats ranges as (lo, hi]",
    "ignore-schema": "matches subscriptions of every schema that has the attribute names",
    "always-strict": "ignores lenient matching",
    "always-lenient": "ignores strict matching",
    "no-vacuous": "lenient, but an event sharing no attribute with a subscription never matches",
    "keep-unsubscribed": "ignores unsubscribe",
    "keep-left": "keeps the subscriptions of a node that left",
    "fail-first-only": "a failure of several nodes removes only the first one's subscriptions",
    "late-match": "matches every event at the end, against the final subscriptions",
    "first-only": "delivers only the first matching subscription of an event",
    "duplicate-last": "delivers the last matching subscription of every event twice",
    "strict-only": "announces only the strict feature (opts out of most of the exam)",
}
INCOMPLETE = frozenset({"strict-only"})


def _f32(x: float) -> float:
    try:
        return float(struct.unpack("f", struct.pack("f", x))[0])
    except OverflowError:
        return float("inf") if x > 0 else float("-inf")


def inside(lo: float, v: float, hi: float, fault: str) -> bool:
    if fault == "float32":
        return _f32(lo) <= _f32(v) <= _f32(hi)
    if fault == "tolerance":
        return lo - 1e-9 <= v <= hi + 1e-9
    if fault == "fixed3":
        return round(lo, 3) <= round(v, 3) <= round(hi, 3)
    if fault == "open-upper":
        return lo <= v < hi
    if fault == "open-lower":
        return lo < v <= hi
    return lo <= v <= hi


def matches(sub: dict[str, Any], event: dict[str, Any], strict: bool, fault: str) -> bool:
    values, preds = event["values"], sub["predicates"]
    if sub["schema"] != event["schema"] and (
        fault != "ignore-schema" or not set(preds) <= set(values)
    ):
        return False
    if fault in ("always-strict", "always-lenient"):
        strict = fault == "always-strict"
    if fault == "no-vacuous" and not set(preds) & set(values):
        return False
    return all(
        inside(lo, values[a], hi, fault) if a in values else not strict
        for a, (lo, hi) in preds.items()
    )


def out(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--fault", choices=sorted(FAULTS), default=None)
    fault = ap.parse_args(argv).fault or ""
    subs: dict[str, dict[str, Any]] = {}
    strict = True
    late: list[dict[str, Any]] = []
    for line in sys.stdin:
        m = json.loads(line)
        if m["type"] == "init":
            strict = m["semantics"]["matching"] != "lenient"
            every = ["strict", "lenient", "churn", "multi-schema"]
            feats = ["strict"] if fault == "strict-only" else every
            out({"type": "init_ok", "features": feats, "name": fault or "correct"})
            continue
        if m["type"] == "end":
            for ev in late:  # late-match: the buffered events, against the final state
                for sid in sorted(s for s, x in subs.items() if matches(x, ev, strict, fault)):
                    out({"type": "deliver", "event": ev["id"], "sub": sid})
            out({"type": "end_ok"})
            return 0
        op = m["op"]
        if op == "subscribe":
            subs[m["id"]] = m
        elif op == "unsubscribe" and fault != "keep-unsubscribed":
            subs.pop(m["id"], None)
        elif op == "leave" and fault != "keep-left":
            for sid in [s for s, x in subs.items() if x["subscriber"] == m["node"]]:
                del subs[sid]
        elif op == "fail":
            gone = set(m["nodes"][:1] if fault == "fail-first-only" else m["nodes"])
            for sid in [s for s, x in subs.items() if x["subscriber"] in gone]:
                del subs[sid]
        elif op == "publish":
            if fault == "late-match":
                late.append(m)
            else:
                hits = sorted(s for s, x in subs.items() if matches(x, m, strict, fault))
                if fault == "first-only":
                    hits = hits[:1]
                if fault == "duplicate-last" and hits:
                    hits.append(hits[-1])
                for sid in hits:
                    out({"type": "deliver", "event": m["id"], "sub": sid})
        out({"type": "ack", "seq": m["seq"]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
